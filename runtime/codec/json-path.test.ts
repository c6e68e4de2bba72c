import { describe, expect, it } from 'vitest';
import { JsonPath, isJsonPathError } from './index.js';

const node = {
  metadata: { name: 'n1', labels: { 'app.svc.io/name': 'web' } },
  status: {
    conditions: [
      { type: 'MemoryPressure', status: 'False' },
      { type: 'Ready', status: 'True' },
    ],
    addresses: [
      { type: 'InternalIP', address: '10.0.0.1' },
      { type: 'Hostname', address: 'n1' },
    ],
    capacity: { cpu: '4', pods: 110 },
  },
};

describe('JsonPath', () => {
  const at = (path: string, value: unknown = node): unknown[] => new JsonPath(path).evaluate(value);

  it('selects fields, indices, slices and wildcards', () => {
    expect(at('.metadata.name')).toEqual(['n1']);
    expect(at('{.metadata.name}')).toEqual(['n1']);
    expect(at("$.metadata.labels['app.svc.io/name']")).toEqual(['web']);
    expect(at('.status.addresses[*].address')).toEqual(['10.0.0.1', 'n1']);
    expect(at('.status.addresses[-1].type')).toEqual(['Hostname']);
    expect(at('.status.addresses[0:1].type')).toEqual(['InternalIP']);
    expect(at('.status.capacity.*')).toEqual(['4', 110]);
    expect(at('..address')).toEqual(['10.0.0.1', 'n1']);
  });

  it('filters with comparisons and presence', () => {
    expect(at('.status.conditions[?(@.type=="Ready")].status')).toEqual(['True']);
    expect(at(".status.conditions[?(@.type != 'Ready')].type")).toEqual(['MemoryPressure']);
    expect(at('.items[?(@.n > 1)].n', { items: [{ n: 1 }, { n: 2 }, { m: 3 }] })).toEqual([2]);
    expect(at('.items[?(@.m)].m', { items: [{ n: 1 }, { m: 3 }] })).toEqual([3]);
  });

  it('yields nothing for missing keys and wrong shapes', () => {
    expect(at('.spec.replicas')).toEqual([]);
    expect(at('.metadata.name[0]')).toEqual([]);
    expect(at('.status.addresses[9]')).toEqual([]);
  });

  it('rejects what it cannot parse, naming the path', () => {
    let error: unknown;
    try {
      new JsonPath('.a[?(x)]');
    } catch (e) {
      error = e;
    }
    expect(isJsonPathError(error) && error.message).toBe('invalid JSONPath ".a[?(x)]": expected @, a string, a number or a boolean at 5');
  });
});
