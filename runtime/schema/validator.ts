import {
  type Collector,
  FieldPath,
  type PathLike,
  base64Error,
  charLength,
  checkMapKeysUnique,
  checkSetUnique,
  checkValueValidation,
  isBase64,
  isDate,
  isDateTime,
  isDuration,
  isObject,
  isQuantity,
  lazyRegex,
} from '../validate/index.js';
import { type Validator, checks } from './checks.js';
import type { ListSchema, MapSchema, ObjectSchema, ScalarSchema, SchemaNode } from './types.js';
import { compileToSource } from './validator-source.js';

export type { Validator } from './checks.js';

/**
 * The validator of a schema descriptor, compiled on first use and cached per descriptor: the same
 * engine serves built-in kinds, a project's generated kinds and custom resources defined at run
 * time. It is compiled to straight-line JavaScript (validator-source.ts, no schema text in the
 * source), or to closures per node where the platform forbids compiling code (a browser's Content
 * Security Policy); both find the same. A named type marked `customResource` is checked in
 * kube-openapi's words, as upstream checks custom resources; each reference is checked as its
 * target says (a custom resource's metadata as the built-in type it is).
 */
export function validatorOf(schema: SchemaNode): Validator {
  let v = cache.get(schema);
  // References are followed on first call, so compiling never recurses through them.
  if (!v) cache.set(schema, (v = compile(schema)));
  return v;
}

const cache = new WeakMap<SchemaNode, Validator>();

function compile(schema: SchemaNode): Validator {
  const customResource = schema.type === 'object' && schema.customResource === true;
  return compileToSource(schema, customResource, validatorOf) ?? closureValidator(schema);
}

/** The validator as closures per node, uncached (validatorOf's fallback; tests compare both). */
export function closureValidator(schema: SchemaNode): Validator {
  return new Compiler(schema.type === 'object' && schema.customResource === true).root(schema);
}

/** A check of a value at a path that the caller builds (a FieldPath, or text on the error path only). */
type Check = (x: unknown, p: PathLike, e: Collector) => void;

class Compiler {
  constructor(private readonly openAPI: boolean) {}

  /** A named type's validator: an object's body, or the check of any other node at the top. */
  root(node: SchemaNode): Validator {
    return node.type === 'object' && node.fields.length > 0 ? this.objectBody(node) : this.check(node, true);
  }

  private typeError(expected: string): Check {
    return this.openAPI ? (x, p, e) => e.openAPI('type', p, x, expected) : (x, p, e) => e.type(p, x, expected);
  }

  private objectBody(node: ObjectSchema): Check {
    const typeError = this.typeError('object');
    const unknown = node.preserveUnknown || node.embeddedResource ? undefined : new Set(node.fields.map((f) => f.name));
    const valueValidation = node.valueValidation;
    const bounds = this.propertyBounds(node, 'properties');
    const fields = node.fields.map((f) => this.field(f.name, f.schema, f.required === true)).filter((c) => c !== undefined);
    return (v, p, e) => {
      if (!isObject(v)) {
        typeError(v, p, e);
        return;
      }
      if (unknown) for (const k in v) if (!unknown.has(k)) e.unknown(`${p}.${k}`);
      // kube-openapi checks the junctors before the object's own properties: its errors come first.
      if (valueValidation) checkValueValidation(v, p, valueValidation, e);
      if (bounds) bounds(Object.keys(v).length, p, e);
      for (const f of fields) f(v, p, e);
    };
  }

  /** minProperties/maxProperties of an object (`properties`) or a map (`entries`), given the count. */
  private propertyBounds(node: SchemaNode, noun: string): ((n: number, p: PathLike, e: Collector) => void) | undefined {
    const { minProperties: min, maxProperties: max } = node;
    if (min === undefined && max === undefined) return undefined;
    const openAPI = this.openAPI;
    return (n, p, e) => {
      if (min !== undefined && n < min) {
        if (openAPI) e.openAPI('minProperties', p, n, min);
        else e.invalid(p, n, `must have at least ${min} ${noun}`);
      }
      if (max !== undefined && n > max) {
        if (openAPI) e.openAPI('maxProperties', p, n, max);
        else e.tooMany(p, n, max);
      }
    };
  }

  private field(
    name: string,
    schema: SchemaNode,
    required: boolean,
  ): ((v: Record<string, unknown>, p: PathLike, e: Collector) => void) | undefined {
    const checked = checks(schema);
    if (!required && !checked) return undefined;
    const check = checked ? this.check(schema, false) : undefined;
    const nullable = schema.nullable === true;
    // Only the document's own properties: `toString` is not an inherited function here.
    const inherited = name in Object.prototype;
    return (v, p, e) => {
      const x = inherited && !Object.hasOwn(v, name) ? undefined : v[name];
      const absent = x === undefined || (!nullable && x === null);
      if (absent) {
        if (required) e.required(new FieldPath(p, name));
        return;
      }
      if (check) check(x, new FieldPath(p, name), e);
    };
  }

  /** Checks a value: its structure, then (unless an object's own body does) its junctors. */
  private check(node: SchemaNode, top: boolean): Check {
    if (node.nullable && !top) {
      const inner = this.check({ ...node, nullable: false } as SchemaNode, top);
      return (x, p, e) => {
        if (x !== null) inner(x, p, e);
      };
    }
    const structure = this.structure(node, top);
    const vv = node.valueValidation;
    const ownBody = node.type === 'object' && node.fields.length > 0 && !top;
    if (!vv || ownBody) return structure;
    return (x, p, e) => {
      structure(x, p, e);
      checkValueValidation(x, p, vv, e);
    };
  }

  private structure(node: SchemaNode, top: boolean): Check {
    switch (node.type) {
      case 'ref': {
        const target = node.ref;
        let validate: Validator | undefined;
        const enumCheck = this.enumCheck(node);
        return (x, p, e) => {
          (validate ??= validatorOf(target()))(x, p, e);
          enumCheck?.(x, p, e);
        };
      }
      case 'object': {
        if (node.fields.length > 0 && !top) return this.objectBody(node);
        const typeError = this.typeError('object');
        return (x, p, e) => {
          if (!isObject(x)) typeError(x, p, e);
        };
      }
      case 'list':
        return this.list(node);
      case 'map':
        return this.map(node);
      case 'raw':
        return () => {};
      case 'int-or-string': {
        const openAPI = this.openAPI;
        const enumCheck = this.enumCheck(node);
        return (x, p, e) => {
          if (typeof x !== 'string' && !Number.isInteger(x)) {
            if (openAPI) e.openAPI('type', p, x, 'integer,string');
            else e.type(p, x, 'integer or string');
          }
          enumCheck?.(x, p, e);
        };
      }
      case 'quantity':
        return (x, p, e) => {
          if (!isQuantity(x)) e.invalid(p, x, 'must be a quantity such as 1Gi, 500m or 1e3');
        };
      case 'bytes':
        // Go decodes []byte from base64 before anything validates: a bad value is a decoding error
        // that shows no value (a Secret's data must never be echoed in an error or an audit log).
        return this.string(node, (x, p, e) => {
          if (!isBase64(x as string)) e.undecodable(p, base64Error(x as string) ?? '');
        });
      case 'date':
        return this.string(node, this.format(isDate, 'must be a date (YYYY-MM-DD)', 'date'));
      case 'date-time':
        return this.string(node, this.format(isDateTime, 'must be an RFC 3339 timestamp', 'date-time'));
      case 'duration':
        return this.string(node, this.format(isDuration, 'must be a duration such as 30s, 1m30s or 500ms', 'duration'));
      default:
        return this.scalar(node);
    }
  }

  private scalar(node: ScalarSchema): Check {
    switch (node.type) {
      case 'string':
        return this.string(node);
      case 'boolean': {
        const typeError = this.typeError('boolean');
        const enumCheck = this.enumCheck(node);
        return (x, p, e) => {
          if (typeof x !== 'boolean') typeError(x, p, e);
          enumCheck?.(x, p, e);
        };
      }
      case 'integer': {
        const typeError = this.typeError('integer');
        // kube-openapi checks no integer format: a custom resource's int32 field takes any integer.
        const int32 = node.format === 'int32' && !this.openAPI;
        const int64 = node.format === 'int64';
        const bounds = this.numberBounds(node);
        return (x, p, e) => {
          if (typeof x !== 'number' || !Number.isInteger(x)) typeError(x, p, e);
          else if (int32 && (x < -2147483648 || x > 2147483647)) e.invalid(p, x, 'out of range for int32');
          else if (int64 && !Number.isSafeInteger(x)) e.invalid(p, x, 'out of range for int64');
          bounds?.(x, p, e);
        };
      }
      default: {
        const typeError = this.typeError('number');
        const bounds = this.numberBounds(node);
        return (x, p, e) => {
          if (typeof x !== 'number') typeError(x, p, e);
          bounds?.(x, p, e);
        };
      }
    }
  }

  private numberBounds(node: SchemaNode): Check | undefined {
    const { minimum: min, maximum: max, exclusiveMinimum: exMin = false, exclusiveMaximum: exMax = false } = node;
    const enumCheck = this.enumCheck(node);
    if (min === undefined && max === undefined && !enumCheck) return undefined;
    const openAPI = this.openAPI;
    const minMessage = `must be ${exMin ? 'greater than' : 'greater than or equal to'} ${min}`;
    const maxMessage = `must be ${exMax ? 'less than' : 'less than or equal to'} ${max}`;
    return (x, p, e) => {
      if (typeof x !== 'number') return;
      if (min !== undefined && (exMin ? x <= min : x < min)) {
        if (openAPI) e.openAPI('minimum', p, x, min, exMin);
        else e.invalid(p, x, minMessage);
      }
      if (max !== undefined && (exMax ? x >= max : x > max)) {
        if (openAPI) e.openAPI('maximum', p, x, max, exMax);
        else e.invalid(p, x, maxMessage);
      }
      enumCheck?.(x, p, e);
    };
  }

  /** A format's test of a string, reporting an Invalid value with `message` (kube-openapi: a format error). */
  private format(test: (s: string) => boolean, message: string, format: string): Check {
    return this.openAPI
      ? (x, p, e) => {
          if (!test(x as string)) e.openAPI('format', p, x as string, format);
        }
      : (x, p, e) => {
          if (!test(x as string)) e.invalid(p, x, message);
        };
  }

  private string(node: SchemaNode, format?: Check): Check {
    const typeError = this.typeError('string');
    const { minLength: minLen, maxLength: maxLen, pattern } = node;
    const openAPI = this.openAPI;
    const re = pattern === undefined ? undefined : lazyRegex(pattern);
    const patternMessage = `must match ${pattern}`;
    const enumCheck = this.enumCheck(node);
    // kube-openapi's string checks stop at the first failure: for custom resources, one chain.
    const checks: ((s: string, p: PathLike, e: Collector) => boolean)[] = [];
    if (minLen !== undefined)
      checks.push((s, p, e) => {
        if (charLength(s) >= minLen) return false;
        if (openAPI) e.openAPI('minLength', p, s, minLen);
        else e.invalid(p, s, `must be at least ${minLen} characters long`);
        return true;
      });
    if (maxLen !== undefined)
      checks.push((s, p, e) => {
        if (charLength(s) <= maxLen) return false;
        if (openAPI) e.openAPI('maxLength', p, s, maxLen);
        else e.tooLong(p, s, maxLen);
        return true;
      });
    if (re)
      checks.push((s, p, e) => {
        if (re.test(s)) return false;
        if (openAPI) e.openAPI('pattern', p, s, pattern!);
        else e.invalid(p, s, patternMessage);
        return true;
      });
    if (!format && checks.length === 0 && !enumCheck)
      return (x, p, e) => {
        if (typeof x !== 'string') typeError(x, p, e);
      };
    return (x, p, e) => {
      if (typeof x !== 'string') {
        typeError(x, p, e);
        return;
      }
      format?.(x, p, e);
      for (const c of checks) if (c(x, p, e) && openAPI) break;
      enumCheck?.(x, p, e);
    };
  }

  private enumCheck(node: SchemaNode): Check | undefined {
    const values = node.enum;
    if (!values) return undefined;
    const allowed = new Set<unknown>(values);
    return this.openAPI
      ? (x, p, e) => {
          if (!allowed.has(x)) e.openAPI('enum', p, x, values);
        }
      : (x, p, e) => {
          if (!allowed.has(x)) e.notSupported(p, x, values);
        };
  }

  private list(node: ListSchema): Check {
    const typeError = this.typeError('array');
    const { minItems: min, maxItems: max } = node;
    const openAPI = this.openAPI;
    const item = checks(node.items) ? this.check(node.items, false) : undefined;
    const set = node.listType === 'set';
    const keys = node.listType === 'map' ? node.listMapKeys : undefined;
    return (x, p, e) => {
      if (!Array.isArray(x)) {
        typeError(x, p, e);
        return;
      }
      if (min !== undefined && x.length < min) {
        if (openAPI) e.openAPI('minItems', p, x.length, min);
        else e.invalid(p, x.length, `must have at least ${min} items`);
      }
      if (max !== undefined && x.length > max) {
        if (openAPI) e.openAPI('maxItems', p, x.length, max);
        else e.tooMany(p, x.length, max);
      }
      if (item) for (let i = 0; i < x.length; i++) item(x[i], new FieldPath(p, '', i), e);
      // A list of one item cannot repeat: skip the call for most lists.
      if (set && x.length > 1) checkSetUnique(p, x, e);
      if (keys && x.length > 1) checkMapKeysUnique(p, x, keys, e);
    };
  }

  private map(node: MapSchema): Check {
    const typeError = this.typeError('object');
    const bounds = this.propertyBounds(node, 'entries');
    const value = checks(node.values) ? this.check(node.values, false) : undefined;
    // kube-openapi names a map's value `labels.key`; svckit's own kinds, as Go's field paths, `labels[key]`.
    const member = this.openAPI;
    return (x, p, e) => {
      if (!isObject(x)) {
        typeError(x, p, e);
        return;
      }
      if (bounds) bounds(Object.keys(x).length, p, e);
      if (value) for (const k in x) value(x[k], member ? new FieldPath(p, k) : new FieldPath(p, '', k), e);
    };
  }
}
