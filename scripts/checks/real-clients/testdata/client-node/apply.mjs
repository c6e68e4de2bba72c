// As typescript/apply: KubernetesObjectApi reads each object, creates it when absent and patches it
// when present; then the same object by server-side apply.
import assert from 'node:assert/strict';
import * as k8s from '@kubernetes/client-node';

const kc = new k8s.KubeConfig();
kc.loadFromDefault();
const client = k8s.KubernetesObjectApi.makeApiClient(kc);

const name = `applied-${Date.now().toString(36)}`;
const spec = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'default', annotations: {} }, data: { a: '1' } };

async function apply(object) {
  try {
    await client.read(object);
  } catch (e) {
    if (e?.code !== 404) throw e;
    return client.create(object);
  }
  return client.patch(object);
}

const created = await apply(spec);
assert.deepEqual(created.data, { a: '1' });
const patched = await apply({ ...spec, data: { a: '2' } });
assert.deepEqual(patched.data, { a: '2' });
const applied = await client.patch({ ...spec, metadata: { name, namespace: 'default' }, data: { a: '3' } }, undefined, undefined, 'example', true, k8s.PatchStrategy.ServerSideApply);
assert.deepEqual(applied.data, { a: '3' });
assert.ok(applied.metadata?.managedFields?.some((m) => m.manager === 'example' && m.operation === 'Apply'));
const list = await client.list('v1', 'ConfigMap', 'default');
assert.ok(list.items.some((c) => c.metadata?.name === name));
await client.delete(spec);
