// As raw-example.js: a plain HTTPS request with the kubeconfig's credentials applied.
import assert from 'node:assert/strict';
import https from 'node:https';
import * as k8s from '@kubernetes/client-node';

const kc = new k8s.KubeConfig();
kc.loadFromDefault();
const options = {};
await kc.applyToHTTPSOptions(options);
const url = `${kc.getCurrentCluster()?.server}/api/v1/namespaces/default/pods`;
const { status, body } = await new Promise((resolve, reject) => {
  https
    .get(url, options, (res) => {
      let text = '';
      res.on('data', (chunk) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode, body: text }));
    })
    .on('error', reject);
});
assert.equal(status, 200);
assert.equal(JSON.parse(body).kind, 'PodList');
