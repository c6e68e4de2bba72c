/**
 * The clients profile's zero values in Protobuf (server-filled.yaml has the JSON ones): client-go
 * writes every non-pointer field of a built-in kind, so `kubectl create deployment` sends empty
 * strings and false; the server must treat them as unset. The kit encodes the Deployment itself
 * with the real system's apps/v1 and core/v1 field numbers: Deployment metadata 1, spec 2;
 * DeploymentSpec replicas 1, selector 2, template 3, strategy 4, paused 7; LabelSelector
 * matchLabels 1; PodTemplateSpec metadata 1, spec 2; ObjectMeta name 1, namespace 3, labels 11;
 * PodSpec containers 2, restartPolicy 3, dnsPolicy 6, serviceAccountName 8, hostNetwork 11,
 * schedulerName 19; Container name 1, image 2, workingDir 5, terminationMessagePath 13,
 * imagePullPolicy 14, terminationMessagePolicy 20; DeploymentStrategy type 1; map entries key 1, value 2.
 */
import type { CodeScenarioDefinition } from '../../load.js';
import { encodeEnvelope, lengthDelimited, varintField } from '../../protobuf-envelope.js';

const PROTOBUF = 'application/vnd.svc.protobuf';

function field(number: number, value: Buffer | string): Buffer {
  return lengthDelimited(number, typeof value === 'string' ? Buffer.from(value) : value);
}

function labels(number: number, entries: Record<string, string>): Buffer[] {
  return Object.entries(entries).map(([k, v]) => field(number, Buffer.concat([field(1, k), field(2, v)])));
}

/** A Deployment as client-go encodes `kubectl create deployment <name> --image=nginx` with replicas 0. */
function deployment(name: string, namespace: string): Buffer {
  const app = { app: name };
  const container = Buffer.concat([field(1, 'nginx'), field(2, 'nginx'), field(5, ''), field(13, ''), field(14, ''), field(20, '')]);
  const podSpec = Buffer.concat([field(2, container), field(3, ''), field(6, ''), field(8, ''), varintField(11, 0), field(19, '')]);
  const template = Buffer.concat([field(1, Buffer.concat(labels(11, app))), field(2, podSpec)]);
  const spec = Buffer.concat([
    varintField(1, 0),
    field(2, Buffer.concat(labels(1, app))),
    field(3, template),
    field(4, field(1, '')),
    varintField(7, 0),
  ]);
  const metadata = Buffer.concat([field(1, name), field(3, namespace), ...labels(11, app)]);
  return encodeEnvelope({ apiVersion: 'apps/v1', kind: 'Deployment', raw: Buffer.concat([field(1, metadata), field(2, spec)]) });
}

export const scenarios: CodeScenarioDefinition[] = [
  {
    id: 'core/clients/zero-values-unset-protobuf',
    rule: 'upstream-parity.md#Clients: zero values',
    description:
      'A Deployment posted as Protobuf with empty non-pointer strings and false, as client-go sends it, is created with them defaulted (imagePullPolicy Always, restartPolicy Always, strategy RollingUpdate) or absent; replicas 0, a pointer, stays 0.',
    tags: ['clients'],
    needs: ['protobuf'],
    serves: ['apps/v1/deployments'],
    async run(ctx) {
      const ns = ctx.sub('${ns}');
      const name = ctx.sub('${n}');
      const res = await ctx.request('POST', `/apis/apps/v1/namespaces/${ns}/deployments`, {
        bodyRaw: deployment(name, ns),
        contentType: PROTOBUF,
        headers: { accept: 'application/json' },
        step: 'create as Protobuf',
      });
      ctx.check(
        res,
        {
          status: [201],
          body: {
            spec: {
              replicas: 0,
              paused: { $absent: true },
              strategy: { type: 'RollingUpdate' },
              template: {
                spec: {
                  restartPolicy: 'Always',
                  dnsPolicy: 'ClusterFirst',
                  schedulerName: 'default-scheduler',
                  hostNetwork: { $absent: true },
                },
              },
            },
          },
          at: [
            { path: '$.spec.template.spec.containers[0].imagePullPolicy', equals: 'Always' },
            { path: '$.spec.template.spec.containers[0].terminationMessagePath', equals: '/dev/termination-log' },
            { path: '$.spec.template.spec.containers[0].workingDir', absent: true },
            { path: '$.spec.template.spec.serviceAccountName', absent: true },
          ],
        },
        'create as Protobuf',
      );
    },
  },
];
