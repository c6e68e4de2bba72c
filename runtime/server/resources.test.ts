import { describe, expect, it } from 'vitest';
import { allKinds } from '../../generated/kinds.js';
import { ResourceRegistry, parseRuntimeConfig } from './resources.js';

describe('served versions', () => {
  it('does not serve versions removed at or before the release, unless runtime-config enables them', () => {
    const r = new ResourceRegistry(allKinds);
    expect(r.get('batch', 'v1beta1', 'cronjobs')).toBeUndefined();
    expect(r.get('flowcontrol.apiserver.svc.io', 'v1beta2', 'flowschemas')).toBeUndefined();
    expect(r.get('flowcontrol.apiserver.svc.io', 'v1beta3', 'flowschemas')?.deprecationWarning).toContain(
      'deprecated in v1.29+, unavailable in v1.32+',
    );
    expect(r.get('batch', 'v1', 'cronjobs')?.deprecationWarning).toBeUndefined();

    const enabled = new ResourceRegistry(allKinds, { runtimeConfig: 'batch/v1beta1=true,api/v1/secrets=false' });
    expect(enabled.get('batch', 'v1beta1', 'cronjobs')?.storageVersion?.version).toBe('v1');
    expect(enabled.get('', 'v1', 'secrets')).toBeUndefined();
    expect(enabled.get('', 'v1', 'configmaps')).toBeDefined();
  });

  it('stores every version of a resource in its storage version', () => {
    const r = new ResourceRegistry(allKinds, { release: '1.25' });
    const beta = r.get('flowcontrol.apiserver.svc.io', 'v1beta2', 'flowschemas')!;
    expect(beta.storageVersion?.version).toBe('v1');
    expect(beta.storagePrefix).toBe('/flowcontrol.apiserver.svc.io/flowschemas/');
  });

  it('parses runtime-config as the real flag does', () => {
    expect([...parseRuntimeConfig('batch/v1beta1, v1=false,api/all=true')]).toEqual([
      ['batch/v1beta1', true],
      ['/v1', false],
      ['api/all', true],
    ]);
    expect(() => parseRuntimeConfig('batch/v1=maybe')).toThrow('must be true or false');
  });
});
