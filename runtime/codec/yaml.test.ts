import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { decodeYaml, decodeYamlWithDuplicates, encodeYaml, isDuplicateKeyError, isYamlBodyError } from './index.js';

describe('YAML bodies', () => {
  it('writes block style in key order, with long strings on one line, and reads it back', () => {
    const doc = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'c', labels: { a: 'yes' } },
      data: { long: 'x'.repeat(200), port: '0777', empty: '' },
      list: [],
    };
    const text = encodeYaml(doc);
    expect(text.split('\n').slice(0, 5)).toEqual(['apiVersion: v1', 'kind: ConfigMap', 'metadata:', '  name: c', '  labels:']);
    expect(text).toContain(`long: ${'x'.repeat(200)}\n`);
    expect(decodeYaml(text)).toEqual(doc);
  });

  it('reads YAML 1.1 as the real system does: yes and on are booleans, 0777 is octal, dates stay strings', () => {
    expect(decodeYaml('a: yes\nb: off\nc: 0777\nd: 10\ne: 2024-01-02\nf: 2024-01-02T03:04:05Z')).toEqual({
      a: true,
      b: false,
      c: 511,
      d: 10,
      e: '2024-01-02',
      f: '2024-01-02T03:04:05Z',
    });
  });

  it('quotes strings that YAML 1.1 would read as something else', () => {
    expect(encodeYaml({ a: 'yes', b: 'on', c: '0777', d: '2024-01-02', e: 'plain' })).toBe(
      'a: "yes"\nb: "on"\nc: "0777"\nd: 2024-01-02\ne: plain\n',
    );
  });

  it('rejects several documents, duplicate keys and syntax errors with a position', () => {
    const error = (text: string): string => {
      try {
        decodeYaml(text);
      } catch (e) {
        if (isYamlBodyError(e)) return e.message;
        throw e;
      }
      return 'no error';
    };
    expect(error('a: 1\n---\nb: 2')).toContain('one document');
    expect(error('a: 1\na: 2')).toBe('invalid YAML: Map keys must be unique at line 2, column 1');
    expect(error('a: [1, 2')).toMatch(/^invalid YAML: /);
    expect(decodeYaml('')).toBeNull();
  });
});

describe('YAML bodies with many keys', () => {
  // The yaml package's unique-keys check asks isScalar of earlier keys for each key of a map.
  const require = createRequire(import.meta.url);
  const identity = require(join(dirname(require.resolve('yaml')), 'nodes/identity.js')) as { isScalar: (n: unknown) => boolean };
  const n = 2000;
  const text = Array.from({ length: n }, (_, i) => `key-${i}: v${i}\n`).join('');

  function isScalarCalls(run: () => void): number {
    const spy = vi.spyOn(identity, 'isScalar');
    try {
      run();
      return spy.mock.calls.length;
    } finally {
      spy.mockRestore();
    }
  }

  it('checks the keys of a 2,000-key map for duplicates in work linear in the keys', () => {
    let value: unknown;
    const calls = isScalarCalls(() => {
      value = decodeYaml(text);
    });
    expect(Object.keys(value as object)).toHaveLength(n);
    // A comparison with every earlier key made about n * n.
    expect(calls).toBeLessThan(20 * n);
  });

  it('still finds a key given twice at the end, at its line', () => {
    expect(() => decodeYaml(`${text}key-0: again\n`)).toThrow(`invalid YAML: Map keys must be unique at line ${n + 1}, column 1`);
  });
});

describe('YAML bodies with a key given twice', () => {
  it('are refused by decodeYaml with the error isDuplicateKeyError recognises, and no other error is', () => {
    let refusal: unknown;
    try {
      decodeYaml('a: 1\na: 2');
    } catch (e) {
      refusal = e;
    }
    expect(isDuplicateKeyError(refusal)).toBe(true);
    expect(isDuplicateKeyError(new Error('invalid YAML: Flow sequence in block collection must be sufficiently indented'))).toBe(false);
    expect(isDuplicateKeyError('keys must be unique')).toBe(false);
  });

  it('read tolerantly keep the last value and name each duplicate by its path', () => {
    const text = 'metadata:\n  name: a\n  name: b\nspec:\n  items:\n  - k: 1\n    k: 2\nspec: {x: 1}\n';
    expect(decodeYamlWithDuplicates(text)).toEqual({
      value: { metadata: { name: 'b' }, spec: { x: 1 } },
      duplicates: ['metadata.name', 'spec.items[0].k', 'spec'],
    });
  });

  it('read tolerantly use the YAML 1.1 settings of decodeYaml, or YAML 1.2 when asked', () => {
    const text = 'a: yes\na: on\nb: 0777\nc: 2024-01-02\n';
    expect(decodeYamlWithDuplicates(text)?.value).toEqual({ a: true, b: 511, c: '2024-01-02' });
    expect(decodeYamlWithDuplicates(text, false)?.value).toEqual({ a: 'on', b: 777, c: '2024-01-02' });
  });

  it('read tolerantly give nothing for several documents or another error', () => {
    expect(decodeYamlWithDuplicates('a: 1\na: 2\n---\nb: 1\n')).toBeUndefined();
    expect(decodeYamlWithDuplicates('a: 1\na: [2\n')).toBeUndefined();
  });
});
