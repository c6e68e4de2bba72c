import { describe, expect, it } from 'vitest';
import { Duration } from '../values.js';
import { evaluate } from '../evaluate.testing.js';

describe('list library', () => {
  it('indexOf and lastIndexOf', () => {
    expect(evaluate('[1, 2, 3, 2].indexOf(2)')).toBe(1n);
    expect(evaluate('[1, 2, 3, 2].lastIndexOf(2)')).toBe(3n);
    expect(evaluate("['a'].indexOf('b')")).toBe(-1n);
    expect(evaluate("['a'].lastIndexOf('b')")).toBe(-1n);
  });

  it('min and max', () => {
    expect(evaluate('[3, 1, 2].min()')).toBe(1n);
    expect(evaluate("['b', 'c', 'a'].max()")).toBe('c');
    expect(() => evaluate('[].min()')).toThrow(/min called on empty list/);
    expect(() => evaluate('l.max()', { l: [] })).toThrow(/max called on empty list/);
  });

  it('sum over numbers and durations', () => {
    expect(evaluate('[1, 2, 3].sum()')).toBe(6n);
    expect(evaluate('[1.5, 2.5].sum()')).toBe(4);
    expect(evaluate('[duration("1s"), duration("500ms")].sum() == duration("1.5s")')).toBe(true);
    expect(evaluate('l.sum()', { l: [] }, { l: 'list<int>' })).toBe(0n);
    expect(evaluate('l.sum()', { l: [] }, { l: 'list<google.protobuf.Duration>' })).toBeInstanceOf(Duration);
    expect(() => evaluate("['a'].sum()")).toThrow(/no matching overload/);
    expect(() => evaluate('[9223372036854775807, 1].sum()')).toThrow(/integer overflow/);
  });

  it('isSorted', () => {
    expect(evaluate('[1, 2, 2, 3].isSorted()')).toBe(true);
    expect(evaluate("['b', 'a'].isSorted()")).toBe(false);
    expect(evaluate('[].isSorted()')).toBe(true);
  });
});
