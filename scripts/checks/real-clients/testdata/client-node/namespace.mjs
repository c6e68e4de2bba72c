// As namespace.js and yaml-example.js: a namespace from YAML, created, read and deleted.
import assert from 'node:assert/strict';
import * as k8s from '@kubernetes/client-node';

const kc = new k8s.KubeConfig();
kc.loadFromDefault();
const core = kc.makeApiClient(k8s.CoreV1Api);

const name = `example-${Date.now().toString(36)}`;
const namespace = k8s.loadYaml(k8s.dumpYaml({ metadata: { name } }));
const created = await core.createNamespace({ body: namespace });
assert.equal(created.status?.phase, 'Active');
const read = await core.readNamespace({ name });
assert.equal(read.metadata?.labels?.['kubernetes.io/metadata.name'], name);
const deleted = await core.deleteNamespace({ name });
assert.ok(deleted.kind === 'Namespace' || deleted.kind === 'Status', `delete answered ${deleted.kind}`);
