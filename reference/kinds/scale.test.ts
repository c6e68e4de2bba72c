import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Harness, type Json, expectStatus, startServer } from '../../runtime/server/server.testing.js';

/** A Deployment as `kubectl create deployment web --image=nginx` sends it. */
function deployment(name: string, replicas?: number): Json {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, labels: { app: name } },
    spec: {
      ...(replicas !== undefined ? { replicas } : {}),
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'nginx', image: 'nginx' }] } },
    },
  };
}

describe('the scale subresource', () => {
  let h: Harness;
  let deployments: string;
  beforeEach(async () => {
    h = await startServer();
    deployments = `/apis/apps/v1/namespaces/${h.ns}/deployments`;
  });
  afterEach(async () => {
    await h.close();
  });

  it('reads a Deployment as an autoscaling/v1 Scale with its replicas and selector string', async () => {
    const created = await h.create(deployments, deployment('web', 3));
    const res = await h.get(`${deployments}/web/scale`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      apiVersion: 'autoscaling/v1',
      kind: 'Scale',
      metadata: {
        name: 'web',
        namespace: h.ns,
        uid: created.metadata.uid,
        resourceVersion: created.metadata.resourceVersion,
        creationTimestamp: created.metadata.creationTimestamp,
      },
      spec: { replicas: 3 },
      status: { replicas: 0, selector: 'app=web' },
    });
  });

  it('writes spec.replicas by PUT and by each patch type, bumping generation and keeping the rest', async () => {
    await h.create(deployments, deployment('web'));
    const scale = (await h.get(`${deployments}/web/scale`)).body;
    const put = await h.put(`${deployments}/web/scale`, { ...scale, spec: { replicas: 5 } });
    expect(put.status).toBe(200);
    expect(put.body.spec.replicas).toBe(5);
    let object = await h.read(`${deployments}/web`);
    expect(object.spec.replicas).toBe(5);
    expect(object.metadata.generation).toBe(2);
    expect(object.spec.template.spec.containers[0].image).toBe('nginx');
    expect(put.body.metadata.resourceVersion).toBe(object.metadata.resourceVersion);

    expect((await h.patch(`${deployments}/web/scale`, { spec: { replicas: 2 } }, 'merge')).body.spec.replicas).toBe(2);
    expect((await h.patch(`${deployments}/web/scale`, { spec: { replicas: 4 } }, 'strategic')).body.spec.replicas).toBe(4);
    const json = await h.patch(`${deployments}/web/scale`, [{ op: 'replace', path: '/spec/replicas', value: 0 }], 'json');
    expect(json.body.spec.replicas).toBe(0);
    object = await h.read(`${deployments}/web`);
    expect(object.spec.replicas).toBe(0);
    expect(object.metadata.generation).toBe(5);
  });

  it('refuses negative replicas (422), a stale resourceVersion (409) and a wrong name (400), changing nothing', async () => {
    const created = await h.create(deployments, deployment('web', 1));
    const scale = (await h.get(`${deployments}/web/scale`)).body;
    const negative = expectStatus(await h.put(`${deployments}/web/scale`, { ...scale, spec: { replicas: -1 } }), 422, 'Invalid');
    expect(negative.message).toBe(
      'Scale.autoscaling "web" is invalid: spec.replicas: Invalid value: -1: must be greater than or equal to 0',
    );
    await h.patch(`${deployments}/web/scale`, { spec: { replicas: 2 } });
    expectStatus(await h.put(`${deployments}/web/scale`, { ...scale, spec: { replicas: 3 } }), 409, 'Conflict');
    expectStatus(await h.put(`${deployments}/web/scale`, { ...scale, metadata: { name: 'other' } }), 400, 'BadRequest');
    expectStatus(await h.delete(`${deployments}/web/scale`), 405, 'MethodNotAllowed');
    expectStatus(await h.get(`${deployments}/missing/scale`), 404, 'NotFound');
    const after = await h.read(`${deployments}/web`);
    expect(after.spec.replicas).toBe(2);
    expect(after.metadata.uid).toBe(created.metadata.uid);
  });

  it('scales a ReplicationController, whose selector is a plain label map', async () => {
    const rcs = `/api/v1/namespaces/${h.ns}/replicationcontrollers`;
    await h.create(rcs, {
      apiVersion: 'v1',
      kind: 'ReplicationController',
      metadata: { name: 'rc' },
      spec: {
        selector: { app: 'rc', tier: 'web' },
        template: { metadata: { labels: { app: 'rc', tier: 'web' } }, spec: { containers: [{ name: 'c', image: 'busybox' }] } },
      },
    });
    const scale = (await h.get(`${rcs}/rc/scale`)).body;
    expect(scale.spec.replicas).toBe(1);
    expect(scale.status.selector).toBe('app=rc,tier=web');
    expect((await h.patch(`${rcs}/rc/scale`, { spec: { replicas: 3 } })).body.spec.replicas).toBe(3);
    expect((await h.read(`${rcs}/rc`)).spec.replicas).toBe(3);
  });
});
