import { type JsonApiObject, StatusError, conflict, forbidden, notFound, timestamp } from '../../runtime/api/index.js';
import {
  admitControllerDelete,
  decodeObject,
  encodeObject,
  fromStoreError,
  type HookHost,
  type KindHook,
  markDeleted,
  objectKey,
  removeIfFinalized,
  type ServedResource,
  type ServerContext,
  type SubresourceHandler,
  updateObject,
  writeOptions,
} from '../../runtime/server/index.js';
import { isStoreConflictError, type KeyValue } from '../../runtime/store/index.js';

/**
 * The namespace lifecycle, as upstream's namespace strategy, NamespaceLifecycle admission plugin
 * and namespace controller: a new namespace is Active and held by the server's own finalizer;
 * objects are created only in an existing namespace that is not terminating; deleting a namespace
 * makes it Terminating (a second delete is 409), empties it, and removes it once its finalizers
 * are gone. Declared by the namespace kind as the hook `namespace-lifecycle`.
 */

/** The namespace finalizer the server itself clears once the namespace is empty. */
export const NAMESPACE_FINALIZER = 'kubernetes';

export function namespaceLifecycle(host: HookHost): KindHook {
  const namespaces = host.declaring;
  const reaper = new NamespaceReaper(host.context, namespaces);
  return {
    prepareCreate: prepareNamespace,
    prepareWrite: labelWithName,
    admitCreate: (ctx, r, namespace, name) => requireActiveNamespace(ctx, namespaces, r, namespace, name),
    async delete(ctx, { resource: r, object, kv, dryRun }) {
      const name = object.metadata?.name ?? '';
      if (object.metadata?.deletionTimestamp) {
        throw conflict(
          r,
          name,
          'The system is ensuring all content is removed from this namespace.  Upon completion, this namespace will automatically be purged by the system.',
        );
      }
      const next = markDeleted(ctx, object);
      next.status = { ...(next.status as object | undefined), phase: 'Terminating' };
      if (dryRun) return { status: 200, body: next };
      try {
        const updated = await ctx.store.update(objectKey(r, undefined, name), await encodeObject(next, r), {
          expectedModRevision: kv.modRevision,
        });
        reaper.kick(name);
        return { status: 200, body: await decodeObject(updated, r) };
      } catch (e) {
        throw fromStoreError(e, r, name) ?? e;
      }
    },
    namespaceChanged: (namespace) => reaper.kick(namespace),
    resume: () => reaper.resume(),
    idle: () => reaper.idle(),
    close: () => reaper.close(),
  };
}

/** `namespaces/<name>/finalize`: a PUT that writes the namespace (its spec.finalizers) as an update of the object. */
export const finalizeNamespace: SubresourceHandler = {
  methods: ['PUT'],
  handle: (ctx, t, body) => updateObject(ctx, { ...t, subresource: undefined }, body!, writeOptions(ctx.req.query, ctx.req.method)),
};

/** Every namespace carries its name as the label `kubernetes.io/metadata.name`, whatever a write says (SetDefaults_Namespace). */
export const NAMESPACE_NAME_LABEL = 'kubernetes.io/metadata.name';

function labelWithName(object: JsonApiObject): void {
  const meta = (object.metadata ??= {});
  if (meta.name) meta.labels = { ...meta.labels, [NAMESPACE_NAME_LABEL]: meta.name };
}

/** A new namespace is Active and held by the server's own finalizer until its content is gone, as upstream. */
function prepareNamespace(object: JsonApiObject): void {
  const spec = (object.spec ?? {}) as { finalizers?: string[] };
  const finalizers = spec.finalizers ?? [];
  object.spec = { ...spec, finalizers: finalizers.includes(NAMESPACE_FINALIZER) ? finalizers : [...finalizers, NAMESPACE_FINALIZER] };
  object.status = { phase: 'Active' };
}

/** Namespaced creates need an existing namespace that is not being deleted (upstream's NamespaceLifecycle). */
/** Every create reads its namespace: at once from a store that answers so, and decoded only when it may be terminating. */
function requireActiveNamespace(
  ctx: ServerContext,
  namespaces: ServedResource,
  r: ServedResource,
  namespace: string,
  name: string,
): void | Promise<void> {
  const check = (kv: KeyValue | undefined): void | Promise<void> => {
    if (!kv) throw notFound(namespaces, namespace);
    // Only a namespace being deleted has a deletionTimestamp.
    if (!kv.value.includes('"deletionTimestamp"')) return;
    return decodeObject(kv, namespaces).then((object) => {
      if (!object.metadata?.deletionTimestamp) return;
      throw forbidden(r, name, `unable to create new content in namespace ${namespace} because it is being terminated`, [
        { type: 'NamespaceTerminating', message: `namespace ${namespace} is being terminated`, field: 'metadata.namespace' },
      ]);
    });
  };
  const key = objectKey(namespaces, undefined, namespace);
  return ctx.store.getNow ? check(ctx.store.getNow(key)) : ctx.store.get(key).then(check);
}

/**
 * Empties namespaces that are being deleted, as the real system's namespace controller does:
 * every object in a terminating namespace is deleted (objects with finalizers wait for them), and
 * when nothing is left the namespace itself is removed. Work is kicked by deletes and retried on a
 * short timer while objects remain, so a restart or a lost race only delays it.
 */
class NamespaceReaper {
  readonly #pending = new Set<string>();
  readonly #retry = new Set<string>();
  #running: Promise<void> | undefined;
  #timer: NodeJS.Timeout | undefined;
  #closed = false;

  readonly #context: HookHost['context'];
  readonly #namespaces: ServedResource;
  readonly #retryMs: number;

  constructor(context: HookHost['context'], namespaces: ServedResource, retryMs = 500) {
    this.#context = context;
    this.#namespaces = namespaces;
    this.#retryMs = retryMs;
  }

  /** Schedules a pass over `namespace` (a no-op unless it is terminating). */
  kick(namespace: string): void {
    if (this.#closed) return;
    this.#pending.add(namespace);
    this.#running ??= this.#drain().finally(() => {
      this.#running = undefined;
    });
  }

  /** Resumes namespaces that were terminating when the server last stopped. */
  async resume(): Promise<void> {
    const page = await this.#context.store.list(this.#namespaces.storagePrefix);
    for (const kv of page.items) {
      const object = await decodeObject(kv, this.#namespaces);
      if (object.metadata?.deletionTimestamp && object.metadata.name) this.kick(object.metadata.name);
    }
  }

  /** Waits for the current pass (tests use it to observe a finished deletion). */
  async idle(): Promise<void> {
    while (this.#running) await this.#running;
  }

  close(): void {
    this.#closed = true;
    if (this.#timer) clearTimeout(this.#timer);
  }

  async #drain(): Promise<void> {
    while (this.#pending.size > 0 && !this.#closed) {
      const [namespace] = this.#pending;
      this.#pending.delete(namespace!);
      const done = await this.#reap(namespace!).catch(() => false);
      if (!done) this.#retryLater(namespace!);
    }
  }

  #retryLater(namespace: string): void {
    if (this.#closed) return;
    this.#retry.add(namespace);
    if (this.#timer) return;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      const due = [...this.#retry];
      this.#retry.clear();
      for (const ns of due) this.kick(ns);
    }, this.#retryMs);
    this.#timer.unref();
  }

  /** One pass; true when the namespace is gone or not terminating. */
  async #reap(namespace: string): Promise<boolean> {
    const { store, registry } = this.#context;
    const ns = this.#namespaces;
    const nsKey = objectKey(ns, undefined, namespace);
    const nsKv = await store.get(nsKey);
    if (!nsKv) return true;
    const nsObject = await decodeObject(nsKv, ns);
    if (!nsObject.metadata?.deletionTimestamp) return true;
    let remaining = 0;
    const content = new Map<string, number>();
    const held = new Map<string, number>();
    const refused: string[] = [];
    for (const r of registry.namespacedStorage()) {
      const page = await store.list(`${r.storagePrefix}${namespace}/`);
      for (const kv of page.items) {
        const object = await decodeObject(kv, r);
        const gr = r.group === '' ? r.resource : `${r.resource}.${r.group}`;
        // Deleted as upstream's namespace controller deletes: through admission, as its service account.
        const denied = object.metadata?.deletionTimestamp ? undefined : await this.#refusal(r, namespace, object);
        if (denied) refused.push(denied);
        else if (await removeIfFinalized(this.#context, r, kv.key, object, kv.modRevision)) continue;
        remaining++;
        content.set(gr, (content.get(gr) ?? 0) + 1);
        for (const f of object.metadata?.finalizers ?? []) held.set(f, (held.get(f) ?? 0) + 1);
      }
    }
    if (remaining > 0) {
      await this.#report(nsKey, content, held, refused);
      return false;
    }
    // Only the server's own entry of spec.finalizers is ours to clear; others wait for /finalize.
    const spec = (nsObject.spec ?? {}) as { finalizers?: string[] };
    const finalizers = spec.finalizers ?? [];
    if (finalizers.includes(NAMESPACE_FINALIZER)) {
      const next = { ...nsObject, spec: { ...spec, finalizers: finalizers.filter((f) => f !== NAMESPACE_FINALIZER) } };
      await store.update(nsKey, await encodeObject(next, ns), { expectedModRevision: nsKv.modRevision });
      return this.#reap(namespace);
    }
    if (finalizers.length > 0) return true; // held by someone else's finalizer; a /finalize update kicks us again
    return removeIfFinalized(this.#context, ns, nsKey, nsObject, nsKv.modRevision);
  }

  /** Why admission refuses deleting the object, or undefined when it allows it. */
  async #refusal(r: ServedResource, namespace: string, object: JsonApiObject): Promise<string | undefined> {
    try {
      await admitControllerDelete(this.#context, 'namespace-controller', {
        resource: r,
        namespace,
        old: object,
        propagationPolicy: 'Background',
      });
      return undefined;
    } catch (e) {
      if (e instanceof StatusError) return e.message;
      throw e;
    }
  }

  /** Writes the deletion conditions upstream's namespace controller reports on a terminating namespace, when they change. */
  async #report(nsKey: string, content: Map<string, number>, finalizers: Map<string, number>, refused: readonly string[]): Promise<void> {
    const ns = this.#namespaces;
    const kv = await this.#context.store.get(nsKey);
    if (!kv) return;
    const object = await decodeObject(kv, ns);
    const status = (object.status ?? {}) as { conditions?: NamespaceCondition[] };
    const wanted = deletionConditions(content, finalizers, refused);
    const previous = status.conditions ?? [];
    const same = (a: NamespaceCondition, b: NamespaceCondition | undefined) =>
      b !== undefined && a.status === b.status && a.reason === b.reason && a.message === b.message;
    if (
      wanted.every((c) =>
        same(
          c,
          previous.find((p) => p.type === c.type),
        ),
      )
    )
      return;
    const now = timestamp(this.#context.settings.now());
    const conditions = wanted.map((c) => {
      const p = previous.find((x) => x.type === c.type);
      return { ...c, lastTransitionTime: p && p.status === c.status ? p.lastTransitionTime : now };
    });
    object.status = { ...status, conditions };
    try {
      await this.#context.store.update(nsKey, await encodeObject(object, ns), { expectedModRevision: kv.modRevision });
    } catch (e) {
      // The namespace changed meanwhile: the next pass reports again.
      if (!isStoreConflictError(e)) throw e;
    }
  }
}

interface NamespaceCondition {
  type: string;
  status: 'True' | 'False';
  reason: string;
  message: string;
  lastTransitionTime?: string;
}

/**
 * The conditions of a terminating namespace, with upstream's types, reasons and messages: what
 * content remains (by group-resource) and which finalizers hold it. svckit's discovery and
 * deletion of content cannot fail separately from the store, so those conditions are always False.
 */
export function deletionConditions(
  content: Map<string, number>,
  finalizers: Map<string, number>,
  refused: readonly string[] = [],
): NamespaceCondition[] {
  const sorted = (m: Map<string, number>) => [...m.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return [
    {
      type: 'NamespaceDeletionDiscoveryFailure',
      status: 'False',
      reason: 'ResourcesDiscovered',
      message: 'All resources successfully discovered',
    },
    {
      type: 'NamespaceDeletionGroupVersionParsingFailure',
      status: 'False',
      reason: 'ParsedGroupVersions',
      message: 'All legacy kube types successfully parsed',
    },
    refused.length > 0
      ? {
          type: 'NamespaceDeletionContentFailure',
          status: 'True',
          reason: 'ContentDeletionFailed',
          // Upstream's aggregate: the one error, or the list of them.
          message: `Failed to delete all resource types, ${refused.length} remaining: ${refused.length === 1 ? refused[0] : `[${refused.join(', ')}]`}`,
        }
      : {
          type: 'NamespaceDeletionContentFailure',
          status: 'False',
          reason: 'ContentDeleted',
          message: 'All content successfully deleted, may be waiting on finalization',
        },
    content.size > 0
      ? {
          type: 'NamespaceContentRemaining',
          status: 'True',
          reason: 'SomeResourcesRemain',
          message: `Some resources are remaining: ${sorted(content)
            .map(([gr, n]) => `${gr} has ${n} resource instances`)
            .join(', ')}`,
        }
      : { type: 'NamespaceContentRemaining', status: 'False', reason: 'ContentRemoved', message: 'All content successfully removed' },
    finalizers.size > 0
      ? {
          type: 'NamespaceFinalizersRemaining',
          status: 'True',
          reason: 'SomeFinalizersRemain',
          message: `Some content in the namespace has finalizers remaining: ${sorted(finalizers)
            .map(([f, n]) => `${f} in ${n} resource instances`)
            .join(', ')}`,
        }
      : {
          type: 'NamespaceFinalizersRemaining',
          status: 'False',
          reason: 'ContentHasNoFinalizers',
          message: 'All content-preserving finalizers have been removed',
        },
  ];
}
