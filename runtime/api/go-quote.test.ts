import { describe, expect, it } from 'vitest';
import { goQuote } from './go-quote.js';

// Expected values are Go's strconv.Quote output.
describe('goQuote', () => {
  it.each([
    ['web', '"web"'],
    ['', '""'],
    ['say "hi"', '"say \\"hi\\""'],
    ['back\\slash', '"back\\\\slash"'],
    ['tab\tnew\nline\r', '"tab\\tnew\\nline\\r"'],
    ['\x07\b\f\v', '"\\a\\b\\f\\v"'],
    ['\x00\x1f\x7f', '"\\x00\\x1f\\x7f"'],
    ['\u0085', '"\\u0085"'],
    ['\u00a0', '"\\u00a0"'],
    ['\u200b', '"\\u200b"'],
    ['café ☕ 日本', '"café ☕ 日本"'],
    ['\u{1F600}', '"\u{1F600}"'],
    ['\u{E0001}', '"\\U000e0001"'],
  ])('%j', (input, expected) => {
    expect(goQuote(input)).toBe(expected);
  });
});
