import { MAX_JSON_DEPTH, exceedsTextNesting } from '../json/index.js';
import { type DocumentOptions, type ParseOptions, type SchemaOptions, type ToStringOptions, parseAllDocuments, stringify } from 'yaml';

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
  const options: ParseOptions & DocumentOptions & SchemaOptions = { ...SCHEMA, uniqueKeys: true, prettyErrors: true };
  const docs = parseAllDocuments(text, options);
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
