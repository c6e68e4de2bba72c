import type { Store } from '../store/index.js';
import type { ServerSettings } from './context.js';
import { removeIfFinalized } from './delete.js';
import { decodeObject, encodeObject, objectKey } from './objects.js';
import { NAMESPACE_FINALIZER } from './write.js';
import type { ResourceRegistry } from './resources.js';

/**
 * Empties namespaces that are being deleted, as the real system's namespace controller does:
 * every object in a terminating namespace is deleted (objects with finalizers wait for them), and
 * when nothing is left the namespace itself is removed. Work is kicked by deletes and retried on a
 * short timer while objects remain, so a restart or a lost race only delays it.
 */
export class NamespaceReaper {
  private readonly pending = new Set<string>();
  private readonly retry = new Set<string>();
  private running: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(
    private readonly store: Store,
    private readonly registry: ResourceRegistry,
    private readonly settings: ServerSettings,
    private readonly retryMs = 500,
  ) {}

  /** Schedules a pass over `namespace` (a no-op unless it is terminating). */
  kick(namespace: string): void {
    if (this.closed) return;
    this.pending.add(namespace);
    this.running ??= this.drain().finally(() => {
      this.running = undefined;
    });
  }

  /** Resumes namespaces that were terminating when the server last stopped. */
  async resume(): Promise<void> {
    const ns = this.registry.get('', 'v1', 'namespaces');
    if (!ns) return;
    const page = await this.store.list(ns.storagePrefix);
    for (const kv of page.items) {
      const object = decodeObject(kv, ns);
      if (object.metadata?.deletionTimestamp && object.metadata.name) this.kick(object.metadata.name);
    }
  }

  /** Waits for the current pass (tests use it to observe a finished deletion). */
  async idle(): Promise<void> {
    while (this.running) await this.running;
  }

  close(): void {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
  }

  private async drain(): Promise<void> {
    while (this.pending.size > 0 && !this.closed) {
      const [namespace] = this.pending;
      this.pending.delete(namespace!);
      const done = await this.reap(namespace!).catch(() => false);
      if (!done) this.retryLater(namespace!);
    }
  }

  private retryLater(namespace: string): void {
    if (this.closed) return;
    this.retry.add(namespace);
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      const due = [...this.retry];
      this.retry.clear();
      for (const ns of due) this.kick(ns);
    }, this.retryMs);
    this.timer.unref();
  }

  /** One pass; true when the namespace is gone or not terminating. */
  private async reap(namespace: string): Promise<boolean> {
    const ns = this.registry.get('', 'v1', 'namespaces');
    if (!ns) return true;
    const nsKey = objectKey(ns, undefined, namespace);
    const nsKv = await this.store.get(nsKey);
    if (!nsKv) return true;
    const nsObject = decodeObject(nsKv, ns);
    if (!nsObject.metadata?.deletionTimestamp) return true;
    let remaining = 0;
    const ctx = { store: this.store, settings: this.settings };
    for (const r of this.registry.namespacedStorage()) {
      const page = await this.store.list(`${r.storagePrefix}${namespace}/`);
      for (const kv of page.items) {
        if (!(await removeIfFinalized(ctx, r, kv.key, decodeObject(kv, r), kv.modRevision))) remaining++;
      }
    }
    if (remaining > 0) return false;
    // Only the server's own entry of spec.finalizers is ours to clear; others wait for /finalize.
    const spec = (nsObject.spec ?? {}) as { finalizers?: string[] };
    const finalizers = spec.finalizers ?? [];
    if (finalizers.includes(NAMESPACE_FINALIZER)) {
      const next = { ...nsObject, spec: { ...spec, finalizers: finalizers.filter((f) => f !== NAMESPACE_FINALIZER) } };
      await this.store.update(nsKey, encodeObject(next, ns), { expectedModRevision: nsKv.modRevision });
      return this.reap(namespace);
    }
    if (finalizers.length > 0) return true; // held by someone else's finalizer; a /finalize update kicks us again
    return removeIfFinalized(ctx, ns, nsKey, nsObject, nsKv.modRevision);
  }
}
