import { describe, expect, it } from 'vitest';
import { decodeYaml, encodeYaml, isYamlBodyError } from './index.js';

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
