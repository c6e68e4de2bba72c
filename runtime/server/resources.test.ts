import { describe, expect, it } from 'vitest';
import { allKinds } from '../../generated/kinds.js';
import { objectKey } from './objects.js';
import { ResourceRegistry, isRuntimeConfigError, parseRuntimeConfig, storagePrefixOf } from './resources.js';

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
    expect(beta.storagePrefix).toBe('/registry/flowschemas/');
  });

  it('keys objects as kube-apiserver lays out etcd', () => {
    const r = new ResourceRegistry(allKinds);
    const prefix = (group: string, resource: string) => r.get(group, 'v1', resource)?.storagePrefix;
    expect(prefix('', 'pods')).toBe('/registry/pods/');
    expect(prefix('batch', 'jobs')).toBe('/registry/jobs/');
    // upstream's SpecialDefaultResourcePrefixes
    expect(prefix('', 'nodes')).toBe('/registry/minions/');
    expect(prefix('', 'services')).toBe('/registry/services/specs/');
    expect(storagePrefixOf('', 'endpoints', false)).toBe('/registry/services/endpoints/');
    // a custom resource: group and plural, as the apiextensions server keys it
    expect(prefix('stable.example.svc.io', 'crontabs')).toBe('/registry/stable.example.svc.io/crontabs/');
    const pods = r.get('', 'v1', 'pods')!;
    expect(objectKey(pods, 'ns', 'p1')).toBe('/registry/pods/ns/p1');
    expect(objectKey(r.get('', 'v1', 'namespaces')!, undefined, 'ns')).toBe('/registry/namespaces/ns');
  });

  it('gives every served resource a prefix of its own: none is inside another', () => {
    const prefixes = [
      ...new Set(new ResourceRegistry(allKinds, { runtimeConfig: 'api/all=true' }).resources().map((s) => s.storagePrefix)),
    ];
    for (const a of prefixes) for (const b of prefixes) if (a !== b) expect(a.startsWith(b), `${a} inside ${b}`).toBe(false);
  });

  it('parses runtime-config as the real flag does', () => {
    expect([...parseRuntimeConfig('batch/v1beta1, v1=false,api/all=true')]).toEqual([
      ['batch/v1beta1', true],
      ['/v1', false],
      ['api/all', true],
    ]);
    expect(() => parseRuntimeConfig('batch/v1=maybe')).toThrow('must be true or false');
  });

  it('refuses runtime-config keys that name no known group, version or resource, and malformed entries', () => {
    const refused = (text: string): string => {
      try {
        parseRuntimeConfig(text, allKinds);
      } catch (e) {
        expect(isRuntimeConfigError(e), String(e)).toBe(true);
        return (e as Error).message;
      }
      throw new Error(`${text} was accepted`);
    };
    expect(refused('nosuch.svc.io/v1=true')).toMatch(/unknown API group "nosuch\.svc\.io"/);
    expect(refused('batch/v9')).toMatch(/batch\/v9: unknown version of group batch \(known: v1, v1beta1\)/);
    expect(refused('batch/v1/widgets=false')).toMatch(/batch\/v1\/widgets: batch\/v1 has no resource widgets/);
    expect(refused('api/v1/nope=false')).toMatch(/has no resource nope/);
    expect(refused('batch/v1=maybe')).toMatch(/batch\/v1=maybe: the value must be true or false/);
    expect(refused('=true')).toMatch(/a key is <group>\/<version>/);
    expect(refused('batch')).toMatch(/a key is <group>\/<version>/);
    expect(() => new ResourceRegistry(allKinds, { runtimeConfig: 'batch/v9=true' })).toThrow(/unknown version/);
    // Known keys of every shape pass.
    expect(
      parseRuntimeConfig(
        'v1=true,api/v1=true,api/v1/secrets=false,batch/v1beta1,storage.svc.io/v1beta1/csistoragecapacities=true,api/all=false,api/beta=true',
        allKinds,
      ).size,
    ).toBe(6);
  });

  it('enables or disables every version of a track with api/ga, api/beta and api/alpha; a named version wins', () => {
    const r = new ResourceRegistry(allKinds, { runtimeConfig: 'api/beta=true,flowcontrol.apiserver.svc.io/v1beta1=false' });
    expect(r.get('batch', 'v1beta1', 'cronjobs')).toBeDefined();
    expect(r.get('flowcontrol.apiserver.svc.io', 'v1beta2', 'flowschemas')).toBeDefined();
    expect(r.get('flowcontrol.apiserver.svc.io', 'v1beta1', 'flowschemas')).toBeUndefined();
    expect(r.get('batch', 'v1', 'cronjobs')).toBeDefined();
  });
});
