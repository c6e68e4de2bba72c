import { describe, expect, it } from 'vitest';
import { ACCEPTED_PATCH_MEDIA_TYPES, PATCH_MEDIA_TYPES, acceptedPatchMediaTypes, patchTypeOf } from './index.js';

describe('patchTypeOf', () => {
  it.each([
    ['application/json-patch+json', 'json-patch'],
    ['application/merge-patch+json', 'merge-patch'],
    ['application/strategic-merge-patch+json', 'strategic-merge-patch'],
    ['application/apply-patch+yaml', 'apply-patch'],
    ['application/merge-patch+json; charset=utf-8', 'merge-patch'],
    ['  Application/JSON-Patch+JSON ;charset=UTF-8', 'json-patch'],
  ] as const)('%s selects %s', (contentType, type) => {
    expect(patchTypeOf(contentType)).toBe(type);
  });

  it.each([['application/json'], ['application/yaml'], ['application/apply-patch+json'], ['text/plain'], [''], [undefined], [null]])(
    '%s selects no patch type',
    (contentType) => {
      expect(patchTypeOf(contentType)).toBeUndefined();
    },
  );
});

describe('accepted patch media types', () => {
  it('lists all four for built-in kinds, in a stable order', () => {
    expect(ACCEPTED_PATCH_MEDIA_TYPES).toEqual([
      'application/json-patch+json',
      'application/merge-patch+json',
      'application/strategic-merge-patch+json',
      'application/apply-patch+yaml',
    ]);
    expect(acceptedPatchMediaTypes('built-in')).toEqual(ACCEPTED_PATCH_MEDIA_TYPES);
  });

  it('leaves strategic merge patch out for custom resources', () => {
    expect(acceptedPatchMediaTypes('custom-resource')).toEqual([
      PATCH_MEDIA_TYPES['json-patch'],
      PATCH_MEDIA_TYPES['merge-patch'],
      PATCH_MEDIA_TYPES['apply-patch'],
    ]);
  });

  it('every listed media type maps back to its patch type', () => {
    for (const [type, media] of Object.entries(PATCH_MEDIA_TYPES)) expect(patchTypeOf(media)).toBe(type);
  });
});
