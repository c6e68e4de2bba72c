/**
 * The code cache that generated kinds are imported from is never where another user could write
 * (security audit, finding 8): made 0700, refused when another user could have planted code in it,
 * never the shared temp folder's top level, and what goes unused is removed.
 */
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { CACHE_MAX_AGE_MS, codeCache, definitionKinds, removeUnused } from './compile.js';

let dir: string;
const xdg = process.env.XDG_CACHE_HOME;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'svckit-code-cache-'));
});
afterEach(() => {
  if (xdg === undefined) delete process.env.XDG_CACHE_HOME;
  else process.env.XDG_CACHE_HOME = xdg;
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

const modeOf = (path: string) => statSync(path).mode & 0o777;

const widgets = {
  apiVersion: 'apiextensions.svc.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'widgets.cache.example.com' },
  spec: {
    group: 'cache.example.com',
    scope: 'Namespaced',
    names: { plural: 'widgets', singular: 'widget', kind: 'Widget' },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        schema: {
          openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { size: { type: 'integer' } } } } },
        },
      },
    ],
  },
};

describe('the code cache', () => {
  it('is made 0700, and the code compiled for a definition is imported from it', async () => {
    process.env.XDG_CACHE_HOME = join(dir, 'fresh');
    const { kinds } = await definitionKinds(widgets);
    expect(kinds.map((k) => k.kind)).toContain('Widget');
    const root = join(dir, 'fresh', 'svckit');
    expect(modeOf(root)).toBe(0o700);
    expect(modeOf(join(root, 'kinds'))).toBe(0o700);
    expect(modeOf(join(root, 'definitions'))).toBe(0o700);
  }, 60_000);

  it('refuses a svckit folder that other users may write, before generating or importing anything', async () => {
    process.env.XDG_CACHE_HOME = join(dir, 'planted');
    const root = join(dir, 'planted', 'svckit');
    mkdirSync(root, { recursive: true });
    chmodSync(root, 0o777);
    await expect(definitionKinds(widgets)).rejects.toThrow(`${root} may be written by other users (mode 0777); svckit refuses to use it`);
    expect(readdirSync(root)).toEqual([]);
  });

  it('without a home, is a private folder of this process in the temp folder, not the temp folder itself', () => {
    const cache = codeCache({}, '');
    expect(cache.startsWith(join(tmpdir(), 'svckit-cache-'))).toBe(true);
    expect(modeOf(cache)).toBe(0o700);
    expect(codeCache({ XDG_CACHE_HOME: 'relative' }, '')).toBe(cache);
  });

  it('loses what went unused for the maximum age; what is in use stays', () => {
    const root = join(dir, 'aging');
    for (const name of ['kinds/old', 'kinds/recent', 'definitions']) mkdirSync(join(root, name), { recursive: true });
    writeFileSync(join(root, 'definitions', 'old.yaml'), '{}');
    const long = new Date(Date.now() - CACHE_MAX_AGE_MS - 60_000);
    utimesSync(join(root, 'kinds', 'old'), long, long);
    utimesSync(join(root, 'definitions', 'old.yaml'), long, long);
    removeUnused(root, CACHE_MAX_AGE_MS);
    expect(existsSync(join(root, 'kinds', 'old'))).toBe(false);
    expect(existsSync(join(root, 'definitions', 'old.yaml'))).toBe(false);
    expect(existsSync(join(root, 'kinds', 'recent'))).toBe(true);
  });
});
