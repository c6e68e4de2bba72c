/**
 * The comparison controller of the README ("svckit and @kubernetes/client-node, measured"), with
 * svckit: every Deployment annotated `example.com/min-replicas` is scaled up to at least that many
 * replicas (a merge patch), and a ConfigMap `<name>-floor` owned by it records the floor (a
 * server-side apply). scripts/checks/controller-comparison.ts counts its lines and seeds mistakes.
 *
 * In a project the imports are `svckit/generated/client` and `svckit/controller`.
 */
import type { Client } from '../../../generated/client.js';
import { Controller, splitKey } from '../../../runtime/controller/index.js';

const ANNOTATION = 'example.com/min-replicas';

export function startReplicaFloor(client: Client, namespace: string, signal: AbortSignal): Promise<void> {
  const deployments = client.apps.v1.deployments(namespace);
  const informer = deployments.informer();
  const controller = new Controller({
    informers: [informer],
    reconcile: async (key) => {
      const deployment = informer.get(splitKey(key).name, namespace);
      const floor = Number(deployment?.metadata?.annotations?.[ANNOTATION]);
      if (!deployment?.metadata?.name || !Number.isInteger(floor)) return;
      const name = deployment.metadata.name;
      if ((deployment.spec?.replicas ?? 1) < floor) await deployments.mergePatch(name, { spec: { replicas: floor } });
      await client.core.v1.configMaps(namespace).apply(
        {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: {
            name: `${name}-floor`,
            ownerReferences: [{ apiVersion: 'apps/v1', kind: 'Deployment', name, uid: deployment.metadata.uid ?? '', controller: true }],
          },
          data: { minReplicas: String(floor) },
        },
        { fieldManager: 'replica-floor', force: true },
      );
    },
  });
  return controller.run(signal);
}
