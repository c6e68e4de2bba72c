import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Client, createClient } from '../../generated/client.js';
import type { ConfigMap, Pod } from '../../generated/core/v1/index.js';
import { StatusError, isStatusError } from '../api/index.js';
import { PATCH_CONTENT_TYPES } from './index.js';
import { type Front, type RunningServer, front, referenceServer } from './client.testing.js';

let server: RunningServer;
let spy: Front;
let client: Client;
const warnings: string[] = [];
const NS = 'verbs';

const pod = (name: string, labels: Record<string, string> = {}): Pod => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, labels },
  spec: { containers: [{ name: 'app', image: 'nginx:1.25' }] },
});

async function rejection(promise: Promise<unknown>): Promise<StatusError> {
  try {
    await promise;
  } catch (e) {
    if (isStatusError(e)) return e;
    throw e;
  }
  throw new Error('expected a StatusError');
}

beforeAll(async () => {
  server = await referenceServer();
  spy = await front(server.url);
  client = createClient({ server: spy.url, namespace: NS, onWarning: (w) => warnings.push(w) });
  await client.core.v1.namespaces.create({ metadata: { name: NS } });
});

afterAll(async () => {
  await spy.close();
  await server.close();
});

const lastRequest = () => spy.seen[spy.seen.length - 1]!;

describe('paths and scope', () => {
  it('addresses cluster-scoped, namespaced, all-namespaces and named-group resources', async () => {
    await client.core.v1.namespaces.get(NS);
    expect(lastRequest().url).toBe(`/api/v1/namespaces/${NS}`);
    await client.core.v1
      .configMaps('other-ns')
      .list()
      .catch(() => undefined);
    expect(lastRequest().url).toBe('/api/v1/namespaces/other-ns/configmaps');
    await client.core.v1.pods.all().list();
    expect(lastRequest().url).toBe('/api/v1/pods');
    await client.batch.v1.jobs().list();
    expect(lastRequest().url).toBe(`/apis/batch/v1/namespaces/${NS}/jobs`);
  });
});

describe('create, get, update, delete', () => {
  it('round-trips a typed object', async () => {
    const cm = client.core.v1.configMaps();
    const created = await cm.create({ metadata: { name: 'one' }, data: { a: '1' } });
    expect(created.metadata?.uid).toBeTruthy();
    const got = await cm.get('one');
    expect(got.data).toEqual({ a: '1' });
    const updated = await cm.update({ ...got, data: { a: '2' } });
    expect(updated.data).toEqual({ a: '2' });
    expect(updated.metadata?.resourceVersion).not.toBe(got.metadata?.resourceVersion);
    const gone = await cm.delete('one');
    expect(gone).toMatchObject({ kind: 'Status', status: 'Success' });
    expect((await rejection(cm.get('one'))).code).toBe(404);
  });

  it('a stale update is a 409 Conflict StatusError', async () => {
    const cm = client.core.v1.configMaps();
    const first = await cm.create({ metadata: { name: 'stale' }, data: { a: '1' } });
    await cm.update({ ...first, data: { a: '2' } });
    const e = await rejection(cm.update({ ...first, data: { a: '3' } }));
    expect(e).toBeInstanceOf(StatusError);
    expect(e.code).toBe(409);
    expect(e.reason).toBe('Conflict');
    expect(e.message).toContain('the object has been modified');
  });

  it('an invalid object is a 422 with one cause per field', async () => {
    const e = await rejection(client.core.v1.pods().create({ metadata: { name: 'Bad_Name' }, spec: { containers: [] } }));
    expect(e.code).toBe(422);
    expect(e.reason).toBe('Invalid');
    expect(e.details?.causes?.length).toBeGreaterThan(0);
    expect(e.details?.causes?.some((c) => c.field === 'metadata.name')).toBe(true);
  });

  it('dryRun=All validates and answers without persisting', async () => {
    const created = await client.core.v1.configMaps().create({ metadata: { name: 'dry' } }, { dryRun: true });
    expect(created.metadata?.name).toBe('dry');
    expect(lastRequest().url).toContain('dryRun=All');
    expect((await rejection(client.core.v1.configMaps().get('dry'))).code).toBe(404);
  });

  it('fieldValidation: Strict fails on unknown fields, Warn reports them to the warning handler', async () => {
    const doc = { metadata: { name: 'fv' }, data: {}, bogus: 1 } as ConfigMap;
    const e = await rejection(client.core.v1.configMaps().create(doc, { fieldValidation: 'Strict' }));
    expect(e.code).toBe(400);
    expect(e.message).toContain('unknown field "bogus"');
    warnings.length = 0;
    await client.core.v1.configMaps().create(doc, { fieldValidation: 'Warn', fieldManager: 'tester' });
    expect(lastRequest().url).toContain('fieldManager=tester');
    expect(warnings).toEqual(['unknown field "bogus"']);
  });

  it('delete with a failing precondition is a 409; propagation and grace period are sent', async () => {
    const cm = client.core.v1.configMaps();
    const created = await cm.create({ metadata: { name: 'pre' } });
    const e = await rejection(cm.delete('pre', { preconditions: { uid: 'not-the-uid' } }));
    expect(e.code).toBe(409);
    expect(e.message).toContain('Precondition failed');
    await cm.delete('pre', {
      preconditions: { uid: created.metadata!.uid!, resourceVersion: created.metadata!.resourceVersion! },
      propagationPolicy: 'Foreground',
      gracePeriodSeconds: 0,
    });
    expect((await rejection(cm.get('pre'))).code).toBe(404);
  });

  it('delete of an object with finalizers answers the object, now being deleted', async () => {
    const cm = client.core.v1.configMaps();
    await cm.create({ metadata: { name: 'fin', finalizers: ['svc.io/test'] } });
    const answer = await cm.delete('fin');
    expect(answer).toMatchObject({ metadata: { name: 'fin' } });
    expect('metadata' in answer && answer.metadata?.deletionTimestamp).toBeTruthy();
    await cm.jsonPatch('fin', [{ op: 'remove', path: '/metadata/finalizers' }]);
    expect((await rejection(cm.get('fin'))).code).toBe(404);
  });

  it('deleteCollection deletes what the selector matches', async () => {
    const cm = client.core.v1.configMaps();
    for (const [name, tier] of [
      ['dc-a', 'x'],
      ['dc-b', 'x'],
      ['dc-c', 'y'],
    ])
      await cm.create({ metadata: { name, labels: { tier: tier! } } });
    const deleted = await cm.deleteCollection({ labelSelector: { tier: 'x' } });
    expect(deleted.items.map((i) => i.metadata?.name).sort()).toEqual(['dc-a', 'dc-b']);
    expect((await cm.list({ labelSelector: 'tier in (x,y)' })).items.map((i) => i.metadata?.name)).toEqual(['dc-c']);
  });
});

describe('patches', () => {
  it('sends each patch type with its own Content-Type and a typed body', async () => {
    const pods = client.core.v1.pods();
    await pods.create(pod('patched', { app: 'web' }));

    await pods.jsonPatch('patched', [
      { op: 'test', path: '/metadata/labels/app', value: 'web' },
      { op: 'add', path: '/metadata/labels/tier', value: 'front' },
    ]);
    expect(lastRequest().headers['content-type']).toBe(PATCH_CONTENT_TYPES.json);

    const merged = await pods.mergePatch('patched', { metadata: { labels: { tier: null, owner: 'me' } } });
    expect(lastRequest().headers['content-type']).toBe(PATCH_CONTENT_TYPES.merge);
    expect(merged.metadata?.labels).toEqual({ app: 'web', owner: 'me' });

    // Containers merge by name: the sidecar is added, app keeps its image.
    const strategic = await pods.strategicMergePatch('patched', { spec: { containers: [{ name: 'sidecar', image: 'envoy:1' }] } });
    expect(lastRequest().headers['content-type']).toBe(PATCH_CONTENT_TYPES.strategic);
    expect(strategic.spec?.containers.map((c) => c.name)).toEqual(['sidecar', 'app']);

    const reordered = await pods.strategicMergePatch('patched', {
      spec: { '$setElementOrder/containers': [{ name: 'app' }, { name: 'sidecar' }], containers: [{ name: 'sidecar', image: 'envoy:2' }] },
    });
    expect(reordered.spec?.containers.map((c) => `${c.name} ${c.image}`)).toEqual(['app nginx:1.25', 'sidecar envoy:2']);

    const deleted = await pods.strategicMergePatch('patched', { spec: { containers: [{ name: 'sidecar', $patch: 'delete' }] } });
    expect(deleted.spec?.containers.map((c) => c.name)).toEqual(['app']);
  });

  it('a failed JSON Patch test is a StatusError', async () => {
    const e = await rejection(client.core.v1.pods().jsonPatch('patched', [{ op: 'test', path: '/metadata/labels/app', value: 'nope' }]));
    expect([409, 422]).toContain(e.code);
  });

  it('a patch with a resourceVersion detects a lost update', async () => {
    const e = await rejection(client.core.v1.pods().mergePatch('patched', { metadata: { resourceVersion: '1', labels: { x: 'y' } } }));
    expect(e.code).toBe(409);
  });
});

describe('the token subresource of service accounts', () => {
  it('createToken posts a TokenRequest and answers the token and its expiry', async () => {
    const accounts = client.core.v1.serviceAccounts();
    await accounts.create({ metadata: { name: 'robot' } });
    const issued = await accounts.createToken('robot', { expirationSeconds: 1200, audiences: ['vault'] });
    expect(lastRequest().url).toBe(`/api/v1/namespaces/${NS}/serviceaccounts/robot/token`);
    expect(issued.kind).toBe('TokenRequest');
    expect(issued.spec).toEqual({ audiences: ['vault'], expirationSeconds: 1200 });
    const payload = JSON.parse(Buffer.from(issued.status.token.split('.')[1]!, 'base64url').toString());
    expect(payload).toMatchObject({ sub: `system:serviceaccount:${NS}:robot`, aud: ['vault'] });
    expect(Date.parse(issued.status.expirationTimestamp)).toBe(payload.exp * 1000);
    expect((await rejection(accounts.createToken('ghost'))).code).toBe(404);
    expect((await rejection(accounts.createToken('robot', { expirationSeconds: 60 }))).code).toBe(422);
  });
});

describe('status and eviction subresources', () => {
  it('updateStatus writes only the status; getStatus reads it', async () => {
    const pods = client.core.v1.pods();
    const created = await pods.create(pod('with-status'));
    const updated = await pods.updateStatus({
      ...created,
      metadata: { ...created.metadata, labels: { ignored: 'yes' } },
      status: { phase: 'Running' },
    });
    expect(lastRequest().url).toBe(`/api/v1/namespaces/${NS}/pods/with-status/status`);
    expect(updated.status?.phase).toBe('Running');
    expect(updated.metadata?.labels?.ignored).toBeUndefined();
    expect((await pods.getStatus('with-status')).status?.phase).toBe('Running');
    const patched = await pods.mergePatch('with-status', { status: { phase: 'Succeeded' } }, { subresource: 'status' });
    expect(patched.status?.phase).toBe('Succeeded');
  });

  it('evict posts an Eviction and the pod is gone', async () => {
    const pods = client.core.v1.pods();
    await pods.create(pod('evicted'));
    await pods.evict('evicted', { gracePeriodSeconds: 0 });
    expect(lastRequest().url).toBe(`/api/v1/namespaces/${NS}/pods/evicted/eviction`);
    expect((await rejection(pods.get('evicted'))).code).toBe(404);
  });
});

describe('apply', () => {
  it('sends application/apply-patch+yaml with fieldManager and force; a conflict is a StatusError with causes', async () => {
    const cms = client.core.v1.configMaps();
    const first = await cms
      .apply({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'applied' }, data: { owner: 'a' } }, { fieldManager: 'manager-a' })
      .catch((e: unknown) => e);
    expect(lastRequest().headers['content-type']).toBe(PATCH_CONTENT_TYPES.apply);
    expect(lastRequest().url).toContain('fieldManager=manager-a');
    expect(first).toMatchObject({ data: { owner: 'a' } });
    const e = await rejection(
      cms.apply(
        { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'applied' }, data: { owner: 'b' } },
        { fieldManager: 'manager-b' },
      ),
    );
    expect(e.code).toBe(409);
    expect(e.details?.causes?.[0]).toMatchObject({ type: 'FieldManagerConflict', field: '.data.owner' });
    const forced = await cms.apply(
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'applied' }, data: { owner: 'b' } },
      { fieldManager: 'manager-b', force: true },
    );
    expect(lastRequest().url).toContain('force=true');
    expect(forced.data).toEqual({ owner: 'b' });
  });

  it('refuses an apply without a fieldManager before sending', () => {
    expect(() =>
      client.core.v1.configMaps().apply({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' } }, { fieldManager: '' }),
    ).toThrow(/fieldManager/);
  });
});

describe('list options', () => {
  it('sends selectors, resourceVersion, resourceVersionMatch, limit, continue and timeoutSeconds', async () => {
    const cm = client.core.v1.configMaps();
    for (const n of ['l1', 'l2', 'l3']) await cm.create({ metadata: { name: n, labels: { group: 'l' } } });
    const first = await cm.list({ labelSelector: { group: 'l' }, limit: 2, timeoutSeconds: 10 });
    expect(first.items).toHaveLength(2);
    expect(first.metadata?.continue).toBeTruthy();
    const second = await cm.list({ labelSelector: { group: 'l' }, limit: 2, continue: first.metadata!.continue! });
    expect(second.items.map((i) => i.metadata?.name)).toEqual(['l3']);
    expect(second.metadata?.resourceVersion).toBe(first.metadata?.resourceVersion);

    const rv = first.metadata!.resourceVersion!;
    await cm.list({ resourceVersion: rv, resourceVersionMatch: 'NotOlderThan' });
    expect(lastRequest().url).toContain(`resourceVersion=${rv}&resourceVersionMatch=NotOlderThan`);
    const exact = await cm.list({ resourceVersion: rv, resourceVersionMatch: 'Exact' });
    expect(exact.metadata?.resourceVersion).toBe(rv);
    const byName = await cm.list({ fieldSelector: { 'metadata.name': 'l2' } });
    expect(byName.items.map((i) => i.metadata?.name)).toEqual(['l2']);
    const e = await rejection(cm.list({ fieldSelector: 'spec.nope=1' }));
    expect(e.code).toBe(400);
  });

  it('honours an AbortSignal and a client-side timeout', async () => {
    const aborted = new AbortController();
    aborted.abort(new Error('stopped by the caller'));
    await expect(client.core.v1.configMaps().list({ signal: aborted.signal })).rejects.toThrow('stopped by the caller');
    await expect(client.core.v1.configMaps().get('l1', { timeoutMs: 0 })).rejects.toThrow(/timeout|aborted/i);
  });

  it('get with resourceVersion reads not older than it', async () => {
    const cm = client.core.v1.configMaps();
    const current = await cm.get('l1');
    const again = await cm.get('l1', { resourceVersion: current.metadata!.resourceVersion! });
    expect(again.metadata?.resourceVersion).toBe(current.metadata?.resourceVersion);
  });
});

describe('deprecation warnings', () => {
  it('delivers the Warning header of a deprecated version', async () => {
    warnings.length = 0;
    await client.flowcontrol.v1beta3.flowSchemas.list();
    expect(warnings.join('\n')).toMatch(/flowcontrol.apiserver.svc.io\/v1beta3 FlowSchema is deprecated/);
  });
});
