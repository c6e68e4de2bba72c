/**
 * The comparison controller of the README, with @kubernetes/client-node 1.4 (its typed models where
 * it has them): the same behaviour as ./svckit.ts. client-node has an informer but no work queue,
 * so the queue (one reconcile per key at a time, a key queued once, retries with backoff) is
 * written here.
 */
import * as k8s from '@kubernetes/client-node';

const ANNOTATION = 'example.com/min-replicas';

export async function startReplicaFloor(kc: k8s.KubeConfig, namespace: string, signal: AbortSignal): Promise<void> {
  const apps = kc.makeApiClient(k8s.AppsV1Api);
  const objects = k8s.KubernetesObjectApi.makeApiClient(kc);
  const informer = k8s.makeInformer<k8s.V1Deployment>(kc, `/apis/apps/v1/namespaces/${namespace}/deployments`, () =>
    apps.listNamespacedDeployment({ namespace }),
  );

  const reconcile = async (name: string): Promise<void> => {
    const deployment = informer.get(name, namespace);
    const floor = Number(deployment?.metadata?.annotations?.[ANNOTATION]);
    if (!deployment?.metadata?.name || !Number.isInteger(floor)) return;
    if ((deployment.spec?.replicas ?? 1) < floor)
      await apps.patchNamespacedDeployment(
        { name, namespace, body: { spec: { replicas: floor } } },
        k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
      );
    const record: k8s.V1ConfigMap = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: {
        name: `${name}-floor`,
        namespace,
        ownerReferences: [{ apiVersion: 'apps/v1', kind: 'Deployment', name, uid: deployment.metadata.uid ?? '', controller: true }],
      },
      data: { minReplicas: String(floor) },
    };
    await objects.patch(record, undefined, undefined, 'replica-floor', true, k8s.PatchStrategy.ServerSideApply);
  };

  // The work queue client-go has and client-node does not.
  const queued = new Set<string>();
  const failures = new Map<string, number>();
  let wake: (() => void) | undefined;
  const enqueue = (name: string | undefined): void => {
    if (name === undefined) return;
    queued.add(name);
    wake?.();
  };
  const onEvent = (d: k8s.V1Deployment): void => enqueue(d.metadata?.name);
  informer.on(k8s.ADD, onEvent);
  informer.on(k8s.UPDATE, onEvent);
  informer.on(k8s.ERROR, () => setTimeout(() => void informer.start(), 1000));
  await informer.start();
  signal.addEventListener('abort', () => wake?.());
  while (!signal.aborted) {
    const name = queued.values().next().value;
    if (name === undefined) {
      await new Promise<void>((resolve) => (wake = resolve));
      continue;
    }
    queued.delete(name);
    try {
      await reconcile(name);
      failures.delete(name);
    } catch {
      const n = (failures.get(name) ?? 0) + 1;
      failures.set(name, n);
      setTimeout(() => enqueue(name), Math.min(5 * 2 ** n, 1_000_000));
    }
  }
  await informer.stop();
}
