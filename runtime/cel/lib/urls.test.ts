import { describe, expect, it } from 'vitest';
import { evaluate } from '../evaluate.testing.js';

describe('URL library (Go url.ParseRequestURI semantics)', () => {
  it('isURL accepts absolute URIs and absolute paths only', () => {
    expect(evaluate("isURL('https://example.com:80/path?query=val#fragment')")).toBe(true);
    expect(evaluate("isURL('/absolute-path')")).toBe(true);
    expect(evaluate("isURL('../relative-path')")).toBe(false);
    expect(evaluate("isURL('example.com')")).toBe(false);
    expect(evaluate("isURL('https://exa mple.com/')")).toBe(false);
    expect(evaluate("isURL('https://example.com:8a/')")).toBe(false);
  });

  it('url fails on invalid input', () => {
    expect(() => evaluate("url('../x')")).toThrow(/URL parse error/);
    expect(evaluate("url('https://example.com') == url('https://example.com')")).toBe(true);
  });

  it('getScheme', () => {
    expect(evaluate("url('https://example.com/').getScheme()")).toBe('https');
    expect(evaluate("url('/path').getScheme()")).toBe('');
  });

  it('getHost and getHostname', () => {
    expect(evaluate("url('https://example.com:80/').getHost()")).toBe('example.com:80');
    expect(evaluate("url('https://[::1]:80/').getHost()")).toBe('[::1]:80');
    expect(evaluate("url('https://[::1]:80/').getHostname()")).toBe('::1');
    expect(evaluate("url('https://example.com:80/').getHostname()")).toBe('example.com');
    expect(evaluate("url('/path').getHost()")).toBe('');
  });

  it('getPort', () => {
    expect(evaluate("url('https://example.com:80/').getPort()")).toBe('80');
    expect(evaluate("url('https://example.com/').getPort()")).toBe('');
  });

  it('getEscapedPath', () => {
    expect(evaluate("url('https://example.com/path').getEscapedPath()")).toBe('/path');
    expect(evaluate("url('https://example.com/path with spaces/').getEscapedPath()")).toBe('/path%20with%20spaces/');
    expect(evaluate("url('https://example.com').getEscapedPath()")).toBe('');
  });

  it('getQuery', () => {
    const q = evaluate("url('https://example.com/path?k1=a&k2=b&k2=c').getQuery()");
    expect(q).toEqual(
      new Map([
        ['k1', ['a']],
        ['k2', ['b', 'c']],
      ]),
    );
    expect(evaluate("url('https://example.com/path?k1=a+b').getQuery()['k1'][0]")).toBe('a b');
    expect(evaluate("url('https://example.com/').getQuery().size()")).toBe(0n);
  });
});
