import {
  type FieldError,
  fieldInvalid,
  fieldNotSupported,
  fieldRequired,
  fieldTooLong,
  fieldTooMany,
  fieldTypeInvalid,
  jsonTypeOf,
} from '../api/index.js';

/**
 * The field errors a custom resource's OpenAPI schema check gives, worded as a 1.30 server words
 * them: kube-openapi's messages (`spec.replicas in body should be greater than or equal to 1`),
 * turned into field errors by apiextensions' kubeOpenAPIResultToFieldErrors (Required,
 * NotSupported, TooLong, TooMany and TypeInvalid by their own types; every other an Invalid value
 * whose detail is kube-openapi's message; TooLong and TooMany worded as every one of svckit's, by
 * current apimachinery). `path` is the field path as text, which is also
 * kube-openapi's name of the value; the value is always "in body".
 */
export const openAPIErrors = {
  type(path: string, value: unknown, expected: string): FieldError {
    const actual = jsonTypeOf(value);
    return fieldTypeInvalid(path, actual, `${path} in body must be of type ${expected}: ${JSON.stringify(actual)}`);
  },
  /**
   * A string not in its format. kube-openapi reports it as a wrong type (`must be of type
   * date-time: "yesterday"`); it stays an Invalid value here, as the spec's error table keeps
   * wrong types fatal (400) and a format error is not one.
   */
  format(path: string, value: string, format: string): FieldError {
    return fieldInvalid(path, value, `${path} in body must be of type ${format}: ${JSON.stringify(value)}`);
  },
  required(path: string): FieldError {
    return fieldRequired(path);
  },
  /** Values as upstream lists them: strings as they are, anything else as its JSON. */
  enum(path: string, value: unknown, allowed: readonly unknown[]): FieldError {
    return fieldNotSupported(
      path,
      value,
      allowed.map((v) => (typeof v === 'string' ? v : JSON.stringify(v))),
    );
  },
  minLength(path: string, value: string, min: number): FieldError {
    return fieldInvalid(path, value, `${path} in body should be at least ${min} chars long`);
  },
  /** field.TooLong, in current apimachinery's wording as every TooLong here (docs/decisions.md). */
  maxLength(path: string, value: string, max: number): FieldError {
    return fieldTooLong(path, value, max);
  },
  pattern(path: string, value: string, pattern: string): FieldError {
    return fieldInvalid(path, value, `${path} in body should match '${pattern}'`);
  },
  minimum(path: string, value: number, min: number, exclusive: boolean): FieldError {
    const than = exclusive ? 'greater than' : 'greater than or equal to';
    return fieldInvalid(path, value, `${path} in body should be ${than} ${goNumber(min, value)}`);
  },
  maximum(path: string, value: number, max: number, exclusive: boolean): FieldError {
    const than = exclusive ? 'less than' : 'less than or equal to';
    return fieldInvalid(path, value, `${path} in body should be ${than} ${goNumber(max, value)}`);
  },
  minItems(path: string, count: number, min: number): FieldError {
    return fieldInvalid(path, count, `${path} in body should have at least ${min} items`);
  },
  maxItems(path: string, count: number, max: number): FieldError {
    return fieldTooMany(path, count, max);
  },
  minProperties(path: string, count: number, min: number): FieldError {
    return fieldInvalid(path, count, `${path} in body should have at least ${min} properties`);
  },
  maxProperties(path: string, count: number, max: number): FieldError {
    return fieldTooMany(path, count, max);
  },
  /**
   * A failed allOf/anyOf/oneOf/not: kube-openapi's composite error has no field, so upstream
   * reports it at the nil path (`<nil>: Invalid value: "": "spec" must validate ...`).
   */
  composite(path: string, message: string): FieldError {
    return fieldInvalid('<nil>', '', `${JSON.stringify(path)} ${message}`);
  },
};

/**
 * A bound as Go's `%v` prints it: an integer bound checked against an integer as an int64, any
 * other as a float64 (shortest form, exponent from 1e+21 up and below 1e-4, as strconv's 'g').
 */
function goNumber(bound: number, value: number): string {
  if (Number.isInteger(bound) && Number.isInteger(value)) return String(bound);
  if (bound === 0) return '0';
  const exp = Math.floor(Math.log10(Math.abs(bound)));
  if (exp < -4 || exp >= 21) {
    const [mantissa, e] = bound.toExponential().split('e') as [string, string];
    const sign = e.startsWith('-') ? '-' : '+';
    const digits = e.replace(/^[-+]/, '').padStart(2, '0');
    return `${mantissa}e${sign}${digits}`;
  }
  return String(bound);
}
