/**
 * The four patch types and the media types that select them on PATCH (spec: "Headers and media
 * types"). Apply is listed here so the server can route it; its engine lives in `runtime/apply`.
 */

export type PatchType = 'json-patch' | 'merge-patch' | 'strategic-merge-patch' | 'apply-patch';

/** The `Content-Type` of each patch type. */
export const PATCH_MEDIA_TYPES: Readonly<Record<PatchType, string>> = Object.freeze({
  'json-patch': 'application/json-patch+json',
  'merge-patch': 'application/merge-patch+json',
  'strategic-merge-patch': 'application/strategic-merge-patch+json',
  'apply-patch': 'application/apply-patch+yaml',
});

/** Every patch media type, for the 415 answer on built-in kinds. */
export const ACCEPTED_PATCH_MEDIA_TYPES: readonly string[] = Object.freeze(Object.values(PATCH_MEDIA_TYPES));

/**
 * The patch media types a resource accepts. Strategic merge patch needs the legacy merge markers of
 * built-in kinds, so custom resources never take it (the server answers 415 with this list).
 */
export function acceptedPatchMediaTypes(resource: 'built-in' | 'custom-resource'): readonly string[] {
  if (resource === 'built-in') return ACCEPTED_PATCH_MEDIA_TYPES;
  return ACCEPTED_PATCH_MEDIA_TYPES.filter((t) => t !== PATCH_MEDIA_TYPES['strategic-merge-patch']);
}

const PATCH_TYPE_BY_MEDIA_TYPE = new Map<string, PatchType>(
  (Object.entries(PATCH_MEDIA_TYPES) as [PatchType, string][]).map(([type, media]) => [media, type]),
);

/**
 * The patch type a `Content-Type` selects, or undefined when it selects none. Parameters such as
 * `; charset=utf-8` are ignored and media types compare case-insensitively (RFC 9110).
 */
export function patchTypeOf(contentType: string | null | undefined): PatchType | undefined {
  if (typeof contentType !== 'string') return undefined;
  const essence = (contentType.split(';')[0] ?? '').trim().toLowerCase();
  return PATCH_TYPE_BY_MEDIA_TYPE.get(essence);
}
