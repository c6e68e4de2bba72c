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
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliArgs } from '../../scripts/commands/cli.testing.js';
import { selfSignedCertificate, serveWebhook } from '../webhook/index.js';

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
  // Deleting a namespace goes on in the background (its reaper), and so does filling a created one
  // (its default ServiceAccount; an apply may create one too): the revision check cannot tell that
  // from the request's own write.
  .filter(({ target, method }) => !(['DELETE', 'POST', 'PATCH'].includes(method) && target.collection === '/api/v1/namespaces'))
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
  // The serviceaccounts controller fills the namespace in the background: wait for it before counting revisions.
  while ((await fetch(`${server.url}/api/v1/namespaces/${NS}/serviceaccounts/default`)).status !== 200);
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

// ---------------------------------------------------------------------------------------------
// Hostile text (the security audit's class of crash): text outside Latin-1, control characters,
// unpaired surrogates, invalid UTF-8 and very long text, in every place a request carries text
// (field names and values, header names and values, query names and values, path segments), in an
// admission webhook's answers and in a CustomResourceDefinition's fields. Each request is written
// on a raw socket, byte for byte, so no client cleans it first. Invariants: the process lives, and
// every answer is a parsable HTTP response below 500 whose errors are Status objects and whose
// Warning headers are UTF-8 without control characters.

const HOSTILE_RUNS = Number(process.env.FUZZ_HOSTILE_RUNS ?? 1_500);

const hostileText = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.constantFrom(
      '☃',
      '中文',
      '\u0001',
      'a\nb',
      '\r\n',
      '\u0000',
      '\u007f',
      '\u0085',
      '\ud800',
      '\udfff',
      '"\\',
      '\u2028',
      'é',
      '\ufeff',
      '%',
      '%ZZ',
      '..',
      '.',
      '/',
    ),
  },
  { weight: 3, arbitrary: fc.string({ unit: 'binary', maxLength: 12 }) },
  { weight: 2, arbitrary: fc.string({ unit: 'grapheme', maxLength: 8 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', minLength: 1, maxLength: 3 }).map((s) => s.repeat(4_000)) },
);

/** Bytes that are not UTF-8 at all, for places where raw bytes can go. */
const invalidUtf8 = fc.uint8Array({ minLength: 1, maxLength: 8 }).map((b) => Buffer.from([0xff, 0xc3, ...b]));

interface RawAnswer {
  status: number;
  headers: [string, string][];
  body: string;
}

/** Writes `head` and `body` on a fresh connection and reads the whole answer (the connection closes). */
function rawExchange(head: Buffer, body: Buffer = Buffer.alloc(0)): Promise<RawAnswer> {
  const url = new URL(server.url);
  return new Promise((resolve, reject) => {
    // No half-close: the request says Connection: close, so the server ends the connection once it has answered.
    const socket = connect(Number(url.port), url.hostname, () => socket.write(Buffer.concat([head, body])));
    const chunks: Buffer[] = [];
    socket.setTimeout(30_000, () => socket.destroy(new Error('no answer within 30 s')));
    socket.on('data', (d: Buffer) => chunks.push(d));
    socket.on('error', reject);
    socket.on('close', () => {
      try {
        resolve(parseAnswer(Buffer.concat(chunks)));
      } catch (e) {
        reject(e);
      }
    });
  });
}

/** An HTTP/1.1 response as bytes: status line, headers (latin1, as sent), a body whole or chunked. */
function parseAnswer(bytes: Buffer): RawAnswer {
  const end = bytes.indexOf('\r\n\r\n');
  if (end < 0) throw new Error(`not an HTTP response: ${JSON.stringify(bytes.toString('latin1').slice(0, 200))}`);
  const [statusLine, ...lines] = bytes.subarray(0, end).toString('latin1').split('\r\n');
  const m = /^HTTP\/1\.1 (\d{3}) /.exec(statusLine ?? '');
  if (!m) throw new Error(`not an HTTP status line: ${JSON.stringify(statusLine)}`);
  const headers = lines.map((l): [string, string] => {
    const i = l.indexOf(':');
    return [l.slice(0, i).toLowerCase(), l.slice(i + 1).trim()];
  });
  let body = bytes.subarray(end + 4);
  if (headers.some(([k, v]) => k === 'transfer-encoding' && v === 'chunked')) {
    const parts: Buffer[] = [];
    let at = 0;
    for (;;) {
      const lineEnd = body.indexOf('\r\n', at);
      const size = Number.parseInt(body.subarray(at, lineEnd).toString('latin1'), 16);
      if (!(size > 0)) break;
      parts.push(body.subarray(lineEnd + 2, lineEnd + 2 + size));
      at = lineEnd + 2 + size + 2;
    }
    body = Buffer.concat(parts);
  }
  return { status: Number(m[1]), headers, body: body.toString('utf8') };
}

function pct(text: string | Buffer): string {
  const bytes = typeof text === 'string' ? Buffer.from(text, 'utf8') : text;
  return [...bytes].map((b) => `%${b.toString(16).padStart(2, '0')}`).join('');
}

/** A header line's value: hostile text as its UTF-8 bytes (what a careless client writes). */
type Place =
  | 'field name'
  | 'field value'
  | 'label value'
  | 'header value'
  | 'header name'
  | 'query value'
  | 'query name'
  | 'name in path'
  | 'namespace in path';

const PLACES: Place[] = [
  'field name',
  'field value',
  'label value',
  'header value',
  'header name',
  'query value',
  'query name',
  'name in path',
  'namespace in path',
];

function hostileRequest(place: Place, text: string | Buffer, validation: string): { head: Buffer; body: Buffer; show: string } {
  const textString = typeof text === 'string' ? text : text.toString('latin1');
  let path = `/api/v1/namespaces/${NS}/configmaps`;
  const query = new Map<string, string>([['fieldValidation', validation]]);
  const headers: Buffer[] = [];
  let object: Record<string, unknown> = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { generateName: 'h-' }, data: { k: 'v' } };
  switch (place) {
    case 'field name':
      object = { ...object, [textString]: 1, data: { [textString]: 'v' } };
      break;
    case 'field value':
      object = { ...object, data: { k: textString }, metadata: { generateName: 'h-', annotations: { a: textString } } };
      break;
    case 'label value':
      object = { ...object, metadata: { generateName: 'h-', labels: { [textString]: textString } } };
      break;
    case 'header value':
      headers.push(Buffer.concat([Buffer.from('Impersonate-User: '), Buffer.from(text), Buffer.from('\r\n')]));
      headers.push(Buffer.concat([Buffer.from('Audit-ID: '), Buffer.from(text), Buffer.from('\r\n')]));
      break;
    case 'header name':
      headers.push(Buffer.from(`Impersonate-User: bob\r\nImpersonate-Extra-${pct(text)}: x\r\n`));
      break;
    case 'query value':
      query.set('labelSelector', textString);
      query.set('limit', textString);
      break;
    case 'query name':
      query.set(textString, '1');
      break;
    case 'name in path':
      path = `${path}/${pct(text)}`;
      break;
    case 'namespace in path':
      path = `/api/v1/namespaces/${pct(text)}/configmaps`;
      break;
  }
  const target = `${path}?${[...query].map(([k, v]) => `${pct(k)}=${pct(v)}`).join('&')}`;
  const body = Buffer.from(JSON.stringify(object), 'utf8');
  const method = place === 'name in path' ? 'PUT' : 'POST';
  const head = Buffer.concat([
    Buffer.from(
      `${method} ${target} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n`,
    ),
    ...headers,
    Buffer.from('\r\n'),
  ]);
  return {
    head,
    body,
    show: `${place} ${JSON.stringify(textString.slice(0, 60))} (${textString.length} chars), ${method} ${target.slice(0, 160)}`,
  };
}

/**
 * The invariants of every answer: below 500 (or a 5xx `also` accepts, as upstream answers it too),
 * a Status for an error, Warning headers a client can read.
 */
function expectValidAnswer(
  answer: RawAnswer,
  show: string,
  also: (status: number, body: Record<string, unknown>) => boolean = () => false,
): void {
  const what = `${show}\n-> ${answer.status} ${answer.body.slice(0, 300)}`;
  if (answer.status >= 500) expect(also(answer.status, JSON.parse(answer.body)), what).toBe(true);
  if (answer.status >= 400) expect(JSON.parse(answer.body), what).toMatchObject({ kind: 'Status', code: answer.status });
  for (const [name, value] of answer.headers) {
    if (name !== 'warning') continue;
    const text = Buffer.from(value, 'latin1');
    expect(new TextDecoder('utf-8', { fatal: true }).decode(text), what).toMatch(/^299 - "/);
    expect(text.toString('utf8'), what).not.toMatch(/[\u0000-\u001f\u007f-\u009f]/);
  }
}

async function expectAlive(show: string): Promise<void> {
  const res = await fetch(`${server.url}/healthz`).catch((e: Error) => e);
  expect(res instanceof Error ? `no answer: ${res.message}` : res.status, `after ${show}: ${server.stderr.slice(-1000)}`).toBe(200);
}

describe('hostile text in every place a request carries it', () => {
  it(`is answered validly and never ends the process (${HOSTILE_RUNS} requests)`, { timeout: 600_000 }, async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...PLACES),
        fc.oneof({ weight: 5, arbitrary: hostileText }, { weight: 1, arbitrary: invalidUtf8 }),
        fc.constantFrom('Warn', 'Strict', 'Ignore'),
        async (place, text, validation) => {
          const r = hostileRequest(place, text, validation);
          expectValidAnswer(await rawExchange(r.head, r.body), r.show);
          expect(server.exited, `the server exited after ${r.show}\n${server.stderr.slice(-2000)}`).toBeUndefined();
        },
      ),
      { numRuns: HOSTILE_RUNS, ...(SEED !== undefined ? { seed: SEED } : {}), endOnFailure: true },
    );
    await expectAlive('the hostile requests');
  });

  it("in an admission webhook's answer (warnings, messages, annotations, patches)", { timeout: 600_000 }, async () => {
    const tls = selfSignedCertificate();
    let answer: Record<string, unknown> = {};
    const hook = await serveWebhook(
      (review: any) => ({ apiVersion: review.apiVersion, kind: 'AdmissionReview', response: { uid: review.request.uid, ...answer } }),
      { tls },
    );
    const configuration = '/apis/admissionregistration.svc.io/v1/mutatingwebhookconfigurations';
    try {
      const registered = await fetch(`${server.url}${configuration}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          metadata: { name: 'hostile' },
          webhooks: [
            {
              name: 'hostile.example.com',
              clientConfig: { url: `${hook.url}/admit`, caBundle: Buffer.from(hook.caBundle).toString('base64') },
              rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }],
              sideEffects: 'None',
              admissionReviewVersions: ['v1'],
              failurePolicy: 'Ignore',
              timeoutSeconds: 5,
            },
          ],
        }),
      });
      expect(registered.status, await registered.text()).toBe(201);
      await fc.assert(
        fc.asyncProperty(
          fc.record({
            allowed: fc.boolean(),
            warnings: fc.array(hostileText, { maxLength: 3 }),
            status: fc.record({ message: hostileText, reason: hostileText, code: fc.constantFrom(400, 403, 422, 200, 500, 999, -1) }),
            auditAnnotations: fc.dictionary(hostileText, hostileText, { maxKeys: 2 }),
            patchType: fc.constant('JSONPatch'),
            patch: fc.oneof(
              hostileText,
              hostileText.map((t) =>
                Buffer.from(JSON.stringify([{ op: 'add', path: '/metadata/labels', value: { [t]: t } }])).toString('base64'),
              ),
              hostileText.map((t) => Buffer.from(JSON.stringify([{ op: 'add', path: `/data/${t}`, value: t }])).toString('base64')),
              hostileText.map((t) => Buffer.from(t).toString('base64')),
            ),
          }),
          async (given) => {
            answer = given;
            const body = Buffer.from(JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { generateName: 'w-' } }));
            const head = Buffer.from(
              `POST /api/v1/namespaces/${NS}/configmaps HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`,
            );
            // Upstream answers 500 for a patch it cannot apply, and a denial with the code the webhook chose.
            const upstreamToo = (status: number, b: Record<string, unknown>) =>
              b.reason === 'InternalError' || (!given.allowed && status === given.status.code);
            expectValidAnswer(await rawExchange(head, body), `webhook answer ${JSON.stringify(given).slice(0, 300)}`, upstreamToo);
          },
        ),
        { numRuns: Math.ceil(HOSTILE_RUNS / 10), ...(SEED !== undefined ? { seed: SEED } : {}), endOnFailure: true },
      );
    } finally {
      await fetch(`${server.url}${configuration}/hostile`, { method: 'DELETE' });
      await hook.close();
    }
    await expectAlive('the hostile webhook answers');
  });

  it("in a CustomResourceDefinition's fields, and in requests to the resource it serves", { timeout: 600_000 }, async () => {
    let n = 0;
    await fc.assert(
      fc.asyncProperty(
        hostileText,
        fc.constantFrom('deprecationWarning', 'description', 'column', 'category', 'field', 'pattern'),
        async (text, where) => {
          n++;
          const group = `h${n}.hostile.example.com`;
          const schema: Record<string, any> = {
            type: 'object',
            properties: { spec: { type: 'object', properties: { a: { type: 'string' } } } },
          };
          const version: Record<string, any> = { name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: schema } };
          if (where === 'deprecationWarning') Object.assign(version, { deprecated: true, deprecationWarning: text });
          if (where === 'description') schema.description = text;
          if (where === 'column')
            version.additionalPrinterColumns = [{ name: text, type: 'string', jsonPath: '.spec.a', description: text }];
          if (where === 'field') schema.properties.spec.properties[text] = { type: 'string', description: text };
          if (where === 'pattern') schema.properties.spec.properties.a.pattern = text;
          const crd = {
            apiVersion: 'apiextensions.svc.io/v1',
            kind: 'CustomResourceDefinition',
            metadata: { name: `things.${group}` },
            spec: {
              group,
              scope: 'Namespaced',
              names: { plural: 'things', singular: 'thing', kind: 'Thing', ...(where === 'category' ? { categories: [text] } : {}) },
              versions: [version],
            },
          };
          const body = Buffer.from(JSON.stringify(crd));
          const post = (path: string, b: Buffer) =>
            rawExchange(
              Buffer.from(
                `POST ${path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: ${b.length}\r\n\r\n`,
              ),
              b,
            );
          const show = `CRD with ${where} ${JSON.stringify(text.slice(0, 60))}`;
          const created = await post('/apis/apiextensions.svc.io/v1/customresourcedefinitions', body);
          expectValidAnswer(created, show);
          if (created.status !== 201) return;
          // The resource it serves answers too, in JSON and as a Table (printer columns), once established.
          const things = `/apis/${group}/v1/namespaces/${NS}/things`;
          for (let i = 0; i < 100; i++) {
            const r = await fetch(`${server.url}${things}`);
            if (r.status === 200) break;
            await new Promise((resolve) => setTimeout(resolve, 20));
          }
          const object = Buffer.from(
            JSON.stringify({ apiVersion: `${group}/v1`, kind: 'Thing', metadata: { name: 't' }, spec: { a: text, [text]: text } }),
          );
          expectValidAnswer(await post(`${things}?fieldValidation=Warn`, object), `${show}: create a Thing`);
          const table = await rawExchange(
            Buffer.from(
              `GET ${things} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\nAccept: application/json;as=Table;v=v1;g=meta.k8s.io\r\n\r\n`,
            ),
          );
          expectValidAnswer(table, `${show}: list as a Table`);
          await fetch(`${server.url}/apis/apiextensions.svc.io/v1/customresourcedefinitions/things.${group}`, { method: 'DELETE' });
        },
      ),
      { numRuns: Math.ceil(HOSTILE_RUNS / 30), ...(SEED !== undefined ? { seed: SEED } : {}), endOnFailure: true },
    );
    await expectAlive('the hostile CRDs');
  });
});
