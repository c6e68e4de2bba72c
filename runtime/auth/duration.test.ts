import { describe, expect, it } from 'vitest';
import { parseDuration } from './duration.js';

describe('parseDuration', () => {
  it.each([
    ['30s', 30_000],
    ['1m30s', 90_000],
    ['500ms', 500],
    ['2h', 7_200_000],
    ['1.5s', 1500],
    ['0', 0],
    ['0s', 0],
    ['100us', 0.1],
  ])('%s = %d ms', (text, ms) => expect(parseDuration(text)).toBe(ms));
  it.each(['', '30', 's', '5 minutes', '1d', '-1s', '1s '])('rejects %j', (text) =>
    expect(() => parseDuration(text)).toThrow(/invalid duration/),
  );
});
