import { type FieldError, fieldInvalid, fieldRequired, fieldTooLong } from './field-errors.js';

// Name rules of the real system (k8s.io/apimachinery util/validation and api/validation/path).
// Each check returns the list of problems as the real system's sentences; empty means valid.

const DNS1123_LABEL_FMT = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const DNS1123_SUBDOMAIN_FMT = `${DNS1123_LABEL_FMT}(\\.${DNS1123_LABEL_FMT})*`;
const DNS1035_LABEL_FMT = '[a-z]([-a-z0-9]*[a-z0-9])?';
const QUALIFIED_NAME_FMT = '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]';
const LABEL_VALUE_FMT = `(${QUALIFIED_NAME_FMT})?`;

const DNS1123_LABEL = new RegExp(`^${DNS1123_LABEL_FMT}$`);
const DNS1123_SUBDOMAIN = new RegExp(`^${DNS1123_SUBDOMAIN_FMT}$`);
const DNS1035_LABEL = new RegExp(`^${DNS1035_LABEL_FMT}$`);
const QUALIFIED_NAME = new RegExp(`^${QUALIFIED_NAME_FMT}$`);
const LABEL_VALUE = new RegExp(`^${LABEL_VALUE_FMT}$`);

export const DNS1123_LABEL_MAX_LENGTH = 63;
export const DNS1123_SUBDOMAIN_MAX_LENGTH = 253;
export const DNS1035_LABEL_MAX_LENGTH = 63;
export const QUALIFIED_NAME_MAX_LENGTH = 63;
export const LABEL_VALUE_MAX_LENGTH = 63;
/** Keys plus values of all annotations of one object, in bytes. */
export const TOTAL_ANNOTATION_SIZE_LIMIT = 256 * 1024;

const DNS1123_LABEL_MSG =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character";
const DNS1123_SUBDOMAIN_MSG =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";
const DNS1035_LABEL_MSG =
  "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character";
const QUALIFIED_NAME_MSG =
  "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const LABEL_VALUE_MSG =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";

/** `must be no more than 63 characters`. */
export function maxLengthMessage(length: number): string {
  return `must be no more than ${length} characters`;
}

/** The real system's regex failure sentence: `<msg> (e.g. 'a' or 'b', regex used for validation is '<re>')`. */
export function regexMessage(message: string, pattern: string, ...examples: string[]): string {
  if (examples.length === 0) return `${message} (regex used for validation is '${pattern}')`;
  return `${message} (e.g. ${examples.map((e) => `'${e}', `).join(' or ')}regex used for validation is '${pattern}')`;
}

// Lengths are in bytes in the real system; names that pass the patterns are ASCII, so the
// UTF-16 length only differs for values that fail the pattern anyway.
const utf8 = new TextEncoder();

function byteLength(s: string): number {
  return utf8.encode(s).length;
}

/** RFC 1123 label: at most 63 lowercase alphanumerics or '-', alphanumeric at both ends (namespace names). */
export function isDNS1123Label(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > DNS1123_LABEL_MAX_LENGTH) errs.push(maxLengthMessage(DNS1123_LABEL_MAX_LENGTH));
  if (!DNS1123_LABEL.test(value)) {
    // A valid subdomain that is not a label can only differ by its dots.
    if (DNS1123_SUBDOMAIN.test(value)) errs.push('must not contain dots');
    else errs.push(regexMessage(DNS1123_LABEL_MSG, DNS1123_LABEL_FMT, 'my-name', '123-abc'));
  }
  return errs;
}

/** RFC 1123 subdomain: at most 253 characters, dot-separated labels (most object names). */
export function isDNS1123Subdomain(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > DNS1123_SUBDOMAIN_MAX_LENGTH) errs.push(maxLengthMessage(DNS1123_SUBDOMAIN_MAX_LENGTH));
  if (!DNS1123_SUBDOMAIN.test(value)) errs.push(regexMessage(DNS1123_SUBDOMAIN_MSG, DNS1123_SUBDOMAIN_FMT, 'example.com'));
  return errs;
}

/** RFC 1035 label: like an RFC 1123 label but starting with a letter (service names). */
export function isDNS1035Label(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > DNS1035_LABEL_MAX_LENGTH) errs.push(maxLengthMessage(DNS1035_LABEL_MAX_LENGTH));
  if (!DNS1035_LABEL.test(value)) errs.push(regexMessage(DNS1035_LABEL_MSG, DNS1035_LABEL_FMT, 'my-name', 'abc-123'));
  return errs;
}

const PATH_SEGMENT_NAMES_NOT_ALLOWED = ['.', '..'];
const PATH_SEGMENT_CHARACTERS_NOT_ALLOWED = ['/', '%'];

/** A name that must be usable as one URL path segment: not `.` or `..`, no `/` or `%`. */
export function isValidPathSegmentName(name: string): string[] {
  for (const bad of PATH_SEGMENT_NAMES_NOT_ALLOWED) if (name === bad) return [`may not be '${bad}'`];
  return isValidPathSegmentPrefix(name);
}

/** A generateName prefix for path-segment names: only the character rule applies. */
export function isValidPathSegmentPrefix(prefix: string): string[] {
  return PATH_SEGMENT_CHARACTERS_NOT_ALLOWED.filter((c) => prefix.includes(c)).map((c) => `may not contain '${c}'`);
}

/**
 * Label key (a "qualified name"): an optional DNS subdomain prefix and '/', then a name of at
 * most 63 alphanumerics, '-', '_' or '.', alphanumeric at both ends.
 */
export function isQualifiedName(value: string): string[] {
  const errs: string[] = [];
  const parts = value.split('/');
  let name: string;
  if (parts.length === 1) {
    name = parts[0] ?? '';
  } else if (parts.length === 2) {
    const prefix = parts[0] ?? '';
    name = parts[1] ?? '';
    if (prefix.length === 0) errs.push('prefix part must be non-empty');
    else errs.push(...isDNS1123Subdomain(prefix).map((m) => `prefix part ${m}`));
  } else {
    return [
      `a qualified name ${regexMessage(QUALIFIED_NAME_MSG, QUALIFIED_NAME_FMT, 'MyName', 'my.name', '123-abc')} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`,
    ];
  }
  if (name.length === 0) errs.push('name part must be non-empty');
  else if (byteLength(name) > QUALIFIED_NAME_MAX_LENGTH) errs.push(`name part ${maxLengthMessage(QUALIFIED_NAME_MAX_LENGTH)}`);
  if (!QUALIFIED_NAME.test(name))
    errs.push(`name part ${regexMessage(QUALIFIED_NAME_MSG, QUALIFIED_NAME_FMT, 'MyName', 'my.name', '123-abc')}`);
  return errs;
}

/** Label value: empty, or at most 63 alphanumerics, '-', '_' or '.', alphanumeric at both ends. */
export function isValidLabelValue(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > LABEL_VALUE_MAX_LENGTH) errs.push(maxLengthMessage(LABEL_VALUE_MAX_LENGTH));
  if (!LABEL_VALUE.test(value)) errs.push(regexMessage(LABEL_VALUE_MSG, LABEL_VALUE_FMT, 'MyValue', 'my_value', '12345'));
  return errs;
}

/**
 * Validates an object name; `prefix` is true for a generateName, which may end in '-' because
 * random characters follow it.
 */
export type NameValidator = (name: string, prefix: boolean) => string[];

// The real system replaces a trailing '-' (dropping the character before it too) so that a prefix
// like `web-` validates; kept verbatim because it decides which prefixes pass.
function maskTrailingDash(name: string): string {
  return name.length > 1 && name.endsWith('-') ? `${name.slice(0, -2)}a` : name;
}

/** The name rule of most kinds: an RFC 1123 subdomain. */
export const nameIsDNSSubdomain: NameValidator = (name, prefix) => isDNS1123Subdomain(prefix ? maskTrailingDash(name) : name);
/** The name rule of namespaces and some other kinds: an RFC 1123 label. */
export const nameIsDNSLabel: NameValidator = (name, prefix) => isDNS1123Label(prefix ? maskTrailingDash(name) : name);
/** The name rule of services: an RFC 1035 label. */
export const nameIsDNS1035Label: NameValidator = (name, prefix) => isDNS1035Label(prefix ? maskTrailingDash(name) : name);
/** The loosest rule, for kinds whose names only need to fit in a URL path segment. */
export const nameIsPathSegment: NameValidator = (name, prefix) => (prefix ? isValidPathSegmentPrefix(name) : isValidPathSegmentName(name));

/**
 * The name part of the real system's ValidateObjectMeta: a generateName is checked as a prefix,
 * and a name is required (`name or generateName is required`) and checked in full.
 */
export function validateObjectName(
  meta: { name?: string | undefined; generateName?: string | undefined },
  validateName: NameValidator = nameIsDNSSubdomain,
  path = 'metadata',
): FieldError[] {
  const errs: FieldError[] = [];
  const { name = '', generateName = '' } = meta;
  if (generateName !== '') {
    for (const msg of validateName(generateName, true)) errs.push(fieldInvalid(`${path}.generateName`, generateName, msg));
  }
  if (name === '') errs.push(fieldRequired(`${path}.name`, 'name or generateName is required'));
  else for (const msg of validateName(name, false)) errs.push(fieldInvalid(`${path}.name`, name, msg));
  return errs;
}

/** Every label key a qualified name, every value a valid label value. */
export function validateLabels(labels: Readonly<Record<string, string>>, path = 'metadata.labels'): FieldError[] {
  const errs: FieldError[] = [];
  for (const [key, value] of Object.entries(labels)) {
    for (const msg of isQualifiedName(key)) errs.push(fieldInvalid(path, key, msg));
    for (const msg of isValidLabelValue(value)) errs.push(fieldInvalid(path, value, msg));
  }
  return errs;
}

/** Annotation keys are qualified names in any case; keys and values together at most 256 KiB. */
export function validateAnnotations(annotations: Readonly<Record<string, string>>, path = 'metadata.annotations'): FieldError[] {
  const errs: FieldError[] = [];
  let total = 0;
  for (const [key, value] of Object.entries(annotations)) {
    for (const msg of isQualifiedName(key.toLowerCase())) errs.push(fieldInvalid(path, key, msg));
    total += byteLength(key) + byteLength(value);
  }
  if (total > TOTAL_ANNOTATION_SIZE_LIMIT) errs.push(fieldTooLong(path, '', TOTAL_ANNOTATION_SIZE_LIMIT));
  return errs;
}

/** The real system's alphabet for generated suffixes: no vowels (no accidental words), no look-alikes. */
export const GENERATED_NAME_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';
/** Random characters appended to a generateName. */
export const GENERATED_NAME_RANDOM_LENGTH = 5;
/** A base longer than this is cut so that the result fits in 63 characters. */
export const MAX_GENERATE_NAME_BASE_LENGTH = 63 - GENERATED_NAME_RANDOM_LENGTH;

/**
 * `base` (cut to 58 characters) followed by 5 random characters of GENERATED_NAME_ALPHABET.
 * `pick(n)` returns an index in [0, n); a cryptographic source by default.
 */
export function generateName(base: string, pick: (n: number) => number = randomIndex): string {
  let suffix = '';
  for (let i = 0; i < GENERATED_NAME_RANDOM_LENGTH; i++) suffix += GENERATED_NAME_ALPHABET[pick(GENERATED_NAME_ALPHABET.length)] ?? '';
  return base.slice(0, MAX_GENERATE_NAME_BASE_LENGTH) + suffix;
}

/**
 * An unbiased index in [0, n) from Web Crypto (in Node and browsers alike, so this module needs
 * no `node:` import): draws above the largest multiple of n are redrawn.
 */
function randomIndex(n: number): number {
  const limit = Math.floor(0x1_0000_0000 / n) * n;
  const draw = new Uint32Array(1);
  for (;;) {
    globalThis.crypto.getRandomValues(draw);
    if (draw[0]! < limit) return draw[0]! % n;
  }
}
