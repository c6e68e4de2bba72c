/**
 * The patch engines: JSON Patch (RFC 6902), JSON Merge Patch (RFC 7396) and strategic merge
 * patch, plus the media types that select them. Every engine copies its inputs, never mutates
 * them, and throws `PatchError` leaving the document untouched. Server-side apply lives in
 * `runtime/apply`.
 */
export { applyJsonPatch, type JsonPatchOperation } from './json-patch.js';
export { jsonPatchDiff } from './json-patch-diff.js';
export { applyMergePatch } from './merge-patch.js';
export { applyStrategicMergePatch } from './strategic-merge-patch.js';
export { PatchError, isPatchError, type PatchErrorInit, type PatchErrorReason } from './errors.js';
export {
  ACCEPTED_PATCH_MEDIA_TYPES,
  PATCH_MEDIA_TYPES,
  acceptedPatchMediaTypes,
  patchTypeOf,
  type PatchType,
} from './patch-type.js';
export type { JsonObject, JsonPrimitive, JsonValue } from '../json/index.js';
export { hasLegacyMarker, listMarkersOf, type ListMarkers, type MergeKey } from './merge-markers.js';
