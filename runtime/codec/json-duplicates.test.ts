import { describe, expect, it } from 'vitest';
import { findDuplicateKeys } from './index.js';

describe('findDuplicateKeys', () => {
  it('finds none in ordinary JSON', () => {
    expect(findDuplicateKeys('{"a":1,"b":[{"a":2},{"a":3}],"c":{"d":"}{,:\\"["}}')).toEqual([]);
    expect(findDuplicateKeys('[]')).toEqual([]);
    expect(findDuplicateKeys(' "x" ')).toEqual([]);
  });

  it('names each duplicate with its path', () => {
    const text = '{"metadata":{"name":"a","name":"b"},"spec":{"containers":[{"name":"x","image":"i","image":"j"}]},"spec":{}}';
    expect(findDuplicateKeys(text)).toEqual(['metadata.name', 'spec.containers[0].image', 'spec']);
  });

  it('compares decoded keys, so escapes do not hide a duplicate', () => {
    expect(findDuplicateKeys('{"a":1,"\\u0061":2}')).toEqual(['a']);
  });

  it('handles whitespace everywhere', () => {
    expect(findDuplicateKeys('{ "a" : [ 1 , { "b" : true , "b" : null } ] , "c" : -1.5e3 }')).toEqual(['a[1].b']);
  });
});
