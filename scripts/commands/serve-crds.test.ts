import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { startReferenceServer } from '../../reference/index.js';
import { cliArgs } from './cli.testing.js';
import { crdsFromFlags } from './serve-crds.js';

/** `svckit serve --crds`: a folder of definitions applied through the API, served when the server is ready. */
const ROOT = new URL('../../', import.meta.url).pathname;

function crd(group: string, kind: string, plural: string, maximum = 10) {
  return `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: ${plural}.${group}
spec:
  group: ${group}
  scope: Namespaced
  names: {plural: ${plural}, kind: ${kind}}
  versions:
    - name: v1
      served: true
      storage: true
      schema:
        openAPIV3Schema:
          type: object
          properties:
            spec: {type: object, properties: {size: {type: integer, maximum: ${maximum}}}}
`;
}

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'svckit-crds-'));
  writeFileSync(
    join(dir, 'a.yaml'),
    `${crd('a.example.io', 'Apple', 'apples')}---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: skipped}\n`,
  );
  writeFileSync(join(dir, 'b.yml'), crd('b.example.io', 'Banana', 'bananas'));
  writeFileSync(join(dir, 'notes.txt'), 'not a manifest');
});

describe('svckit serve --crds', () => {
  it('reads every definition of a folder, skipping other manifests and files', async () => {
    const { crds } = await crdsFromFlags({ crds: [dir] });
    expect(crds?.map((c) => c.object.metadata?.name)).toEqual(['apples.a.example.io', 'bananas.b.example.io']);
  });

  it('serves them as soon as the server is ready (no waiting by the client)', async () => {
    const server = await startReferenceServer({ store: 'memory', ...(await crdsFromFlags({ crds: [dir] })) });
    try {
      for (const [group, plural] of [
        ['a.example.io', 'apples'],
        ['b.example.io', 'bananas'],
      ]) {
        const res = await fetch(`${server.url}/apis/${group}/v1/namespaces/default/${plural}`);
        expect(res.status).toBe(200);
        expect(((await res.json()) as { items: unknown[] }).items).toEqual([]);
      }
      const big = await fetch(`${server.url}/apis/a.example.io/v1/namespaces/default/apples`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ apiVersion: 'a.example.io/v1', kind: 'Apple', metadata: { name: 'x' }, spec: { size: 11 } }),
      });
      expect(big.status).toBe(422);
    } finally {
      await server.close();
    }
  });

  it('under --group-suffix k8s.io, installs them through apiextensions.k8s.io', async () => {
    const server = await startReferenceServer({ store: 'memory', groupSuffix: 'k8s.io', ...(await crdsFromFlags({ crds: [dir] })) });
    try {
      expect((await fetch(`${server.url}/apis/a.example.io/v1/namespaces/default/apples`)).status).toBe(200);
      const crd = await fetch(`${server.url}/apis/apiextensions.k8s.io/v1/customresourcedefinitions/apples.a.example.io`);
      expect(((await crd.json()) as { apiVersion: string }).apiVersion).toBe('apiextensions.k8s.io/v1');
    } finally {
      await server.close();
    }
  });

  it('stops the start with the server message for a definition it refuses', async () => {
    const bad = mkdtempSync(join(tmpdir(), 'svckit-crds-'));
    writeFileSync(join(bad, 'bad.yaml'), crd('nodot', 'Pear', 'pears'));
    await expect(startReferenceServer({ store: 'memory', port: 0, ...(await crdsFromFlags({ crds: [bad] })) })).rejects.toThrow(
      `--crds ${join(bad, 'bad.yaml')}: CustomResourceDefinition.apiextensions.svc.io "pears.nodot" is invalid: spec.group: Invalid value: "nodot": should be a domain with at least one dot`,
    );
  });

  it('stops the start for a default that does not fit its schema, naming the default', async () => {
    const bad = mkdtempSync(join(tmpdir(), 'svckit-crds-'));
    writeFileSync(join(bad, 'bad.yaml'), crd('c.example.io', 'Cherry', 'cherries').replace('maximum: 10}', 'maximum: 10, default: 11}'));
    await expect(startReferenceServer({ store: 'memory', port: 0, ...(await crdsFromFlags({ crds: [bad] })) })).rejects.toThrow(
      `--crds ${join(bad, 'bad.yaml')}: CustomResourceDefinition.apiextensions.svc.io "cherries.c.example.io" is invalid: spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[size].default: Invalid value: 11:  in body should be less than or equal to 10`,
    );
  });

  it('from the command line, a refused definition is one line naming its file and the reason, exit 2', () => {
    const bad = mkdtempSync(join(tmpdir(), 'svckit-crds-'));
    writeFileSync(join(bad, 'bad.yaml'), crd('nodot', 'Pear', 'pears'));
    const r = spawnSync(process.execPath, cliArgs('serve', '--store', 'memory', '--port', '0', '--crds', bad), {
      cwd: ROOT,
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(r.status).toBe(2);
    expect(r.stderr.trim().split('\n')).toEqual([
      `svckit serve: --crds ${join(bad, 'bad.yaml')}: CustomResourceDefinition.apiextensions.svc.io "pears.nodot" is invalid: spec.group: Invalid value: "nodot": should be a domain with at least one dot`,
    ]);
  });

  it('a missing folder is a usage error: exit 2, no stack trace', () => {
    const r = spawnSync(process.execPath, cliArgs('serve', '--store', 'memory', '--crds', join(dir, 'missing')), {
      cwd: ROOT,
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(r.status).toBe(2);
    expect(r.stderr).toContain(`--crds ${join(dir, 'missing')}: no such file or folder`);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });
});
