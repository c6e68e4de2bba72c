import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliArgs } from './cli.testing.js';

/**
 * A CRD whose rules use what real CRD sets use (has() on index and field selections, optional
 * literals, oldSelf transitions, size() sums, anchored matches(), quantity and url calls, with
 * messageExpression), through the three commands that load CRDs: codegen, validate and serve.
 */
const ROOT = new URL('../../', import.meta.url).pathname;
const CRD = join(ROOT, 'generator/testdata/crds/traffic.example.io_routepolicies.yaml');
const cache = mkdtempSync(join(tmpdir(), 'svckit-cache-'));
const env = { ...process.env, XDG_CACHE_HOME: cache };

function svckit(args: string[], cwd: string) {
  const r = spawnSync(process.execPath, cliArgs(...args), { cwd, encoding: 'utf8', timeout: 120_000, env });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

const VALID = {
  hostname: 'shop.example.com',
  tier: 'Standard',
  primaryBackend: 'web',
  endpoint: 'https://shop.example.com/api',
  resources: { request: '500Mi', limit: '1Gi' },
  rules: [{ matches: [{ path: '/a' }, { path: '/b' }], backend: 'web' }, { backend: 'web' }],
};

/** Each invalid spec breaks rules of its own; the messages each rule gives, by field. */
const INVALID: { spec: Record<string, unknown>; messages: string[] }[] = [
  {
    spec: {
      hostname: 'Shop_Example',
      tier: 'Standard',
      endpoint: 'http://shop.example.com',
      resources: { request: '2Gi', limit: '1Gi' },
      rules: [{ backend: 'web' }, { matches: Array.from({ length: 9 }, (_, i) => ({ path: `/${i}` })) }],
    },
    messages: [
      'spec.rules[1].matches: Too many: 9: must have at most 8 items',
      'spec: Invalid value: "object": at least one of primaryBackend or fallbackBackend is required',
      'spec: Invalid value: "object": at most 8 matches in all rules, found 9',
      'spec.hostname: Invalid value: "string": hostname Shop_Example must be a lowercase DNS name',
      'spec.endpoint: Invalid value: "string": endpoint must be an https URL, not http://shop.example.com',
      'spec.resources: Invalid value: "object": limit 1Gi is below the request 2Gi',
      'spec.rules: Invalid value: "array": the first rule needs matches when there are several rules',
    ],
  },
  {
    spec: { hostname: 'a.example.com', tier: 'Trial', primaryBackend: 'web', fallbackBackend: 'web', resources: { request: 'lots' } },
    messages: [
      'spec: Invalid value: "object": primaryBackend and fallbackBackend must differ',
      'spec.resources: Invalid value: "object": request and limit must be quantities',
    ],
  },
];

const doc = (name: string, spec: unknown) =>
  JSON.stringify({ apiVersion: 'traffic.example.io/v1', kind: 'RoutePolicy', metadata: { name, namespace: 'default' }, spec }, null, 2);

describe('a CRD with the rule constructs of real CRD sets', () => {
  it('codegen loads it and writes its kinds', () => {
    const out = mkdtempSync(join(tmpdir(), 'svckit-gen-'));
    const r = svckit(['codegen', '--schemas', CRD, '--out', out], ROOT);
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('1 group/versions, 2 kinds');
    expect(readFileSync(join(out, 'traffic.example.io/v1/types.ts'), 'utf8')).toContain('export interface RoutePolicy {');
    expect(existsSync(join(out, 'traffic.example.io/v1/schema.ts'))).toBe(true);
  });

  it('validate passes the valid object and gives each invalid one its rules’ messages at file:line', () => {
    const dir = mkdtempSync(join(tmpdir(), 'svckit-validate-'));
    // JSON documents in a YAML stream: line numbers are those of the spec key of each document.
    const text = [doc('ok', VALID), ...INVALID.map((x, i) => doc(`bad${i}`, x.spec))].join('\n---\n');
    writeFileSync(join(dir, 'policies.yaml'), `${text}\n`);
    const r = svckit(['validate', '--schemas', CRD, 'policies.yaml'], dir);
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(r.code).toBe(1);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines.at(-1)).toBe('3 documents: 1 valid, 2 invalid, 0 skipped');
    // Each finding names the line of its field inside the document it belongs to.
    const starts = text.split('\n').flatMap((l, i) => (i === 0 || l === '---' ? [i + 1] : []));
    const documentAt = (line: number) => starts.filter((s) => s <= line).length - 1;
    const found = lines.slice(0, -1).map((l) => {
      const m = /^policies\.yaml:(\d+):\d+: error: (.*)$/.exec(l);
      expect(m, l).not.toBeNull();
      return `${documentAt(Number(m![1]))}: ${m![2]}`;
    });
    expect(found.sort()).toEqual(INVALID.flatMap((x, i) => x.messages.map((m) => `${i + 1}: ${m}`)).sort());
  });

  it('refuses a CRD whose list markers break the structural rules in all three commands: one line with file and path, exit 1', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svckit-badcrd-'));
    const crd = readFileSync(CRD, 'utf8').replace(
      'rules:\n                  type: array\n                  maxItems: 16',
      'rules:\n                  type: array\n                  x-kubernetes-list-type: set\n                  maxItems: 16',
    );
    expect(crd).toContain('x-kubernetes-list-type: set');
    writeFileSync(join(dir, 'crd.yaml'), crd);
    writeFileSync(join(dir, 'doc.yaml'), doc('ok', VALID));
    const expected =
      'crd.yaml: .spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.rules.items.x-kubernetes-map-type: Invalid value: "null": must be atomic as item of a list with x-kubernetes-list-type=set';
    for (const args of [
      ['codegen', '--schemas', 'crd.yaml', '--out', 'out'],
      ['validate', '--schemas', 'crd.yaml', 'doc.yaml'],
      ['serve', '--port', '0', '--store', 'memory', '--schemas', 'crd.yaml'],
    ]) {
      const r = svckit(args, dir);
      expect(r.code, args[0]).toBe(1);
      expect(r.stderr, args[0]).toContain(`svckit ${args[0]}: ${expected}`);
      expect(r.stderr, args[0]).not.toMatch(/\n\s+at /);
    }
  });

  describe('serve --schemas', () => {
    let url = '';
    let child: ChildProcess;
    let stopped: Promise<number | null>;
    const collection = () => `${url}/apis/traffic.example.io/v1/namespaces/default/routepolicies`;
    const send = async (method: string, path: string, body: unknown) => {
      const res = await fetch(path, { method, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
      return {
        status: res.status,
        body: (await res.json()) as { message?: string; details?: { causes: { field: string; message: string }[] } },
      };
    };
    const object = (name: string, spec: unknown) => JSON.parse(doc(name, spec)) as Record<string, unknown>;

    beforeAll(async () => {
      child = spawn(process.execPath, cliArgs('serve', '--port', '0', '--store', 'memory', '--schemas', CRD), { cwd: ROOT, env });
      stopped = new Promise((resolve) => child.once('exit', resolve));
      url = await new Promise<string>((resolve, reject) => {
        createInterface({ input: child.stdout! }).once('line', (line) => {
          const m = /^listening on (http:\/\/\S+)$/.exec(line);
          if (m) resolve(m[1]!);
          else reject(new Error(`unexpected first line: ${line}`));
        });
        child.once('exit', (code) => reject(new Error(`svckit serve exited with ${code}`)));
      });
    }, 120_000);
    afterAll(async () => {
      child.kill('SIGTERM');
      expect(await stopped).toBe(0);
    });

    it('creates the valid object and answers each invalid one 422 with its rules’ messages', async () => {
      expect((await send('POST', collection(), object('ok', VALID))).status).toBe(201);
      for (const [i, x] of INVALID.entries()) {
        const res = await send('POST', collection(), object(`bad${i}`, x.spec));
        expect(res.status).toBe(422);
        const causes = res.body.details?.causes ?? [];
        expect(causes.map((c) => `${c.field}: ${c.message}`).sort()).toEqual([...x.messages].sort());
        expect((await fetch(`${collection()}/bad${i}`)).status).toBe(404);
      }
    });

    it('checks the oldSelf transition on update only, with its messageExpression', async () => {
      const trial = { ...VALID, tier: 'Trial' };
      expect((await send('POST', collection(), object('t', trial))).status).toBe(201);
      // Custom resources need the resourceVersion on update.
      const put = async (tier: string) => {
        const current = (await (await fetch(`${collection()}/t`)).json()) as { metadata: Record<string, unknown> };
        const body = object('t', { ...VALID, tier });
        return send('PUT', `${collection()}/t`, {
          ...body,
          metadata: { ...(body.metadata as object), resourceVersion: current.metadata.resourceVersion },
        });
      };
      expect((await put('Premium')).status).toBe(200);
      const down = await put('Standard');
      expect(down.status).toBe(422);
      expect(down.body.message).toContain('spec: Invalid value: "object": tier Premium cannot change to Standard (only Trial can)');
      expect(((await (await fetch(`${collection()}/t`)).json()) as { spec: { tier: string } }).spec.tier).toBe('Premium');
      expect((await send('POST', collection(), object('p', { ...VALID, tier: 'Premium' }))).status).toBe(201);
    });
  });
});
