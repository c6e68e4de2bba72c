import { LineCounter, parseDocument } from 'yaml';
import { badRequest } from '../api/index.js';
import { addDuplicateKeyError, decodeYamlWithDuplicates, findDuplicateKeys, isDuplicateKeyError } from '../codec/index.js';
import { checkYamlDepth } from './object-shape.js';

/** A decoded apply configuration and the paths of the keys it gives twice. */
export interface ApplyConfiguration {
  value: unknown;
  duplicates: readonly string[];
}

/**
 * An apply configuration (`application/apply-patch+yaml`, JSON accepted as YAML). A key given
 * twice keeps its last value, as upstream's YAML decoder; the caller's fieldValidation decides
 * whether that is refused or warned about. 400 when it is neither YAML nor JSON.
 */
export function decodeApplyConfiguration(text: string): ApplyConfiguration {
  checkYamlDepth(text, 'the apply configuration');
  const json = jsonWithoutDuplicates(text);
  if (json !== undefined) return { value: json.value, duplicates: [] };
  try {
    return { value: parseYaml(text), duplicates: [] };
  } catch (e) {
    const decoded = isDuplicateKeyError(e) ? decodeYamlWithDuplicates(text, false) : undefined;
    if (!decoded) throw badRequest(`the apply configuration is not valid YAML or JSON: ${(e as Error).message.split('\n')[0]}`);
    return decoded;
  }
}

/**
 * JSON text without duplicate keys, read by the platform's parser: what clients such as kubectl
 * send, and a JSON text means the same as YAML (YAML 1.2 being a superset of JSON), tens of times
 * faster to read. Undefined for anything else, which the YAML reader then reads.
 */
function jsonWithoutDuplicates(text: string): { value: unknown } | undefined {
  if (!/^\s*[{[]/.test(text)) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  return findDuplicateKeys(text).length === 0 ? { value } : undefined;
}

/** The yaml package's `parse` with unique keys, its duplicate check done in linear time. */
function parseYaml(text: string): unknown {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { uniqueKeys: false, lineCounter });
  addDuplicateKeyError(doc, lineCounter);
  if (doc.errors.length > 0) throw doc.errors[0];
  return doc.toJS();
}
