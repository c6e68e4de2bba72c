/**
 * JSON Merge Patch (RFC 7396): an object patch merges member by member, `null` removes a member,
 * and any other patch value replaces the target whole.
 */
import { PatchError } from './errors.js';
import { deleteOwn, getOwn, isJsonObject, setOwn, toOwnedJson, type JsonObject, type JsonValue } from '../json/index.js';

/** Applies `patch` to a copy of `doc` and returns the copy. Throws `PatchError` on non-JSON input. */
export function applyMergePatch(doc: unknown, patch: unknown): JsonValue {
  const ownedPatch = toOwnedJson(patch, (path, problem) => {
    throw new PatchError({ patchType: 'merge-patch', reason: 'malformed', path, detail: `the patch is not JSON: ${problem}` });
  });
  const ownedDoc = toOwnedJson(doc, (path, problem) => {
    throw new PatchError({ patchType: 'merge-patch', reason: 'not-applicable', path, detail: `the document is not JSON: ${problem}` });
  });
  return mergePatch(ownedDoc, ownedPatch);
}

/** The RFC's MergePatch(Target, Patch); both arguments are owned, `target` is reused. */
function mergePatch(target: JsonValue | undefined, patch: JsonValue): JsonValue {
  if (!isJsonObject(patch)) return patch;
  const result: JsonObject = isJsonObject(target) ? target : {};
  for (const key of Object.keys(patch)) {
    const value = patch[key] as JsonValue;
    if (value === null) deleteOwn(result, key);
    else setOwn(result, key, mergePatch(getOwn(result, key), value));
  }
  return result;
}
