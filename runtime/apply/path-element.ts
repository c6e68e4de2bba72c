/**
 * Path elements: one step from a value to a part of it, as field ownership names them. The text
 * forms (`f:name`, `k:{"name":"a"}`, `v:"x"`, `i:0`) are the keys of the FieldsV1 tree and follow
 * the real system byte for byte; the dotted forms (`.spec.containers[name="a"]`) are what apply
 * conflicts print.
 */
import { type JsonValue, isJsonObject } from '../json/index.js';
import { ManagedFieldsError } from './errors.js';

/** One key field of a list-map item and its value. */
export interface KeyField {
  readonly name: string;
  readonly value: JsonValue;
}

export type PathElement =
  /** A struct field or a map key. */
  | { readonly kind: 'field'; readonly name: string }
  /** A list-map item, by its key fields sorted by name. */
  | { readonly kind: 'key'; readonly fields: readonly KeyField[] }
  /** A set item, by its value. */
  | { readonly kind: 'value'; readonly value: JsonValue }
  /** An item of a list whose items have no identity but their position. */
  | { readonly kind: 'index'; readonly index: number };

export type Path = readonly PathElement[];

/** One element per name, its FieldsV1 key written once: every walk of an object names its fields again. */
export function fieldElement(name: string): PathElement {
  let element = fieldElements.get(name);
  if (element === undefined) {
    element = { kind: 'field', name };
    serialized.set(element, `f:${name}`);
    if (fieldElements.size >= FIELD_ELEMENTS_KEPT) fieldElements.clear();
    fieldElements.set(name, element);
  }
  return element;
}

const fieldElements = new Map<string, PathElement>();
const FIELD_ELEMENTS_KEPT = 10_000;

/** Key fields are sorted by name, so that the same item always has the same element. */
export function keyElement(fields: readonly KeyField[]): PathElement {
  return { kind: 'key', fields: [...fields].sort((a, b) => compareStrings(a.name, b.name)) };
}

export function valueElement(value: JsonValue): PathElement {
  return { kind: 'value', value };
}

export function indexElement(index: number): PathElement {
  return index >= 0 && index < INDEX_ELEMENTS.length ? (INDEX_ELEMENTS[index] as PathElement) : { kind: 'index', index };
}

// Positions of short lists, shared (elements are immutable).
const INDEX_ELEMENTS: readonly PathElement[] = Array.from({ length: 64 }, (_, index) => ({ kind: 'index', index }));

// Elements are immutable and looked up many times while sets are built and compared.
const serialized = new WeakMap<PathElement, string>();

/** The FieldsV1 key of an element: `f:<name>` (raw), `k:<json object>`, `v:<json>`, `i:<n>`. */
export function serializePathElement(pe: PathElement): string {
  let text = serialized.get(pe);
  if (text === undefined) {
    text = serializeUncached(pe);
    serialized.set(pe, text);
  }
  return text;
}

function serializeUncached(pe: PathElement): string {
  switch (pe.kind) {
    case 'field':
      return `f:${pe.name}`;
    case 'key':
      return `k:{${pe.fields.map((f) => `${goJson(f.name)}:${goJson(f.value)}`).join(',')}}`;
    case 'value':
      return `v:${goJson(pe.value)}`;
    case 'index':
      return `i:${pe.index}`;
  }
}

/**
 * Reads a FieldsV1 key. Undefined for a well-formed key of a kind this version does not know
 * (`x:...`), which the real system skips so that newer writers do not break older readers.
 */
export function parsePathElement(text: string): PathElement | undefined {
  if (text.length > 2 && text[0] !== 'f' && text[1] === ':') {
    // Keys and values come back on every write of the object: each text is read once (elements are immutable).
    let element = parsedElements.get(text);
    if (element === undefined) {
      element = parseUncached(text);
      if (element === undefined) return undefined;
      if (parsedElements.size >= PARSED_ELEMENTS_KEPT) parsedElements.clear();
      parsedElements.set(text, element);
    }
    return element;
  }
  return parseUncached(text);
}

// Shared by parsing and by list items, so a key read from FieldsV1 and the item it names are one element.
const parsedElements = new Map<string, PathElement>();
const PARSED_ELEMENTS_KEPT = 10_000;

/**
 * The element of a list-map item whose key fields, sorted by name, are `sorted` and whose FieldsV1
 * key is `text` (which the caller wrote as `serializePathElement` would): one element per item
 * identity, so that lists indexed on every write allocate and serialize nothing new.
 */
export function internedKeyElement(text: string, sorted: readonly KeyField[]): PathElement {
  let element = parsedElements.get(text);
  if (element === undefined) {
    element = { kind: 'key', fields: sorted };
    serialized.set(element, text);
    if (parsedElements.size >= PARSED_ELEMENTS_KEPT) parsedElements.clear();
    parsedElements.set(text, element);
  }
  return element;
}

/** The element of a set item, shared like `internedKeyElement`'s. */
export function internedValueElement(value: JsonValue): PathElement {
  const text = `v:${goJson(value)}`;
  let element = parsedElements.get(text);
  if (element === undefined) {
    element = valueElement(value);
    serialized.set(element, text);
    if (parsedElements.size >= PARSED_ELEMENTS_KEPT) parsedElements.clear();
    parsedElements.set(text, element);
  }
  return element;
}

function parseUncached(text: string): PathElement | undefined {
  if (text.length < 2) throw new ManagedFieldsError(`path element ${JSON.stringify(text)}: must be at least 2 characters long`);
  if (text[1] !== ':') throw new ManagedFieldsError(`path element ${JSON.stringify(text)}: missing colon`);
  const body = text.slice(2);
  switch (text[0]) {
    case 'f':
      return fieldElement(body);
    case 'v':
      return valueElement(parseJson(text, body));
    case 'k': {
      const parsed = parseJson(text, body);
      if (!isJsonObject(parsed)) throw new ManagedFieldsError(`path element ${JSON.stringify(text)}: key must be a JSON object`);
      return keyElement(Object.keys(parsed).map((name) => ({ name, value: parsed[name] as JsonValue })));
    }
    case 'i': {
      if (!/^[+-]?\d+$/.test(body)) throw new ManagedFieldsError(`path element ${JSON.stringify(text)}: index must be an integer`);
      return indexElement(Number.parseInt(body, 10));
    }
    default:
      return undefined;
  }
}

function parseJson(text: string, body: string): JsonValue {
  try {
    return JSON.parse(body) as JsonValue;
  } catch {
    throw new ManagedFieldsError(`path element ${JSON.stringify(text)}: invalid JSON`);
  }
}

/** The path as apply conflicts print it: `.spec.containers[name="a"].ports[containerPort=80,protocol="TCP"]`. */
export function pathString(path: Path): string {
  return path.map(elementString).join('');
}

export function elementString(pe: PathElement): string {
  switch (pe.kind) {
    case 'field':
      return `.${pe.name}`;
    case 'key':
      return `[${pe.fields.map((f) => `${f.name}=${valueString(f.value)}`).join(',')}]`;
    case 'value':
      return `[=${valueString(pe.value)}]`;
    case 'index':
      return `[${pe.index}]`;
  }
}

// Go's %v of an unstructured value, strings quoted with %q (JSON quoting agrees for printable text).
function valueString(value: JsonValue): string {
  if (value === null) return 'null';
  if (typeof value === 'string') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(valueString).join(', ')}]`;
  if (isJsonObject(value)) {
    return `{${Object.keys(value)
      .sort(compareStrings)
      .map((k) => `${k}=${valueString(value[k] as JsonValue)}`)
      .join(', ')}}`;
  }
  return String(value);
}

/**
 * The real system's order of elements, which FieldsV1 keys are written in: fields, then keys, then
 * values, then indexes; names by code point, keys field by field, values by type then value.
 */
export function comparePathElements(a: PathElement, b: PathElement): number {
  const rank = ELEMENT_RANK[a.kind] - ELEMENT_RANK[b.kind];
  if (rank !== 0) return rank;
  if (a.kind === 'field' && b.kind === 'field') return compareStrings(a.name, b.name);
  if (a.kind === 'key' && b.kind === 'key') return compareKeyFields(a.fields, b.fields);
  if (a.kind === 'value' && b.kind === 'value') return compareValues(a.value, b.value);
  if (a.kind === 'index' && b.kind === 'index') return a.index - b.index;
  return 0;
}

const ELEMENT_RANK = { field: 0, key: 1, value: 2, index: 3 } as const;

function compareKeyFields(a: readonly KeyField[], b: readonly KeyField[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const x = a[i] as KeyField;
    const y = b[i] as KeyField;
    const byName = compareStrings(x.name, y.name);
    if (byName !== 0) return byName;
    const byValue = compareValues(x.value, y.value);
    if (byValue !== 0) return byValue;
  }
  return a.length - b.length;
}

/** Numbers, then strings, booleans, lists, maps and null last, as the real system orders values. */
export function compareValues(a: JsonValue, b: JsonValue): number {
  const rank = valueRank(a) - valueRank(b);
  if (rank !== 0) return rank;
  if (typeof a === 'number' && typeof b === 'number') return a < b ? -1 : a > b ? 1 : 0;
  if (typeof a === 'string' && typeof b === 'string') return compareStrings(a, b);
  if (typeof a === 'boolean' && typeof b === 'boolean') return Number(a) - Number(b);
  if (Array.isArray(a) && Array.isArray(b)) {
    for (let i = 0; i < Math.min(a.length, b.length); i++) {
      const c = compareValues(a[i] as JsonValue, b[i] as JsonValue);
      if (c !== 0) return c;
    }
    return a.length - b.length;
  }
  if (isJsonObject(a) && isJsonObject(b)) {
    const toFields = (o: typeof a): KeyField[] =>
      Object.keys(o)
        .sort(compareStrings)
        .map((name) => ({ name, value: o[name] as JsonValue }));
    return compareKeyFields(toFields(a), toFields(b));
  }
  return 0;
}

function valueRank(v: JsonValue): number {
  if (typeof v === 'number') return 0;
  if (typeof v === 'string') return 1;
  if (typeof v === 'boolean') return 2;
  if (Array.isArray(v)) return 3;
  if (v === null) return 5;
  return 4;
}

/** Byte order of the UTF-8 encodings, which is code point order (UTF-16 order differs above U+FFFF). */
export function compareStrings(a: string, b: string): number {
  if (a === b) return 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y) return codePointRank(x) - codePointRank(y);
  }
  return a.length - b.length;
}

// Surrogates (U+D800-DFFF) stand for code points above U+FFFF, so they rank after U+E000-FFFF.
function codePointRank(unit: number): number {
  if (unit >= 0xd800 && unit <= 0xdfff) return unit + 0x2000;
  return unit >= 0xe000 ? unit - 0x800 : unit;
}

/**
 * JSON as the real system's encoder writes it: object keys sorted, and `<`, `>`, `&`, U+2028 and
 * U+2029 escaped, so that key and value elements are byte-identical to its FieldsV1.
 */
export function goJson(value: JsonValue): string {
  if (Array.isArray(value)) return `[${value.map(goJson).join(',')}]`;
  if (isJsonObject(value)) {
    return `{${Object.keys(value)
      .sort(compareStrings)
      .map((k) => `${goJson(k)}:${goJson(value[k] as JsonValue)}`)
      .join(',')}}`;
  }
  const text = JSON.stringify(value);
  return GO_ESCAPED.test(text) ? text.replace(GO_ESCAPED_ALL, goEscape) : text;
}

const GO_ESCAPED = /[<>&\u2028\u2029]/;
const GO_ESCAPED_ALL = /[<>&\u2028\u2029]/g;

function goEscape(ch: string): string {
  return `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`;
}
