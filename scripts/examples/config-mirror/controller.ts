/**
 * The example controller of docs/testing-controllers.md: for every ConfigMap labelled
 * `mirror=true` it keeps a copy named `<name>-mirror` with the same data, owned by the source (so
 * the garbage collector removes the copy with the source). An informer feeds a small work queue;
 * each item is reconciled with one server-side apply, retried with backoff when it fails.
 *
 * In a project the imports are `svckit/generated/client` and `svckit/client`.
 */
import type { Client } from '../../../generated/client.js';
import type { ApplyConfiguration } from '../../../runtime/client/index.js';
import type { ConfigMap } from '../../../generated/core/v1/index.js';

export const FIELD_MANAGER = 'config-mirror';
export const MIRROR_LABEL = 'mirror';

export interface ConfigMirror {
  /** Resolves once the informer has listed the namespace. */
  synced: Promise<void>;
  stop(): Promise<void>;
}

export function startConfigMirror(client: Client, namespace: string, options: { onError?: (e: unknown) => void } = {}): ConfigMirror {
  const configMaps = client.core.v1.configMaps(namespace);
  const informer = configMaps.informer({ labelSelector: `${MIRROR_LABEL}=true`, onError: options.onError });
  const queue = new WorkQueue(async (name) => {
    const source = informer.get(name, namespace);
    if (!source) return; // deleted: the garbage collector removes its mirror
    await configMaps.apply(mirrorOf(source), { fieldManager: FIELD_MANAGER, force: true });
  }, options.onError);
  informer.addEventHandler({
    onAdd: (cm) => queue.add(cm.metadata?.name ?? ''),
    onUpdate: (_old, cm) => queue.add(cm.metadata?.name ?? ''),
  });
  informer.start();
  return {
    synced: informer.waitForSync(),
    stop: async () => {
      queue.stop();
      await informer.stop();
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

/** Names to reconcile, each at most once in the queue; a failure is retried after a growing delay. */
class WorkQueue {
  readonly #pending = new Set<string>();
  readonly #attempts = new Map<string, number>();
  #running = false;
  #stopped = false;

  constructor(
    private readonly reconcile: (name: string) => Promise<void>,
    private readonly onError?: (e: unknown) => void,
  ) {}

  add(name: string): void {
    if (this.#stopped) return;
    this.#pending.add(name);
    void this.#run();
  }

  stop(): void {
    this.#stopped = true;
  }

  async #run(): Promise<void> {
    if (this.#running) return;
    this.#running = true;
    while (this.#pending.size > 0 && !this.#stopped) {
      const [name] = this.#pending;
      this.#pending.delete(name!);
      try {
        await this.reconcile(name!);
        this.#attempts.delete(name!);
      } catch (e) {
        this.onError?.(e);
        const n = (this.#attempts.get(name!) ?? 0) + 1;
        this.#attempts.set(name!, n);
        setTimeout(() => this.add(name!), Math.min(1000, 10 * 2 ** n));
      }
    }
    this.#running = false;
  }
}
