/**
 * Property-based robustness of the running server (fast-check): generated requests of every kind
 * (valid bodies mutated at any path, wrong types, nulls, deep nesting, huge strings, duplicate
 * keys, invalid UTF-8, Protobuf envelopes of random bytes, patch documents of the four types,
 * random paths, query values and media types). Invariants: never a 5xx, never a crash, every error
 * is a Status object whose code is the HTTP status, and a rejected write changes nothing (the
 * store's revision is unchanged).
 *
 * The server runs as its own process (`svckit serve --store memory`), so a crash is seen as one.
 * Names are those fetch sends as they are: WHATWG URLs resolve `..` and `%2E%2E` before sending.
 *
 * FUZZ_RUNS sets the number of requests (default sized for CI, under a minute on two cores);
 * FUZZ_SEED=<n> replays a run, FUZZ_SEED=random explores. A longer run:
 *   FUZZ_RUNS=50000 FUZZ_SEED=random npx vitest run runtime/server/fuzz.test.ts
 */
import fc from 'fast-check';
import { type ChildProcess, spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliArgs } from '../../scripts/commands/cli.testing.js';

const RUNS = Number(process.env.FUZZ_RUNS ?? 10_000);
// A fixed seed by default, so CI is repeatable; FUZZ_SEED=random explores (and prints the seed of a failure).
const SEED = process.env.FUZZ_SEED === 'random' ? undefined : Number(process.env.FUZZ_SEED ?? 20_261_124);
const NS = 'fuzz';

interface Target {
  /** Collection path. */
  collection: string;
  sample: Record<string, unknown>;
  subresources: string[];
}

const TARGETS: Target[] = [
  {
    collection: `/api/v1/namespaces/${NS}/configmaps`,
    sample: { apiVersion: 'v1', kind: 'ConfigMap', data: { a: 'b' } },
    subresources: [],
  },
  {
    collection: `/api/v1/namespaces/${NS}/secrets`,
    sample: { apiVersion: 'v1', kind: 'Secret', type: 'Opaque', data: { p: 'c2VjcmV0' }, stringData: { q: 'x' } },
    subresources: [],
  },
  {
    collection: `/api/v1/namespaces/${NS}/pods`,
    sample: {
      apiVersion: 'v1',
      kind: 'Pod',
      spec: { containers: [{ name: 'c', image: 'nginx', ports: [{ containerPort: 80, protocol: 'TCP' }] }] },
    },
    subresources: ['status', 'eviction'],
  },
  {
    collection: `/api/v1/namespaces/${NS}/services`,
    sample: { apiVersion: 'v1', kind: 'Service', spec: { ports: [{ port: 80, protocol: 'TCP' }] } },
    subresources: ['status'],
  },
  { collection: '/api/v1/nodes', sample: { apiVersion: 'v1', kind: 'Node', spec: { unschedulable: true } }, subresources: ['status'] },
  { collection: '/api/v1/namespaces', sample: { apiVersion: 'v1', kind: 'Namespace' }, subresources: ['status', 'finalize'] },
  {
    collection: `/apis/batch/v1/namespaces/${NS}/cronjobs`,
    sample: {
      apiVersion: 'batch/v1',
      kind: 'CronJob',
      spec: {
        schedule: '* * * * *',
        jobTemplate: { spec: { template: { spec: { containers: [{ name: 'c', image: 'i' }], restartPolicy: 'Never' } } } },
      },
    },
    subresources: ['status'],
  },
  {
    collection: `/apis/stable.example.svc.io/v1/namespaces/${NS}/crontabs`,
    sample: { apiVersion: 'stable.example.svc.io/v1', kind: 'CronTab', spec: { cronSpec: '* * * * */5', image: 'i', replicas: 1 } },
    subresources: ['status'],
  },
  {
    collection: '/apis/flowcontrol.apiserver.svc.io/v1/prioritylevelconfigurations',
    sample: {
      apiVersion: 'flowcontrol.apiserver.svc.io/v1',
      kind: 'PriorityLevelConfiguration',
      spec: { type: 'Limited', limited: { nominalConcurrencyShares: 0, limitResponse: { type: 'Reject' } } },
    },
    subresources: ['status'],
  },
];

const CONTENT_TYPES = [
  'application/json',
  'application/yaml',
  'application/vnd.kubernetes.protobuf',
  'application/merge-patch+json',
  'application/json-patch+json',
  'application/strategic-merge-patch+json',
  'application/apply-patch+yaml',
  'text/plain',
  'application/json; charset=latin1',
  '',
];
const ACCEPTS = [
  'application/json',
  'application/yaml',
  'application/json;as=Table;v=v1;g=meta.k8s.io',
  'application/vnd.kubernetes.protobuf',
  '*/*',
  'text/html',
  'application/json;q=0, */*;q=0.1',
];

const name = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom('a', 'b', 'c') },
  { weight: 1, arbitrary: fc.string({ maxLength: 12 }).map(encodeURIComponent) },
  { weight: 1, arbitrary: fc.constantFrom('UPPER', '-a', 'a'.repeat(300), '%00', 'a%2Fb', 'é', 'a%20b') },
);

/** A path in a JSON value, for a mutation: object keys and list indexes. */
function paths(value: unknown, prefix: (string | number)[] = [], out: (string | number)[][] = []): (string | number)[][] {
  out.push(prefix);
  if (Array.isArray(value)) value.forEach((v, i) => paths(v, [...prefix, i], out));
  else if (value !== null && typeof value === 'object') for (const [k, v] of Object.entries(value)) paths(v, [...prefix, k], out);
  return out;
}

function setAt(root: unknown, path: (string | number)[], replacement: unknown): unknown {
  if (path.length === 0) return replacement;
  const copy: any = Array.isArray(root) ? [...root] : { ...(root as object) };
  const [head, ...rest] = path;
  copy[head!] = setAt(copy[head!], rest, replacement);
  return copy;
}

function nested(depth: number, leaf: string): string {
  return `${'{"a":'.repeat(depth)}${leaf}${'}'.repeat(depth)}`;
}

const oddValue = fc.oneof(
  fc.constant(null),
  fc.constantFrom('x', 5, -1, 1.5, true, false, [], {}, 2 ** 63, '\u0000'),
  fc.jsonValue({ maxDepth: 3 }),
  fc.string({ minLength: 1, maxLength: 4 }).map((s) => s.repeat(5_000)),
);

/** A body: text or bytes, for a target and its object name. */
function body(target: Target, objectName: string): fc.Arbitrary<string | Uint8Array> {
  const valid = { ...target.sample, metadata: { name: objectName, labels: { fuzz: 'yes' } } };
  const mutated = fc.constantFrom(...paths(valid)).chain((path) => oddValue.map((v) => JSON.stringify(setAt(valid, path, v))));
  const metadataOdd = oddValue.map((v) => JSON.stringify({ ...valid, metadata: v }));
  const generateName = oddValue.map((v) => JSON.stringify({ ...valid, metadata: { generateName: v } }));
  const duplicateKeys = fc.constantFrom(
    `{"apiVersion":"${String(target.sample.apiVersion)}","kind":"${String(target.sample.kind)}","metadata":{"name":"${objectName}","name":"other"}}`,
    `{"metadata":{"name":"${objectName}"},"metadata":{"labels":{"a":"b"}},"apiVersion":"${String(target.sample.apiVersion)}","kind":"${String(target.sample.kind)}"}`,
    `apiVersion: ${String(target.sample.apiVersion)}\nkind: ${String(target.sample.kind)}\nmetadata:\n  name: ${objectName}\n  name: again\n`,
  );
  const deep = fc.integer({ min: 100, max: 6000 }).map((d) => nested(d, '1'));
  const deepArray = fc
    .integer({ min: 100, max: 6000 })
    .map((d) => `{"metadata":{"name":"${objectName}"},"data":${'['.repeat(d)}${']'.repeat(d)}}`);
  const invalidUtf8 = fc
    .uint8Array({ minLength: 1, maxLength: 64 })
    .map((bytes) => new Uint8Array([...Buffer.from(`{"metadata":{"name":"`), 0xff, 0xfe, ...bytes, ...Buffer.from('"}}')]));
  const protobufEnvelope = fc.uint8Array({ maxLength: 200 }).map((bytes) => new Uint8Array([0x6b, 0x38, 0x73, 0x00, ...bytes]));
  const jsonPatch = fc
    .array(
      fc.record(
        {
          op: fc.constantFrom('add', 'remove', 'replace', 'move', 'copy', 'test', 'bogus'),
          path: fc.constantFrom('/metadata/name', '/metadata/namespace', '/spec', '/data/a', '/metadata/labels/x', '', '/-', '~', '/a/b/c'),
          value: oddValue,
          from: fc.constantFrom('/metadata', '/data', '/x'),
        },
        { requiredKeys: ['op'] },
      ),
      { maxLength: 4 },
    )
    .map((ops) => JSON.stringify(ops));
  const mergePatch = fc.oneof(
    oddValue.map((v) => JSON.stringify({ metadata: { name: v } })),
    oddValue.map((v) => JSON.stringify({ spec: v })),
    oddValue.map((v) => JSON.stringify({ metadata: { namespace: v } })),
    fc.constant(JSON.stringify({ $patch: 'delete' })),
    fc.constant(JSON.stringify({ spec: { containers: [{ name: 'c', $patch: 'replace' }] } })),
  );
  return fc.oneof(
    { weight: 3, arbitrary: fc.constant(JSON.stringify(valid)) },
    { weight: 4, arbitrary: mutated },
    { weight: 2, arbitrary: metadataOdd },
    { weight: 1, arbitrary: generateName },
    { weight: 1, arbitrary: duplicateKeys },
    { weight: 1, arbitrary: deep },
    { weight: 1, arbitrary: deepArray },
    { weight: 1, arbitrary: invalidUtf8 },
    { weight: 1, arbitrary: protobufEnvelope },
    { weight: 2, arbitrary: jsonPatch },
    { weight: 2, arbitrary: mergePatch },
    { weight: 1, arbitrary: fc.string({ maxLength: 40 }) },
  );
}

const query = fc.dictionary(
  fc.constantFrom(
    'resourceVersion',
    'resourceVersionMatch',
    'limit',
    'continue',
    'labelSelector',
    'fieldSelector',
    'dryRun',
    'fieldManager',
    'fieldValidation',
    'force',
    'propagationPolicy',
    'gracePeriodSeconds',
    'timeoutSeconds',
    'includeObject',
    'orphanDependents',
    'pretty',
    'x',
  ),
  fc.oneof(
    fc.constantFrom(
      '',
      '0',
      '1',
      '-1',
      'All',
      'NotOlderThan',
      'Exact',
      'Strict',
      'Warn',
      'true',
      'false',
      'Foreground',
      'a=b',
      'metadata.name=a',
      'spec.x=1',
      '!!',
      '99999999999999999999',
    ),
    fc.string({ maxLength: 10 }),
  ),
  { maxKeys: 3 },
);

interface Request {
  method: string;
  path: string;
  query: Record<string, string>;
  contentType: string;
  accept: string;
  body: string | Uint8Array | undefined;
}

const request: fc.Arbitrary<Request> = fc
  .record({
    target: fc.constantFrom(...TARGETS),
    objectName: name,
    method: fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE'),
    shape: fc.constantFrom('collection', 'object', 'subresource', 'odd'),
    sub: fc.nat(),
  })
  // Deleting a namespace goes on in the background (its reaper), which the revision check cannot tell from the request's own write.
  .filter(({ target, method }) => !(method === 'DELETE' && target.collection === '/api/v1/namespaces'))
  .chain(({ target, objectName, method, shape, sub }) => {
    const object = `${target.collection}/${objectName}`;
    const path =
      shape === 'collection'
        ? target.collection
        : shape === 'object'
          ? object
          : shape === 'subresource' && target.subresources.length > 0
            ? `${object}/${target.subresources[sub % target.subresources.length]}`
            : `${object}/${objectName}/x`;
    return fc.record({
      method: fc.constant(method),
      path: fc.oneof(
        { weight: 9, arbitrary: fc.constant(path) },
        {
          weight: 1,
          arbitrary: fc.constantFrom(
            '/api',
            '/apis/x',
            '/api/v1/namespaces/fuzz/unknowns',
            '/openapi/v3/apis/x',
            '//',
            '/api/v1/namespaces/%zz',
          ),
        },
      ),
      query,
      contentType: fc.constantFrom(...CONTENT_TYPES),
      accept: fc.constantFrom(...ACCEPTS),
      // fetch sends no body with GET; a DELETE may carry DeleteOptions.
      body:
        method === 'GET'
          ? fc.constant(undefined)
          : method === 'DELETE'
            ? fc.option(body(target, objectName), { freq: 4 }).map((b) => b ?? undefined)
            : body(target, objectName),
    });
  });

let server: { url: string; process: ChildProcess; stderr: string; exited?: number | null };
beforeAll(async () => {
  const child = spawn(process.execPath, cliArgs('serve', '--port', '0', '--store', 'memory'));
  const state: typeof server = { url: '', process: child, stderr: '' };
  child.stderr!.on('data', (d: Buffer) => (state.stderr += d.toString()));
  child.on('exit', (code) => (state.exited = code));
  state.url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /listening on (\S+)/.exec(out);
      if (m) resolve(m[1]!);
    });
    child.on('exit', () => reject(new Error(`svckit serve exited: ${state.stderr}`)));
  });
  server = state;
  await fetch(`${server.url}/api/v1/namespaces`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ metadata: { name: NS } }),
  });
}, 60_000);
afterAll(() => {
  server?.process.kill('SIGTERM');
});

/** The store's current revision, as the resourceVersion of a list. */
async function revision(): Promise<string> {
  const res = await fetch(`${server.url}/api/v1/namespaces?limit=1`);
  return ((await res.json()) as { metadata: { resourceVersion: string } }).metadata.resourceVersion;
}

async function send(r: Request): Promise<{ status: number; contentType: string; text: string }> {
  const query = new URLSearchParams(r.query).toString();
  const url = `${server.url}${r.path}${query ? `?${query}` : ''}`;
  const headers: Record<string, string> = { accept: r.accept };
  if (r.contentType) headers['content-type'] = r.contentType;
  const res = await fetch(url, {
    method: r.method,
    headers,
    ...(r.body !== undefined ? { body: r.body } : {}),
    signal: AbortSignal.timeout(20_000),
  });
  return { status: res.status, contentType: res.headers.get('content-type') ?? '', text: await res.text() };
}

function show(r: Request): string {
  const b = r.body === undefined ? '' : typeof r.body === 'string' ? r.body.slice(0, 300) : `<${r.body.length} bytes>`;
  return `${r.method} ${r.path}?${new URLSearchParams(r.query)} content-type=${r.contentType} accept=${r.accept} body=${b}`;
}

describe('the server under generated requests', () => {
  it(`never answers 5xx, answers errors with a Status, and a rejected write changes nothing (${RUNS} requests)`, {
    timeout: 600_000,
  }, async () => {
    await fc.assert(
      fc.asyncProperty(request, async (r) => {
        const before = await revision();
        let res: Awaited<ReturnType<typeof send>>;
        try {
          res = await send(r);
        } catch (e) {
          throw new Error(
            `no answer to ${show(r)}: ${(e as Error).message}; the server ${server.exited === undefined ? 'is running' : `exited with ${server.exited}`}\n${server.stderr.slice(-2000)}`,
          );
        }
        expect(res.status, `${show(r)}\n-> ${res.status} ${res.text.slice(0, 300)}`).toBeLessThan(500);
        if (res.status >= 400 && res.contentType.startsWith('application/json')) {
          const status = JSON.parse(res.text) as { kind?: string; code?: number };
          expect({ kind: status.kind, code: status.code }, `${show(r)}\n-> ${res.text.slice(0, 300)}`).toEqual({
            kind: 'Status',
            code: res.status,
          });
        }
        if (res.status >= 400 && r.method !== 'GET')
          expect(await revision(), `a rejected write changed the store: ${show(r)}\n-> ${res.status} ${res.text.slice(0, 300)}`).toBe(
            before,
          );
      }),
      { numRuns: RUNS, ...(SEED !== undefined ? { seed: SEED } : {}), endOnFailure: true },
    );
  });
});
