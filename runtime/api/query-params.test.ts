import { describe, expect, it } from 'vitest';
import { parseGoBool, parseQuery, queryBool, queryInt64 } from './query-params.js';

const q = (raw: string) => parseQuery(raw);

describe('queryBool: upstream Convert_Slice_string_To_bool', () => {
  it.each([
    ['watch=true', true],
    ['watch=True', true],
    ['watch=TRUE', true],
    ['watch=1', true],
    ['watch=yes', true],
    ['watch=', true],
    ['watch', true],
    ['watch=false', false],
    ['watch=False', false],
    ['watch=FALSE', false],
    ['watch=fAlSe', false],
    ['watch=fal%C5%BFe', false], // Go's EqualFold folds ſ to s
    ['watch=0', false],
    ['watch=00', true],
    ['watch=off', true],
    ['watch=no', true],
  ])('%s is %s', (raw, expected) => {
    expect(queryBool(q(raw), 'watch')).toBe(expected);
  });

  it('absent is undefined; the first of repeated values counts', () => {
    expect(queryBool(q('other=1'), 'watch')).toBeUndefined();
    expect(queryBool(q('watch=false&watch=true'), 'watch')).toBe(false);
    expect(queryBool(q('watch=1&watch=0'), 'watch')).toBe(true);
  });
});

describe('queryInt64: strconv.ParseInt(v, 10, 64)', () => {
  it.each([
    ['5', 5],
    ['+5', 5],
    ['-1', -1],
    ['007', 7],
    ['-9223372036854775808', -(2 ** 63)],
  ])('%s is %d', (v, n) => {
    expect(queryInt64(q(`limit=${encodeURIComponent(v)}`), 'limit')).toBe(n);
  });

  it.each([
    ['1.5', 'invalid syntax'],
    ['', 'invalid syntax'],
    ['1_000', 'invalid syntax'],
    [' 1', 'invalid syntax'],
    ['0x10', 'invalid syntax'],
    ['1e3', 'invalid syntax'],
    ['9223372036854775808', 'value out of range'],
  ])("%j is a 400 with Go's error", (v, problem) => {
    expect(() => queryInt64(q(`limit=${encodeURIComponent(v)}`), 'limit')).toThrow(
      expect.objectContaining({ code: 400, message: `strconv.ParseInt: parsing ${JSON.stringify(v)}: ${problem}` }),
    );
  });

  it('absent is undefined; the first value counts', () => {
    expect(queryInt64(q(''), 'limit')).toBeUndefined();
    expect(queryInt64(q('limit=2&limit=x'), 'limit')).toBe(2);
  });
});

describe("parseQuery: Go's url.ParseQuery", () => {
  it('decodes + as a space and percent-escapes', () => {
    expect(q('labelSelector=a+in+(x%2Cy)').get('labelSelector')).toBe('a in (x,y)');
  });

  it('drops a pair with a semicolon or a malformed escape, and keeps the rest', () => {
    const p = q('a=1;b=2&watch=%zz&limit=3&c%=4&&d');
    expect([...p]).toEqual([
      ['limit', '3'],
      ['d', ''],
    ]);
  });

  it('invalid UTF-8 reads as U+FFFD rather than failing', () => {
    expect(q('x=%FF').get('x')).toBe('\uFFFD');
  });
});

describe('parseGoBool: strconv.ParseBool', () => {
  it('knows exactly its twelve spellings', () => {
    for (const v of ['1', 't', 'T', 'TRUE', 'true', 'True']) expect(parseGoBool(v)).toBe(true);
    for (const v of ['0', 'f', 'F', 'FALSE', 'false', 'False']) expect(parseGoBool(v)).toBe(false);
    for (const v of ['', 'yes', 'tRUE', 'on']) expect(parseGoBool(v)).toBeUndefined();
  });
});
