/**
 * The zero value of a non-pointer Go field is "unset" (issue 23): Go clients that write Protobuf
 * (kubectl's typed clients) send every such field, empty strings and zeros among them, and a JSON
 * `""` decodes to the same Go value. Defaults then fill them, as upstream's defaulters test
 * `obj.X == ""`; pointer fields keep their zero.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { allProtobufPackages } from '../../generated/protobuf.js';
import { ProtobufCodecs } from '../codec/index.js';
import { type Harness, type Json, startServer } from './server.testing.js';

const codecs = new ProtobufCodecs(allProtobufPackages);
let h: Harness;
beforeEach(async () => {
  h = await startServer({ server: { protobufPackages: allProtobufPackages } });
});
afterEach(() => h.close());

const deployments = () => `/apis/apps/v1/namespaces/${h.ns}/deployments`;

/** A Deployment as `kubectl create deployment` builds it, with the zero of every non-pointer field it sets. */
function deployment(name: string): Json {
  const labels = { app: name };
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace: '', generateName: '', labels },
    spec: {
      replicas: 0,
      minReadySeconds: 0,
      paused: false,
      selector: { matchLabels: labels },
      strategy: { type: '' },
      template: {
        metadata: { name: '', labels },
        spec: {
          containers: [
            {
              name: 'nginx',
              image: 'nginx',
              imagePullPolicy: '',
              workingDir: '',
              terminationMessagePath: '',
              terminationMessagePolicy: '',
              ports: [{ containerPort: 80, protocol: '', name: '' }],
            },
          ],
          restartPolicy: '',
          dnsPolicy: '',
          schedulerName: '',
          serviceAccountName: '',
          nodeName: '',
          hostNetwork: false,
        },
      },
    },
  };
}

function expectDefaulted(d: Json): void {
  // replicas is a pointer (*int32): its zero is a value and stays.
  expect(d.spec.replicas).toBe(0);
  expect(d.spec.strategy.type).toBe('RollingUpdate');
  expect(d.spec).not.toHaveProperty('minReadySeconds');
  expect(d.spec).not.toHaveProperty('paused');
  const pod = d.spec.template.spec;
  expect(pod).toMatchObject({ restartPolicy: 'Always', dnsPolicy: 'ClusterFirst', schedulerName: 'default-scheduler' });
  for (const key of ['serviceAccountName', 'nodeName', 'hostNetwork']) expect(pod).not.toHaveProperty(key);
  expect(pod.containers[0]).not.toHaveProperty('workingDir');
  expect(pod.containers[0].ports[0]).toEqual({ containerPort: 80, protocol: 'TCP' });
  expect(d.metadata).not.toHaveProperty('generateName');
}

describe('the zero value of a non-pointer field', () => {
  it('is unset in JSON: "" and false are dropped and defaults fill them', async () => {
    const res = await h.post(deployments(), deployment('j'));
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expectDefaulted(res.body);
  });

  it('is unset in Protobuf, which carries every empty non-pointer string', async () => {
    const res = await h.http
      .post(deployments())
      .set('content-type', 'application/vnd.svc.protobuf')
      .set('accept', 'application/json')
      .send(Buffer.from(codecs.encode(deployment('p'))));
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expectDefaulted(res.body);
  });

  it('is kept at a pointer field: an empty storageClassName asks for no class', async () => {
    const claim = await h.create(`/api/v1/namespaces/${h.ns}/persistentvolumeclaims`, {
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: { name: 'c' },
      spec: { accessModes: ['ReadWriteOnce'], storageClassName: '', resources: { requests: { storage: '1Gi' } } },
    });
    expect(claim.spec.storageClassName).toBe('');
  });
});
