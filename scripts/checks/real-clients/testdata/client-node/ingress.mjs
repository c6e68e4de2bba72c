// As ingress.js: an Ingress with a rule and TLS, through NetworkingV1Api.
import assert from 'node:assert/strict';
import * as k8s from '@kubernetes/client-node';

const kc = new k8s.KubeConfig();
kc.loadFromDefault();
const networking = kc.makeApiClient(k8s.NetworkingV1Api);

const namespace = 'default';
const name = `production-custom-${Date.now().toString(36)}`;
const host = `${name}.example.com`;
const created = await networking.createNamespacedIngress({
  namespace,
  body: {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'Ingress',
    metadata: { name },
    spec: {
      rules: [
        {
          host,
          http: {
            paths: [{ backend: { service: { name: 'production-auto-deploy', port: { number: 5000 } } }, path: '/', pathType: 'ImplementationSpecific' }],
          },
        },
      ],
      tls: [{ hosts: [host] }],
    },
  },
});
assert.equal(created.spec?.rules?.[0]?.host, host);
// client-node hands back its own model classes: compare the data, as a JSON reader sees it.
assert.deepEqual(JSON.parse(JSON.stringify(created.status)), { loadBalancer: {} });
await networking.deleteNamespacedIngress({ name, namespace });
