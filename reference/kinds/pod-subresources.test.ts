/**
 * The pod subresources a kubelet or a scheduler would use, as a server with no nodes answers them:
 * log (204 before the pod is bound), exec/attach/portforward (400 without a host), binding (sets
 * spec.nodeName once, 409 after), ephemeralcontainers (only spec.ephemeralContainers changes).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, expectStatus, startServer } from '../../runtime/server/server.testing.js';

const PODS = '/api/v1/namespaces/test/pods';
let h: Harness;

const pod = (name: string, containers = [{ name: 'app', image: 'nginx' }]) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name },
  spec: { containers },
});

beforeAll(async () => {
  h = await startServer();
  await h.create(PODS, pod('pending'));
  await h.create(
    PODS,
    pod('two', [
      { name: 'a', image: 'x' },
      { name: 'b', image: 'y' },
    ]),
  );
});
afterAll(() => h.close());

describe('pod log, exec, attach and portforward', () => {
  it('answers the log of a pod bound to no node with no content, as upstream', async () => {
    const res = await h.get(`${PODS}/pending/log`);
    expect(res.status).toBe(204);
    expect(res.text ?? '').toBe('');
  });

  it('asks for a container when the pod has several, and refuses an unknown one', async () => {
    const res = await h.get(`${PODS}/two/log`);
    expect(expectStatus(res, 400, 'BadRequest').message).toBe('a container name must be specified for pod two, choose one of: [a b]');
    const unknown = await h.get(`${PODS}/pending/log?container=nope`);
    expect(expectStatus(unknown, 400, 'BadRequest').message).toBe('container nope is not valid for pod pending');
  });

  it("refuses exec, attach and portforward to a pod with no host, in upstream's words", async () => {
    for (const sub of ['exec?command=ls&stdout=true', 'attach?stdout=true', 'portforward?ports=80']) {
      const res = await h.post(`${PODS}/pending/${sub}`, undefined);
      expect(expectStatus(res, 400, 'BadRequest').message, sub).toBe('pod pending does not have a host assigned');
    }
  });

  it('answers 404 for the node of a bound pod that does not exist', async () => {
    await h.create(PODS, { ...pod('placed'), spec: { ...pod('placed').spec, nodeName: 'ghost' } });
    const res = await h.get(`${PODS}/placed/log`);
    expect(expectStatus(res, 404, 'NotFound').message).toBe('nodes "ghost" not found');
  });
});

describe('pod binding', () => {
  it('binds an unscheduled pod to a node once; a second binding is a conflict', async () => {
    await h.create(PODS, pod('bindme'));
    const binding = { apiVersion: 'v1', kind: 'Binding', metadata: { name: 'bindme' }, target: { kind: 'Node', name: 'node-1' } };
    const res = await h.post(`${PODS}/bindme/binding`, binding);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body).toMatchObject({ kind: 'Status', status: 'Success', code: 201 });
    const bound = await h.read(`${PODS}/bindme`);
    expect(bound.spec.nodeName).toBe('node-1');
    expect(bound.status.conditions).toEqual([expect.objectContaining({ type: 'PodScheduled', status: 'True' })]);
    const again = await h.post(`${PODS}/bindme/binding`, { ...binding, target: { name: 'node-2' } });
    expect(expectStatus(again, 409, 'Conflict').message).toBe(
      'Operation cannot be fulfilled on pods/binding "bindme": pod bindme is already assigned to node "node-1"',
    );
  });

  it('binds through the namespace collection of bindings', async () => {
    await h.create(PODS, pod('bycollection'));
    const res = await h.post('/api/v1/namespaces/test/bindings', {
      apiVersion: 'v1',
      kind: 'Binding',
      metadata: { name: 'bycollection' },
      target: { name: 'node-1' },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect((await h.read(`${PODS}/bycollection`)).spec.nodeName).toBe('node-1');
  });
});

describe('pod ephemeralcontainers', () => {
  it('adds an ephemeral container by strategic merge patch (kubectl debug) and changes nothing else', async () => {
    const debug = { name: 'debugger', image: 'busybox' };
    const res = await h.patch(
      `${PODS}/pending/ephemeralcontainers`,
      { metadata: { labels: { sneaky: 'yes' } }, spec: { ephemeralContainers: [debug] } },
      'strategic',
    );
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.kind).toBe('Pod');
    expect(res.body.spec.ephemeralContainers).toEqual([expect.objectContaining(debug)]);
    expect(res.body.metadata.labels?.sneaky).toBeUndefined();
    const got = await h.get(`${PODS}/pending/ephemeralcontainers`).expect(200);
    expect(got.body.spec.ephemeralContainers[0].name).toBe('debugger');
  });
});
