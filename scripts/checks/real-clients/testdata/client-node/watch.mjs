// As typescript/watch: Watch on a namespace's configmaps, from a list's resourceVersion.
import assert from 'node:assert/strict';
import * as k8s from '@kubernetes/client-node';

const kc = new k8s.KubeConfig();
kc.loadFromDefault();
const core = kc.makeApiClient(k8s.CoreV1Api);

const namespace = 'default';
const name = `watched-${Date.now().toString(36)}`;
const { metadata } = await core.listNamespacedConfigMap({ namespace });
const seen = [];
let done;
const finished = new Promise((resolve, reject) => {
  done = resolve;
  setTimeout(() => reject(new Error(`watch saw ${JSON.stringify(seen)} in 10 s`)), 10_000).unref();
});
const request = await new k8s.Watch(kc).watch(
  `/api/v1/namespaces/${namespace}/configmaps`,
  { resourceVersion: metadata?.resourceVersion, fieldSelector: `metadata.name=${name}` },
  (type, object) => {
    seen.push([type, object.metadata?.name]);
    if (seen.length === 3) done();
  },
  (err) => err && done(err),
);
await core.createNamespacedConfigMap({ namespace, body: { metadata: { name }, data: { k: '1' } } });
await core.patchNamespacedConfigMap({ name, namespace, body: { data: { k: '2' } } }, k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch));
await core.deleteNamespacedConfigMap({ name, namespace });
const failure = await finished;
request.abort();
if (failure) throw failure;
assert.deepEqual(seen, [['ADDED', name], ['MODIFIED', name], ['DELETED', name]]);
