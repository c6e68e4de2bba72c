/**
 * The example controller of docs/testing-controllers.md: for every ConfigMap labelled
 * `mirror=true` it keeps a copy named `<name>-mirror` with the same data, owned by the source (so
 * the garbage collector removes the copy with the source). An informer feeds svckit/controller's
 * controller loop; each key is reconciled with one server-side apply, retried with the work
 * queue's backoff when it fails.
 *
 * In a project the imports are `svckit/generated/client`, `svckit/client` and `svckit/controller`.
 */
import type { Client } from '../../../generated/client.js';
import type { ConfigMap } from '../../../generated/core/v1/index.js';
import type { ApplyConfiguration } from '../../../runtime/client/index.js';
import { Controller, splitKey } from '../../../runtime/controller/index.js';

export const FIELD_MANAGER = 'config-mirror';
export const MIRROR_LABEL = 'mirror';

export interface ConfigMirror {
  /** Resolves once the informer has listed the namespace. */
  synced: Promise<void>;
  /** Finishes the reconciles under way, then stops. */
  stop(): Promise<void>;
}

export function startConfigMirror(client: Client, namespace: string, options: { onError?: (e: unknown) => void } = {}): ConfigMirror {
  const configMaps = client.core.v1.configMaps(namespace);
  const informer = configMaps.informer({ labelSelector: `${MIRROR_LABEL}=true`, onError: options.onError });
  const controller = new Controller({
    informers: [informer],
    reconcile: async (key) => {
      const source = informer.get(splitKey(key).name, namespace);
      if (!source) return; // deleted: the garbage collector removes its mirror
      await configMaps.apply(mirrorOf(source), { fieldManager: FIELD_MANAGER, force: true });
    },
    onError: options.onError,
  });
  const stopping = new AbortController();
  const running = controller.run(stopping.signal);
  return {
    synced: informer.waitForSync(),
    stop: async () => {
      stopping.abort();
      await running;
    },
  };
}

/** The mirror of a source: its data, owned by it. */
export function mirrorOf(source: ConfigMap): ApplyConfiguration<ConfigMap> {
  const meta = source.metadata ?? {};
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      name: `${meta.name}-mirror`,
      namespace: meta.namespace,
      ownerReferences: [
        { apiVersion: 'v1', kind: 'ConfigMap', name: meta.name ?? '', uid: meta.uid ?? '', controller: true, blockOwnerDeletion: true },
      ],
    },
    data: source.data ?? {},
  };
}
