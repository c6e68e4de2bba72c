// As scale-deployment.js: read a deployment, replace it with more replicas.
import assert from 'node:assert/strict';
import * as k8s from '@kubernetes/client-node';

const kc = new k8s.KubeConfig();
kc.loadFromDefault();
const apps = kc.makeApiClient(k8s.AppsV1Api);

const namespace = 'default';
const name = `docker-test-deployment-${Date.now().toString(36)}`;
const labels = { app: name };
await apps.createNamespacedDeployment({
  namespace,
  body: { metadata: { name }, spec: { replicas: 1, selector: { matchLabels: labels }, template: { metadata: { labels }, spec: { containers: [{ name: 'web', image: 'nginx' }] } } } },
});
const deployment = await apps.readNamespacedDeployment({ name, namespace });
const replaced = await apps.replaceNamespacedDeployment({ name, namespace, body: { ...deployment, spec: { ...deployment.spec, replicas: 3 } } });
assert.equal(replaced.spec?.replicas, 3);
const scale = await apps.readNamespacedDeploymentScale({ name, namespace });
assert.equal(scale.spec?.replicas, 3);
await apps.deleteNamespacedDeployment({ name, namespace });
