import { PodSchema } from '../../generated/core/v1/index.js';
import { apply } from '../../runtime/apply/index.js';
import { type JsonObject, applyMergePatch } from '../../runtime/patch/index.js';
import { runCases } from './harness.js';

/** A Pod of about 50 fields with list maps (containers by name, ports by containerPort+protocol, env by name). */
function pod(image: string): JsonObject {
  const container = (n: number) => ({
    name: `c${n}`,
    image: `${image}:${n}`,
    ports: [
      { containerPort: 8000 + n, protocol: 'TCP', name: `http${n}` },
      { containerPort: 9000 + n, protocol: 'UDP', name: `dns${n}` },
    ],
    env: [
      { name: 'A', value: '1' },
      { name: 'B', value: '2' },
    ],
    resources: { limits: { cpu: '1', memory: '1Gi' }, requests: { cpu: '500m', memory: '512Mi' } },
  });
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'bench', namespace: 'default', labels: { app: 'bench', tier: 'web' }, annotations: { note: 'x' } },
    spec: {
      containers: [container(1), container(2), container(3)],
      nodeSelector: { disk: 'ssd' },
      restartPolicy: 'Always',
      serviceAccountName: 'default',
    },
  };
}

/** Applies per second on a Pod with list maps, beside a JSON merge patch making the same change. */
export async function benchApply(): Promise<void> {
  const options = { schema: PodSchema, apiVersion: 'v1', kind: 'Pod' };
  const live = apply(undefined, pod('nginx'), 'bench', options);
  const changed = pod('nginx-2');
  const n = 500;
  const results = await runCases(`Server-side apply vs merge patch (${n} changes of a ~50-field Pod)`, [
    {
      name: `apply x${n}`,
      ours: () => {
        for (let i = 0; i < n; i++) apply(live, changed, 'bench', options);
      },
      peer: {
        name: 'JSON merge patch',
        run: () => {
          for (let i = 0; i < n; i++) applyMergePatch(live, { spec: changed.spec });
        },
      },
    },
  ]);
  const r = results[0]!;
  process.stdout.write(
    `applies per second: ${Math.round(n / (r.oursMs / 1000))}; merge patches per second: ${Math.round(n / (r.peerMs / 1000))}\n`,
  );
}
