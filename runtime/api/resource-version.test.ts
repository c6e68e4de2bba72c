import { describe, expect, it } from 'vitest';
import { InvalidResourceVersionError, formatResourceVersion, isInvalidResourceVersionError, parseResourceVersion } from './index.js';

describe('parseResourceVersion', () => {
  it.each<[string, number]>([
    ['0', 0],
    ['1', 1],
    ['42', 42],
    ['007', 7],
    ['9007199254740991', Number.MAX_SAFE_INTEGER],
  ])('%j is revision %d', (text, revision) => {
    expect(parseResourceVersion(text)).toBe(revision);
  });

  it.each(['', ' 1', '1 ', '-1', '+1', '1.5', '1e3', '0x10', 'abc', '１', '9007199254740992', '99999999999999999999'])(
    'rejects %j',
    (text) => {
      expect(() => parseResourceVersion(text)).toThrow(InvalidResourceVersionError);
    },
  );

  it('says what was wrong, where it came from and what is accepted', () => {
    let error: unknown;
    try {
      parseResourceVersion('abc', 'metadata.resourceVersion');
    } catch (e) {
      error = e;
    }
    expect(isInvalidResourceVersionError(error)).toBe(true);
    if (!isInvalidResourceVersionError(error)) return;
    expect(error.name).toBe('InvalidResourceVersionError');
    expect(error.field).toBe('metadata.resourceVersion');
    expect(error.value).toBe('abc');
    expect(error.message).toBe(
      'metadata.resourceVersion: Invalid value: "abc": must be a decimal number (digits only, no sign), as returned in metadata.resourceVersion',
    );
    const status = error.toStatusError();
    expect(status.code).toBe(400);
    expect(status.reason).toBe('BadRequest');
    expect(status.message).toBe(error.message);
    expect(() => parseResourceVersion('9007199254740992')).toThrow(/must be at most 9007199254740991/);
  });

  it('formats revisions back', () => {
    expect(formatResourceVersion(0)).toBe('0');
    expect(formatResourceVersion(123)).toBe('123');
    expect(() => formatResourceVersion(-1)).toThrow(RangeError);
    expect(() => formatResourceVersion(1.5)).toThrow(RangeError);
  });
});
