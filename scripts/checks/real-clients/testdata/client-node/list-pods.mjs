// As example.js (and typescript/simple): list the pods of a namespace.
import assert from 'node:assert/strict';
import * as k8s from '@kubernetes/client-node';

const kc = new k8s.KubeConfig();
kc.loadFromDefault();
const core = kc.makeApiClient(k8s.CoreV1Api);

const pods = await core.listNamespacedPod({ namespace: 'default' });
assert.ok(Array.isArray(pods.items));
assert.ok(pods.metadata?.resourceVersion, 'a list has a resourceVersion');
