// As patch-example.js (and typescript/patch): a pod's labels replaced by a JSON patch, then a merge patch.
import assert from 'node:assert/strict';
import * as k8s from '@kubernetes/client-node';

const kc = new k8s.KubeConfig();
kc.loadFromDefault();
const core = kc.makeApiClient(k8s.CoreV1Api);

const namespace = 'default';
const name = `patched-${Date.now().toString(36)}`;
await core.createNamespacedPod({ namespace, body: { metadata: { name, labels: { app: 'example' } }, spec: { containers: [{ name: 'c', image: 'busybox' }] } } });
const json = await core.patchNamespacedPod(
  { name, namespace, body: [{ op: 'replace', path: '/metadata/labels', value: { foo: 'bar' } }] },
  k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.JsonPatch),
);
assert.deepEqual(json.metadata?.labels, { foo: 'bar' });
const merge = await core.patchNamespacedPod(
  { name, namespace, body: { metadata: { labels: { baz: 'qux' } } } },
  k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
);
assert.deepEqual(merge.metadata?.labels, { foo: 'bar', baz: 'qux' });
await core.deleteNamespacedPod({ name, namespace });
