import { MAX_JSON_DEPTH, exceedsTextNesting } from '../json/index.js';
import { fieldPath, itemPath } from './json-reader.js';
import {
  type Document,
  type DocumentOptions,
  LineCounter,
  type ParseOptions,
  type SchemaOptions,
  type ToStringOptions,
  YAMLParseError,
  isMap,
  isScalar,
  isSeq,
  type Node,
  parseAllDocuments,
  stringify,
} from 'yaml';

/**
 * `application/yaml` bodies with the real system's YAML 1.1 reading: `yes`, `no`, `on`, `off`
 * are booleans and `0777` is octal, while timestamps stay strings (as JSON has them). Output
 * quotes strings that YAML 1.1 would read otherwise (`"yes"`, `"0777"`), uses block style in the
 * object's key order, and never folds long strings.
 */
const SCHEMA: DocumentOptions & SchemaOptions = {
  version: '1.1',
  customTags: (tags) => tags.filter((t) => typeof t === 'string' || t.tag !== 'tag:yaml.org,2002:timestamp'),
};
const WRITE: ToStringOptions = { lineWidth: 0 };

export function encodeYaml(value: unknown): string {
  return stringify(value, { ...SCHEMA, ...WRITE, aliasDuplicateObjects: false });
}

/** A YAML body as a JSON value; throws YamlBodyError with the line and column of the problem. */
export function decodeYaml(text: string): unknown {
  if (exceedsTextNesting(text)) throw new YamlBodyError(`nested deeper than ${MAX_JSON_DEPTH} levels`);
  const lineCounter = new LineCounter();
  const options: ParseOptions & DocumentOptions & SchemaOptions = { ...SCHEMA, uniqueKeys: false, prettyErrors: true, lineCounter };
  const docs = parseAllDocuments(text, options);
  for (const doc of docs) addDuplicateKeyError(doc, lineCounter);
  if (docs.length > 1) throw new YamlBodyError('a YAML body holds one document; found several (separated by ---)');
  const doc = docs[0];
  if (!doc) return null;
  const error = doc.errors[0];
  if (error) {
    const at = error.linePos?.[0];
    throw new YamlBodyError(error.message.split('\n')[0]!.replace(/:$/, ''), at?.line, at?.col);
  }
  return doc.toJS({ maxAliasCount: 100 }) as unknown;
}

/** True for decodeYaml's refusal of a key given twice (the only error read again tolerantly). */
export function isDuplicateKeyError(e: unknown): boolean {
  return e instanceof Error && /keys must be unique/i.test(e.message);
}

/**
 * A YAML document read as the real system's YAML decoder reads one with a key given twice (the
 * last value wins), with the paths of the duplicate keys; undefined when it is not valid YAML for
 * another reason or holds several documents. Only for a text the strict reader refused for a
 * duplicate key, its depth checked. `yaml11` false reads YAML 1.2 (apply configurations).
 */
export function decodeYamlWithDuplicates(text: string, yaml11 = true): { value: unknown; duplicates: string[] } | undefined {
  const docs = parseAllDocuments(text, yaml11 ? { ...SCHEMA, uniqueKeys: false } : { uniqueKeys: false });
  if (!Array.isArray(docs) || docs.length !== 1) return undefined;
  const doc = docs[0]!;
  if (doc.errors.length > 0) return undefined;
  const duplicates = new Set<string>();
  const walk = (node: unknown, path: string): void => {
    if (isMap(node)) {
      const seen = new Set<string>();
      for (const pair of node.items) {
        const key = isScalar(pair.key) ? String(pair.key.value) : String(pair.key);
        const at = fieldPath(path, key);
        if (seen.has(key)) duplicates.add(at);
        seen.add(key);
        walk(pair.value, at);
      }
    } else if (isSeq(node)) node.items.forEach((item, i) => walk(item as Node, itemPath(path, i)));
  };
  walk(doc.contents, '');
  return { value: doc.toJS({ maxAliasCount: 100 }) as unknown, duplicates: [...duplicates] };
}

/**
 * The yaml package's `uniqueKeys` check, in linear time: the package compares each key with every
 * earlier key of its map (seconds for a map of 20,000 keys), so documents are parsed without it
 * and this adds its error (`Map keys must be unique`, at the first key given twice) among the
 * document's errors by position. `lineCounter` is the one the document was parsed with.
 */
export function addDuplicateKeyError(doc: Document.Parsed, lineCounter: LineCounter): void {
  const offset = firstDuplicateKey(doc.contents);
  if (offset === undefined) return;
  const error = new YAMLParseError([offset, offset + 1], 'DUPLICATE_KEY', 'Map keys must be unique');
  error.linePos = [lineCounter.linePos(offset), lineCounter.linePos(offset + 1)];
  // The first line of the package's pretty message; the code frame after it is left out.
  error.message += ` at line ${error.linePos[0].line}, column ${error.linePos[0].col}:`;
  const at = doc.errors.findIndex((e) => e.pos[0] > offset);
  doc.errors.splice(at < 0 ? doc.errors.length : at, 0, error);
}

/**
 * The offset of the first key equal to an earlier key of its map, in the package's order (a key,
 * then the value below it) and by its equality: the same node, or scalars of the same value.
 */
function firstDuplicateKey(node: unknown): number | undefined {
  if (isSeq(node)) {
    for (const item of node.items) {
      const found = firstDuplicateKey(item);
      if (found !== undefined) return found;
    }
  } else if (isMap(node)) {
    const seen = new Set<unknown>();
    for (const pair of node.items) {
      const found = firstDuplicateKey(pair.key);
      if (found !== undefined) return found;
      const key: unknown = pair.key;
      // NaN equals no key, as `===` has it (a Set would match it).
      const id = isScalar(key) ? key.value : key;
      if (!Number.isNaN(id) && seen.has(id)) return (key as { range?: readonly number[] }).range?.[0] ?? 0;
      seen.add(id);
      const inValue = firstDuplicateKey(pair.value);
      if (inValue !== undefined) return inValue;
    }
  }
  return undefined;
}

export class YamlBodyError extends Error {
  override readonly name = 'YamlBodyError';

  constructor(
    message: string,
    readonly line?: number,
    readonly column?: number,
  ) {
    super(`invalid YAML: ${message}`);
  }
}

export function isYamlBodyError(value: unknown): value is YamlBodyError {
  return value instanceof YamlBodyError;
}
