/**
 * What every namespace of a cluster holds from its first minutes (issue 23): the ServiceAccount
 * `default` (kube-controller-manager's serviceaccounts controller) and, over HTTPS, the ConfigMap
 * `kube-root-ca.crt` with the CA clients verify the server with (its root-ca-cert-publisher); and
 * the ServiceAccount admission plugin refusing a pod whose account does not exist.
 */
import { Agent, request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { SYSTEM_NAMESPACES } from './system-services.js';
import { type TestServer, type TestServerOptions, startTestServer } from './testing/index.js';

let t: TestServer | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

async function start(options: TestServerOptions = {}): Promise<TestServer> {
  t = await startTestServer(options);
  return t;
}

async function call(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  const dispatcher = t!.ca ? new Agent({ connect: { ca: t!.ca } }) : undefined;
  const res = await request(`${t!.url}${path}`, {
    method: method as 'GET',
    headers: { 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    ...(dispatcher ? { dispatcher } : {}),
  });
  return { status: res.statusCode, body: await res.body.json() };
}

const account = (ns: string) => call('GET', `/api/v1/namespaces/${ns}/serviceaccounts/default`);
const rootCa = (ns: string) => call('GET', `/api/v1/namespaces/${ns}/configmaps/kube-root-ca.crt`);
const pod = (name: string, spec: object = {}) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name },
  spec: { containers: [{ name: 'c', image: 'nginx' }], ...spec },
});
const DESCRIPTION =
  'Contains a CA bundle that can be used to verify the kube-apiserver when using internal endpoints such as the internal service IP or kubernetes.default.svc. No other usage is guaranteed across distributions of Kubernetes clusters.';

describe('the namespace controllers', () => {
  it('give every namespace at start its default ServiceAccount and kube-root-ca.crt with the cluster CA', async () => {
    await start({ tls: true });
    for (const ns of ['default', ...SYSTEM_NAMESPACES]) {
      const sa = await account(ns);
      expect(sa.status, ns).toBe(200);
      expect(sa.body.metadata).toMatchObject({ name: 'default', namespace: ns });
      const cm = await rootCa(ns);
      expect(cm.status, ns).toBe(200);
      expect(cm.body.data).toEqual({ 'ca.crt': t!.ca });
      expect(cm.body.metadata.annotations).toEqual({ 'kubernetes.io/description': DESCRIPTION });
      expect(cm.body.metadata.managedFields[0]).toMatchObject({ manager: 'kube-controller-manager', operation: 'Update' });
    }
  });

  it('fill a new namespace, and put back what is deleted or changed', async () => {
    await start({ tls: true });
    expect((await call('POST', '/api/v1/namespaces', { metadata: { name: 'team' } })).status).toBe(201);
    await t!.settle();
    const first = await account('team');
    expect(first.status).toBe(200);
    expect((await call('DELETE', '/api/v1/namespaces/team/serviceaccounts/default')).status).toBe(200);
    const changed = { ...(await rootCa('team')).body, data: { 'ca.crt': 'not a CA', extra: 'x' } };
    expect((await call('PUT', '/api/v1/namespaces/team/configmaps/kube-root-ca.crt', changed)).status).toBe(200);
    await t!.settle();
    const again = await account('team');
    expect(again.status).toBe(200);
    expect(again.body.metadata.uid).not.toBe(first.body.metadata.uid);
    expect((await rootCa('team')).body.data).toEqual({ 'ca.crt': t!.ca });
  });

  it('leave a terminating namespace empty', async () => {
    await start({ tls: true });
    await call('POST', '/api/v1/namespaces', { metadata: { name: 'going' } });
    await t!.settle();
    // A finalizer nobody clears holds the namespace Terminating after its content is deleted.
    const held = { metadata: { name: 'held', finalizers: ['example.com/hold'] } };
    expect((await call('POST', '/api/v1/namespaces/going/configmaps', held)).status).toBe(201);
    expect((await call('DELETE', '/api/v1/namespaces/going')).status).toBe(200);
    await t!.settle();
    expect((await call('GET', '/api/v1/namespaces/going')).body.status.phase).toBe('Terminating');
    expect((await account('going')).status).toBe(404);
    expect((await rootCa('going')).status).toBe(404);
  });

  it('publish no kube-root-ca.crt over plain HTTP, where the server has no CA', async () => {
    await start();
    expect((await account('default')).status).toBe(200);
    expect((await rootCa('default')).status).toBe(404);
  });

  it('are back after reset(), and are off with namespaceControllers: false', async () => {
    await start();
    expect((await call('DELETE', '/api/v1/namespaces/default/serviceaccounts/default')).status).toBe(200);
    await t!.reset();
    expect((await account('default')).status).toBe(200);
    await t!.close();
    await start({ namespaceControllers: false });
    expect((await account('default')).status).toBe(404);
  });
});

describe('the ServiceAccount admission plugin', () => {
  it('runs a pod in a new namespace as default, created by the controller meanwhile', async () => {
    await start();
    await call('POST', '/api/v1/namespaces', { metadata: { name: 'fresh' } });
    const created = await call('POST', '/api/v1/namespaces/fresh/pods', pod('p'));
    expect(created.status).toBe(201);
    expect(created.body.spec.serviceAccountName).toBe('default');
  });

  it('refuses a pod whose service account does not exist, as upstream', async () => {
    await start();
    const refused = await call('POST', '/api/v1/namespaces/default/pods', pod('p', { serviceAccountName: 'missing' }));
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({
      reason: 'Forbidden',
      message: 'pods "p" is forbidden: error looking up service account default/missing: serviceaccount "missing" not found',
    });
    await call('POST', '/api/v1/namespaces/default/serviceaccounts', { metadata: { name: 'missing' } });
    expect((await call('POST', '/api/v1/namespaces/default/pods', pod('p', { serviceAccountName: 'missing' }))).status).toBe(201);
  });
});
