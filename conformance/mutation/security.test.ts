import { describe, expect, it } from 'vitest';
import { warningProblem } from '../scenarios/security/hostile-input.js';
import { resolveDotSegments, SECURITY_MUTATIONS } from './security.js';
import type { ProxiedResponse } from './types.js';

describe('the security mutations', () => {
  it('resolve dot segments as a normalising client would, %2E included', () => {
    expect(resolveDotSegments('/api/v1/namespaces/ns/configmaps/.')).toBe('/api/v1/namespaces/ns/configmaps');
    expect(resolveDotSegments('/api/v1/namespaces/ns/configmaps/%2E%2e')).toBe('/api/v1/namespaces/ns');
    expect(resolveDotSegments('/api/v1/namespaces/..')).toBe('/api/v1');
    expect(resolveDotSegments('/api/v1/namespaces/ns/configmaps/a.b')).toBe('/api/v1/namespaces/ns/configmaps/a.b');
  });

  it('write a Warning field name raw, which the scenario judges invalid', async () => {
    const m = SECURITY_MUTATIONS.find((x) => x.id === 'warning-text-raw');
    const utf8 = (s: string) => Buffer.from(s, 'utf8').toString('latin1');
    const r: ProxiedResponse = {
      status: 201,
      headers: {
        warning: [utf8('299 - "unknown field \\"☃\\""'), '299 - "unknown field \\"\\\\x01\\""', '299 - "unknown field \\"ok\\""'],
      },
      body: Buffer.from('{}'),
    };
    const out = await m?.response?.(r, {
      request: { method: 'POST', path: '/', query: new URLSearchParams(), headers: {}, body: Buffer.alloc(0) },
      upstream: () => Promise.resolve(r),
    });
    expect(out?.headers.warning).toEqual([
      '299 - "unknown field \\"\u0003\\""',
      '299 - "unknown field \\"\u0001\\""',
      '299 - "unknown field \\"ok\\""',
    ]);
    for (const w of r.headers.warning ?? []) expect(warningProblem(w)).toBeUndefined();
    for (const w of (out?.headers.warning ?? []).slice(0, 2)) expect(warningProblem(w)).toMatch(/control character/);
    expect(warningProblem(Buffer.from([0x32, 0x39, 0x39, 0x20, 0x2d, 0x20, 0x22, 0xe9, 0x22]).toString('latin1'))).toMatch(/not UTF-8/);
  });
});
