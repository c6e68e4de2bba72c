import type { JsonApiObject } from '../../runtime/api/index.js';
import type { KindHook } from '../../runtime/server/index.js';

/**
 * `stringData`, a write-only convenience of secrets: its entries are merged into `data` (base64
 * of the UTF-8 text, replacing an entry of the same key) and the field is dropped, as upstream's
 * conversion of a v1 Secret does; it is never stored or returned.
 */
export function stringData(): KindHook {
  return { prepareWrite: mergeStringData };
}

export function mergeStringData(object: JsonApiObject): void {
  const text = object.stringData;
  if (text === undefined) return;
  delete object.stringData;
  if (text === null || typeof text !== 'object' || Array.isArray(text)) return;
  const data = { ...(object.data as Record<string, string> | undefined) };
  for (const [key, value] of Object.entries(text as Record<string, unknown>)) {
    if (typeof value === 'string') data[key] = Buffer.from(value, 'utf8').toString('base64');
  }
  object.data = data;
}
