/**
 * Kinds every 1.30 kube-apiserver serves that a node or a storage driver writes (issue 23):
 * PodTemplate (core/v1), RuntimeClass (node/v1), CSINode and VolumeAttachment (storage/v1).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, expectStatus, startServer } from './server.testing.js';

const PODTEMPLATES = '/api/v1/namespaces/test/podtemplates';
const RUNTIMECLASSES = '/apis/node.svc.io/v1/runtimeclasses';
const CSINODES = '/apis/storage.svc.io/v1/csinodes';
const ATTACHMENTS = '/apis/storage.svc.io/v1/volumeattachments';
let h: Harness;

beforeAll(async () => {
  h = await startServer();
});
afterAll(() => h.close());

describe('PodTemplate', () => {
  const template = (image: string) => ({
    apiVersion: 'v1',
    kind: 'PodTemplate',
    metadata: { name: 'tpl' },
    template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image }] } },
  });

  it('counts template changes in its generation, and a delete answers the object', async () => {
    const created = await h.create(PODTEMPLATES, template('a:1'));
    expect(created.metadata.generation).toBe(1);
    const updated = await h.put(`${PODTEMPLATES}/tpl`, { ...template('a:2'), metadata: created.metadata });
    expect(updated.status, JSON.stringify(updated.body)).toBe(200);
    expect(updated.body.metadata.generation).toBe(2);
    const deleted = await h.delete(`${PODTEMPLATES}/tpl`);
    expect(deleted.status).toBe(200);
    expect(deleted.body).toMatchObject({ kind: 'PodTemplate', metadata: { name: 'tpl' } });
  });
});

describe('RuntimeClass', () => {
  it('keeps its handler, a DNS label that cannot change', async () => {
    const created = await h.create(RUNTIMECLASSES, {
      apiVersion: 'node.svc.io/v1',
      kind: 'RuntimeClass',
      metadata: { name: 'gvisor' },
      handler: 'runsc',
      overhead: { podFixed: { cpu: '250m' } },
      scheduling: { nodeSelector: { sandbox: 'true' }, tolerations: [{ key: 'sandbox', operator: 'Exists' }] },
    });
    expect(created.handler).toBe('runsc');
    const changed = await h.put(`${RUNTIMECLASSES}/gvisor`, { ...created, handler: 'runc' });
    expectStatus(changed, 422, 'Invalid');
    expect(changed.body.message).toContain('handler: Invalid value');
    expect(changed.body.message).toContain('field is immutable');
    expectStatus(
      await h.post(RUNTIMECLASSES, { apiVersion: 'node.svc.io/v1', kind: 'RuntimeClass', metadata: { name: 'bad' }, handler: 'Run_C' }),
      422,
      'Invalid',
    );
  });
});

describe('CSINode and VolumeAttachment', () => {
  it('stores a node’s CSI drivers', async () => {
    await h.create(CSINODES, {
      apiVersion: 'storage.svc.io/v1',
      kind: 'CSINode',
      metadata: { name: 'node-a' },
      spec: {
        drivers: [
          { name: 'ebs.csi.aws.com', nodeID: 'i-123', topologyKeys: ['topology.ebs.csi.aws.com/zone'], allocatable: { count: 25 } },
        ],
      },
    });
    const res = await h.get(`${CSINODES}/node-a`);
    expect(res.body.spec.drivers[0]).toMatchObject({ name: 'ebs.csi.aws.com', nodeID: 'i-123', allocatable: { count: 25 } });
  });

  it('writes an attachment’s status only through status, and refuses a spec change', async () => {
    const spec = { attacher: 'ebs.csi.aws.com', nodeName: 'node-a', source: { persistentVolumeName: 'pv-1' } };
    const created = await h.create(ATTACHMENTS, {
      apiVersion: 'storage.svc.io/v1',
      kind: 'VolumeAttachment',
      metadata: { name: 'va-1' },
      spec,
      status: { attached: true },
    });
    expect(created.status).toBeUndefined();
    const status = await h.patch(`${ATTACHMENTS}/va-1/status`, {
      status: { attached: true, attachmentMetadata: { devicePath: '/dev/xvdb' } },
    });
    expect(status.status, JSON.stringify(status.body)).toBe(200);
    expect(status.body.status).toEqual({ attached: true, attachmentMetadata: { devicePath: '/dev/xvdb' } });
    const moved = await h.patch(`${ATTACHMENTS}/va-1`, { spec: { nodeName: 'node-b' } });
    expectStatus(moved, 422, 'Invalid');
    expect(moved.body.message).toContain('field is immutable');
    const both = await h.post(ATTACHMENTS, {
      apiVersion: 'storage.svc.io/v1',
      kind: 'VolumeAttachment',
      metadata: { name: 'va-2' },
      spec: { ...spec, source: { persistentVolumeName: 'pv-1', inlineVolumeSpec: { capacity: { storage: '1Gi' } } } },
    });
    expectStatus(both, 422, 'Invalid');
  });
});
