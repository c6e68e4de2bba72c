import { type JsonValue, escapePointerToken, isJsonObject, jsonEqual } from '../json/index.js';
import type { JsonPatchOperation } from './json-patch.js';

/**
 * The JSON Patch (RFC 6902) that turns `from` into `to`: objects are compared key by key, lists
 * element by element (a changed length replaces the tail), anything else is replaced whole. Applying
 * the result to `from` with `applyJsonPatch` gives a value equal to `to`.
 */
export function jsonPatchDiff(from: unknown, to: unknown): JsonPatchOperation[] {
  const ops: JsonPatchOperation[] = [];
  diffAt('', from, to, ops);
  return ops;
}

function diffAt(path: string, from: unknown, to: unknown, ops: JsonPatchOperation[]): void {
  if (jsonEqual(from as JsonValue, to as JsonValue)) return;
  if (isJsonObject(from) && isJsonObject(to)) {
    for (const key of Object.keys(from)) {
      if (!Object.hasOwn(to, key)) ops.push({ op: 'remove', path: `${path}/${escapePointerToken(key)}` });
    }
    for (const [key, value] of Object.entries(to)) {
      const at = `${path}/${escapePointerToken(key)}`;
      if (Object.hasOwn(from, key)) diffAt(at, from[key], value, ops);
      else ops.push({ op: 'add', path: at, value });
    }
    return;
  }
  if (Array.isArray(from) && Array.isArray(to)) {
    const common = Math.min(from.length, to.length);
    for (let i = 0; i < common; i++) diffAt(`${path}/${i}`, from[i], to[i], ops);
    // Removed from the end backwards, so each index is still valid when its operation runs.
    for (let i = from.length - 1; i >= common; i--) ops.push({ op: 'remove', path: `${path}/${i}` });
    for (let i = common; i < to.length; i++) ops.push({ op: 'add', path: `${path}/-`, value: to[i] });
    return;
  }
  ops.push({ op: 'replace', path, value: to });
}
