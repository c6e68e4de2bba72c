import { describe, expect, it } from 'vitest';
import { isProtobufCodecError } from './index.js';
import { formatTimestamp, parseTimestamp } from './timestamp.js';

describe('RFC 3339 timestamps as Time {seconds, nanos}', () => {
  it('parses Go-accepted forms into seconds since the epoch and nanoseconds', () => {
    expect(parseTimestamp('1970-01-01T00:00:00Z')).toEqual({ seconds: 0, nanos: 0 });
    expect(parseTimestamp('2024-02-29T12:00:00.25Z')).toEqual({ seconds: 1709208000, nanos: 250_000_000 });
    expect(parseTimestamp('2024-02-29t14:30:00+02:30')).toEqual({ seconds: 1709208000, nanos: 0 });
    expect(parseTimestamp('0000-01-01T00:00:00Z').seconds).toBe(-62167219200);
    expect(parseTimestamp('9999-12-31T23:59:59.9999999999Z')).toEqual({ seconds: 253402300799, nanos: 999_999_999 });
  });

  it('formats canonical UTC text with the fewest of 0, 3, 6 or 9 fraction digits', () => {
    expect(formatTimestamp(0, 0)).toBe('1970-01-01T00:00:00Z');
    expect(formatTimestamp(-1, 500_000_000)).toBe('1969-12-31T23:59:59.500Z');
    expect(formatTimestamp(1709208000, 1000)).toBe('2024-02-29T12:00:00.000001Z');
    expect(formatTimestamp(1709208000, 1)).toBe('2024-02-29T12:00:00.000000001Z');
    expect(formatTimestamp(-62135596800, 0)).toBe('0001-01-01T00:00:00Z');
  });

  it('rejects what is not a valid RFC 3339 date and time', () => {
    for (const bad of [
      '2024-02-30T00:00:00Z',
      '2023-02-29T00:00:00Z',
      '2024-01-01 00:00:00Z',
      '2024-01-01T24:00:00Z',
      '2024-01-01T00:00:60Z',
      '2024-01-01T00:00:00',
      '0000-01-01T00:00:00+00:01',
    ]) {
      let error: unknown;
      try {
        parseTimestamp(bad);
      } catch (e) {
        error = e;
      }
      expect(isProtobufCodecError(error), bad).toBe(true);
    }
  });

  it('reads and writes the canonical form as Date does, for every day of 1970-2100 (the digit-by-digit path)', () => {
    for (let day = 0; day < 47482; day += 1) {
      const seconds = day * 86400 + ((day * 7919) % 86400);
      const text = `${new Date(seconds * 1000).toISOString().slice(0, 19)}Z`;
      expect(formatTimestamp(seconds, 0)).toBe(text);
      expect(parseTimestamp(text)).toEqual({ seconds, nanos: 0 });
    }
    // A repeated time reads back the same text; a fraction is never taken from the last one.
    expect(formatTimestamp(5, 0)).toBe('1970-01-01T00:00:05Z');
    expect(formatTimestamp(5, 0)).toBe('1970-01-01T00:00:05Z');
    expect(formatTimestamp(5, 1_000_000)).toBe('1970-01-01T00:00:05.001Z');
  });
});
