/**
 * The garbage collector, as kube-controller-manager's: owner references are honoured for every
 * kind. It keeps a graph of owners and dependents from the server's own watch of the store (one
 * list, then one watch of everything under `/registry/`), and on each change looks again at the
 * objects the change concerns:
 *
 * - a dependent whose owners are all gone is deleted (background propagation; its own
 *   `orphan`/`foregroundDeletion` finalizers say how its dependents go);
 * - a dependent with an owner that still exists loses its references to owners that are gone or
 *   are waiting for their dependents (foreground), and stays;
 * - an owner being deleted with the `foregroundDeletion` finalizer has all its dependents deleted
 *   (those with dependents of their own in the foreground too), and loses the finalizer once no
 *   dependent with `blockOwnerDeletion` remains;
 * - an owner being deleted with the `orphan` finalizer has its references removed from every
 *   dependent, then loses the finalizer.
 *
 * It writes to the store directly, with conditional writes (a conflict only requeues the object),
 * so it needs no credentials and passes no admission, where upstream's GC is an API client.
 */
import { type JsonApiObject, StatusError } from '../api/index.js';
import {
  isStoreConflictError,
  isStoreExpiredError,
  isStoreNotFoundError,
  isStoreUnavailableError,
  type KeyValue,
  type Store,
  type Watch,
} from '../store/index.js';
import { admitControllerDelete } from './admission.js';
import type { ServerContext } from './context.js';
import { markDeleted } from './delete.js';
import { FOREGROUND_FINALIZER, ORPHAN_FINALIZER } from './gc-finalizers.js';
import { decodeObject } from './objects.js';
import { STORAGE_ROOT, type ServedResource } from './resources.js';

interface OwnerRef {
  uid: string;
  blockOwnerDeletion?: boolean;
}

/** One object of the graph: what the collector needs of it. */
interface Node {
  uid: string;
  key: string;
  namespace: string | undefined;
  owners: OwnerRef[];
  finalizers: string[];
  deleting: boolean;
}

/** How long a conflicting or failed write waits before the object is looked at again. */
const RETRY_MS = 50;
/** Objects read per page when the graph is built (their values are dropped once observed). */
const SYNC_PAGE = 500;
/** How long a deletion admission refused waits before it is tried again. */
const REFUSED_RETRY_MS = 1000;

export class GarbageCollector {
  readonly #context: ServerContext;
  readonly #nodes = new Map<string, Node>();
  readonly #uidByKey = new Map<string, string>();
  /** Owner uid -> the uids of objects that name it (the owner itself may be absent). */
  readonly #dependents = new Map<string, Set<string>>();
  readonly #dirty = new Set<string>();
  #watch: Watch | undefined;
  #working: Promise<void> | undefined;
  #retryTimer: NodeJS.Timeout | undefined;
  /** Objects whose deletion admission refused (reported once each). */
  readonly #refused = new Set<string>();
  #closed = false;
  #paused = 0;
  #synced: Promise<void> | undefined;
  /** The newest revision whose change is in the graph. */
  #seen = 0;

  constructor(context: ServerContext) {
    this.#context = context;
  }

  get #store(): Store {
    return this.#context.store;
  }

  /** Lists every object, then follows the store's changes until {@link close}; resolves once the first list is in the graph. */
  start(): Promise<void> {
    this.#synced ??= new Promise<void>((resolve) => {
      void this.#follow(resolve);
    });
    return this.#synced;
  }

  close(): void {
    this.#closed = true;
    this.#watch?.close();
    if (this.#retryTimer) clearTimeout(this.#retryTimer);
  }

  /** Resolves once the collector has seen every write made before the call and has nothing left to do now (tests). */
  async idle(): Promise<void> {
    if (!this.#synced) return; // never started: nothing to wait for
    await this.#synced;
    const target = await this.#store.currentRevision();
    while (!this.#closed && (this.#seen < target || this.#working || (this.#dirty.size > 0 && this.#paused === 0))) {
      await (this.#working ?? pause(5));
    }
  }

  async #follow(synced: () => void): Promise<void> {
    while (!this.#closed) {
      try {
        const revision = await this.#resync();
        this.#seen = revision;
        synced();
        this.#kick();
        // Every key, not only objects': the newest revision seen is then the store's, which idle() compares with.
        this.#watch = this.#store.watch('/', revision);
        for await (const event of this.#watch) {
          // Keys outside the objects' root are the server's own bookkeeping (the continue-token secret).
          const isObject = event.key.startsWith(STORAGE_ROOT);
          if (isObject && event.type === 'delete') this.#forget(event.key);
          else if (isObject) this.#observe(event.key, event.value);
          this.#seen = event.revision;
          this.#kick();
        }
      } catch {
        // A watch ended by the store (compaction, a slow reader) starts over from a fresh list.
        if (this.#closed) return;
        await pause(RETRY_MS);
      }
    }
  }

  /**
   * Builds the graph afresh from every object at one revision, and returns that revision. The
   * objects are read a page at a time and only their graph nodes kept, so a large store is never
   * held in memory whole. Collection waits meanwhile: it must not act on a half-built graph.
   */
  async #resync(): Promise<number> {
    this.#paused++;
    try {
      this.#nodes.clear();
      this.#uidByKey.clear();
      this.#dependents.clear();
      const revision = await this.#observeReadable();
      for (const uid of this.#nodes.keys()) this.#dirty.add(uid);
      return revision;
    } finally {
      this.#paused--;
    }
  }

  /**
   * Observes every object, or, when some value cannot be read (stored under an encryption key no
   * longer configured), every resource that can be read at one revision: as upstream's collector
   * works on the resources whose informers synced, one unreadable Secret must not stop collection,
   * nor the server's start, which waits for the first list.
   */
  async #observeReadable(): Promise<number> {
    const revision = await this.#store.currentRevision();
    try {
      await this.#observeAll(STORAGE_ROOT, revision);
      return revision;
    } catch (e) {
      if (isStoreUnavailableError(e) || isStoreExpiredError(e)) throw e;
    }
    const prefixes = new Set(this.#context.registry.resources().map((r) => r.storagePrefix));
    for (const prefix of prefixes) {
      const observed: string[] = [];
      try {
        await this.#observeAll(prefix, revision, observed);
      } catch (inner) {
        if (isStoreUnavailableError(inner) || isStoreExpiredError(inner)) throw inner;
        // The resource counts as not synced: none of it, not the pages before the unreadable one.
        for (const key of observed) this.#forget(key);
      }
    }
    return revision;
  }

  /** Observes the objects under `prefix` at `revision`, a page at a time; `observed` collects their keys. */
  async #observeAll(prefix: string, revision: number, observed?: string[]): Promise<void> {
    let startAfter: string | undefined;
    for (;;) {
      const page = await this.#store.list(prefix, { revision, startAfter, limit: SYNC_PAGE, countRemaining: false });
      for (const kv of page.items) {
        this.#observe(kv.key, kv.value);
        observed?.push(kv.key);
      }
      if (!page.more || page.items.length === 0) return;
      startAfter = page.items[page.items.length - 1]!.key;
    }
  }

  #observe(key: string, value: string): void {
    const meta = metadataOf(value);
    if (!meta?.uid) return;
    const previous = this.#nodes.get(meta.uid);
    if (previous) for (const o of previous.owners) this.#dirty.add(o.uid);
    this.#unlink(meta.uid);
    const node: Node = {
      uid: meta.uid,
      key,
      namespace: meta.namespace,
      owners: ownerRefsOf(meta),
      finalizers: Array.isArray(meta.finalizers) ? meta.finalizers.filter((f): f is string => typeof f === 'string') : [],
      deleting: Boolean(meta.deletionTimestamp),
    };
    this.#nodes.set(node.uid, node);
    this.#uidByKey.set(key, node.uid);
    for (const o of node.owners) {
      let set = this.#dependents.get(o.uid);
      if (!set) this.#dependents.set(o.uid, (set = new Set()));
      set.add(node.uid);
      this.#dirty.add(o.uid);
    }
    this.#dirty.add(node.uid);
    // An owner entering foreground deletion (or appearing again) concerns its dependents.
    for (const d of this.#dependents.get(node.uid) ?? []) this.#dirty.add(d);
  }

  #forget(key: string): void {
    const uid = this.#uidByKey.get(key);
    if (uid === undefined) return;
    const node = this.#nodes.get(uid);
    this.#unlink(uid);
    this.#nodes.delete(uid);
    this.#uidByKey.delete(key);
    this.#refused.delete(uid); // gone some other way: nothing more to report of it
    for (const o of node?.owners ?? []) this.#dirty.add(o.uid);
    for (const d of this.#dependents.get(uid) ?? []) this.#dirty.add(d);
  }

  #unlink(uid: string): void {
    const node = this.#nodes.get(uid);
    if (!node) return;
    for (const o of node.owners) {
      const set = this.#dependents.get(o.uid);
      set?.delete(uid);
      if (set?.size === 0) this.#dependents.delete(o.uid);
    }
  }

  /**
   * Runs `fn` (a bulk rewrite of the store, as a test server's reset) with collection paused: the
   * graph keeps following the store, and the collector acts only once it has seen the end result,
   * never on a state halfway through (a dependent restored before its owner).
   */
  async pauseWhile<T>(fn: () => Promise<T>): Promise<T> {
    this.#paused++;
    try {
      if (this.#working) await this.#working;
      return await fn();
    } finally {
      const target = await this.#store.currentRevision().catch(() => 0);
      while (!this.#closed && this.#seen < target) await pause(1);
      this.#paused--;
      this.#kick();
    }
  }

  #kick(): void {
    if (this.#closed || this.#paused > 0 || this.#working || this.#dirty.size === 0) return;
    this.#working = this.#drain().finally(() => {
      this.#working = undefined;
      this.#kick();
    });
  }

  async #drain(): Promise<void> {
    const retry = new Set<string>();
    // One live iteration visits what is added meanwhile too. Taking the first entry afresh each
    // time would be quadratic: a Set's iteration from its start steps over every entry deleted
    // before (100,000 objects to look at after a restart took seconds).
    for (const uid of this.#dirty) {
      if (this.#closed || this.#paused > 0) break;
      this.#dirty.delete(uid);
      try {
        if (!(await this.#process(uid))) retry.add(uid);
      } catch (e) {
        if (this.#closed) return;
        if (!isStoreConflictError(e) && !isStoreNotFoundError(e))
          process.emitWarning(`garbage collector: ${String(e)}`, 'GarbageCollectorWarning');
        retry.add(uid);
      }
    }
    if (retry.size > 0 && !this.#closed) {
      this.#retryTimer = setTimeout(() => {
        this.#retryTimer = undefined;
        for (const uid of retry) this.#dirty.add(uid);
        this.#kick();
      }, RETRY_MS);
      this.#retryTimer.unref();
    }
  }

  /** Looks at one object as an owner being deleted and as a dependent; false asks for another look later. */
  async #process(uid: string): Promise<boolean> {
    const node = this.#nodes.get(uid);
    if (!node) return true;
    if (node.deleting && node.finalizers.includes(ORPHAN_FINALIZER)) return this.#orphanDependents(node);
    if (node.deleting && node.finalizers.includes(FOREGROUND_FINALIZER)) return this.#deleteDependentsFirst(node);
    if (node.owners.length === 0 || node.deleting) return true;
    const solid: OwnerRef[] = [];
    const dangling: OwnerRef[] = [];
    const waiting: OwnerRef[] = [];
    for (const ref of node.owners) {
      const owner = this.#nodes.get(ref.uid);
      if (!owner || !ownerMayHold(owner, node)) dangling.push(ref);
      else if (owner.deleting && owner.finalizers.includes(FOREGROUND_FINALIZER)) waiting.push(ref);
      else solid.push(ref);
    }
    if (solid.length > 0) {
      if (dangling.length === 0 && waiting.length === 0) return true;
      const gone = new Set([...dangling, ...waiting].map((r) => r.uid));
      return this.#rewrite(node, (meta) => {
        meta.ownerReferences = refsOf(meta).filter((r) => !gone.has(r.uid));
      });
    }
    // Owned only by owners that are gone or deleting in the foreground: the dependent goes too,
    // in the foreground when its owner waits for it and it has dependents of its own.
    const foreground = waiting.length > 0 && (this.#dependents.get(uid)?.size ?? 0) > 0;
    return this.#delete(node, foreground);
  }

  async #orphanDependents(owner: Node): Promise<boolean> {
    for (const d of [...(this.#dependents.get(owner.uid) ?? [])]) {
      const node = this.#nodes.get(d);
      if (!node) continue;
      const done = await this.#rewrite(node, (meta) => {
        meta.ownerReferences = refsOf(meta).filter((r) => r.uid !== owner.uid);
      });
      if (!done) return false;
    }
    return this.#removeFinalizer(owner, ORPHAN_FINALIZER);
  }

  async #deleteDependentsFirst(owner: Node): Promise<boolean> {
    const dependents = [...(this.#dependents.get(owner.uid) ?? [])].map((d) => this.#nodes.get(d)).filter((n) => n !== undefined);
    for (const d of dependents) this.#dirty.add(d.uid);
    const blocking = dependents.some((d) => d.owners.some((o) => o.uid === owner.uid && o.blockOwnerDeletion === true));
    if (blocking) return true; // the dependents' deletions bring the owner back to the queue
    return this.#removeFinalizer(owner, FOREGROUND_FINALIZER);
  }

  /** Deletes a dependent: at once without finalizers, otherwise its first phase (a deletionTimestamp). */
  async #delete(node: Node, foreground: boolean): Promise<boolean> {
    const kv = await this.#store.get(node.key);
    if (!kv) return true;
    const object = JSON.parse(kv.value) as JsonApiObject;
    const meta = object.metadata ?? {};
    const finalizers = meta.finalizers ?? [];
    // Refused: looked at again after a while (not at the quick retry), so nothing more to do now.
    if (!(await this.#admitted(node, kv, foreground))) return true;
    const hooked = this.#deleteHook(node.key);
    if (hooked) {
      await hooked(object, kv);
      return true;
    }
    if (!foreground && finalizers.length === 0) {
      await this.#store.delete(node.key, { expectedModRevision: kv.modRevision });
      if (node.namespace) this.#context.hooks.namespaceChanged(node.namespace);
      return true;
    }
    // Already being deleted (another replica's collector, or a client, came first): a second
    // delete changes nothing, as the API's does not, unless the foreground finalizer is missing.
    const addForeground = foreground && !finalizers.includes(FOREGROUND_FINALIZER);
    if (meta.deletionTimestamp && !addForeground) return true;
    // A deletionTimestamp once set stays (upstream's graceful deletion only ever shortens it).
    const next = meta.deletionTimestamp ? structuredClone(object) : markDeleted(this.#context, object);
    if (addForeground) next.metadata!.finalizers = [...finalizers, FOREGROUND_FINALIZER];
    await this.#store.update(node.key, JSON.stringify(next), { expectedModRevision: kv.modRevision });
    return true;
  }

  /** The served storage version of the resource a key belongs to. */
  #resourceOf(key: string): ServedResource | undefined {
    return this.#context.registry.resources().find((s) => s.storageVersion === s && key.startsWith(s.storagePrefix));
  }

  /**
   * Whether admission lets the collector delete the object, as upstream's collector deletes through
   * the API; a refusal is reported once and the object looked at again after {@link REFUSED_RETRY_MS}.
   */
  async #admitted(node: Node, kv: KeyValue, foreground: boolean): Promise<boolean> {
    const r = this.#resourceOf(node.key);
    if (!r) return true;
    try {
      await admitControllerDelete(this.#context, 'generic-garbage-collector', {
        resource: r,
        namespace: node.namespace,
        old: await decodeObject(kv, r),
        propagationPolicy: foreground ? 'Foreground' : 'Background',
      });
      this.#refused.delete(node.uid);
      return true;
    } catch (e) {
      if (!(e instanceof StatusError)) throw e;
      if (!this.#refused.has(node.uid))
        process.emitWarning(`garbage collector: deleting ${node.key}: ${e.message}`, 'GarbageCollectorWarning');
      this.#refused.add(node.uid);
      // Asked again after a while rather than at the collector's quick retry: a refusal tends to last.
      setTimeout(() => {
        this.#dirty.add(node.uid);
        this.#kick();
      }, REFUSED_RETRY_MS).unref();
      return false;
    }
  }

  /** A kind whose deletion a hook takes over (a namespace's lifecycle) is deleted through it. */
  #deleteHook(key: string): ((object: JsonApiObject, kv: KeyValue) => Promise<void>) | undefined {
    const hooks = this.#context.hooks;
    const r = this.#resourceOf(key);
    const withDelete = r ? hooks.of(r).filter((h) => h.delete) : [];
    if (!r || withDelete.length === 0) return undefined;
    return async (object, kv) => {
      for (const h of withDelete) {
        const reply = await h.delete!(this.#context, {
          resource: r,
          namespace: object.metadata?.namespace,
          object,
          kv,
          dryRun: false,
        });
        if (reply) return;
      }
    };
  }

  async #removeFinalizer(node: Node, finalizer: string): Promise<boolean> {
    return this.#rewrite(node, (meta) => {
      meta.finalizers = (meta.finalizers ?? []).filter((f) => f !== finalizer);
    });
  }

  /**
   * Rewrites an object's metadata with a conditional write; an object being deleted whose last
   * finalizer goes is removed, as a client's update that clears it would remove it.
   */
  async #rewrite(node: Node, change: (meta: NonNullable<JsonApiObject['metadata']>) => void): Promise<boolean> {
    const kv = await this.#store.get(node.key);
    if (!kv) return true;
    const object = JSON.parse(kv.value) as JsonApiObject;
    object.metadata ??= {};
    change(object.metadata);
    if (Array.isArray(object.metadata.ownerReferences) && object.metadata.ownerReferences.length === 0)
      delete object.metadata.ownerReferences;
    if (Array.isArray(object.metadata.finalizers) && object.metadata.finalizers.length === 0) delete object.metadata.finalizers;
    if (object.metadata.deletionTimestamp && (object.metadata.finalizers ?? []).length === 0) {
      await this.#store.delete(node.key, { expectedModRevision: kv.modRevision });
      if (node.namespace) this.#context.hooks.namespaceChanged(node.namespace);
    } else {
      const text = JSON.stringify(object);
      // Nothing changed (another collector did it first): no write, no new resourceVersion.
      if (text !== kv.value) await this.#store.update(node.key, text, { expectedModRevision: kv.modRevision });
    }
    return true;
  }
}

/** A wait that does not keep the process alive (a server left open must not hang a test runner's exit). */
function pause(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}

/** A namespaced dependent is held by owners in its own namespace or cluster-scoped ones; never by another namespace's. */
function ownerMayHold(owner: Node, dependent: Node): boolean {
  return owner.namespace === undefined || owner.namespace === dependent.namespace;
}

interface StoredMeta {
  uid?: string;
  namespace?: string;
  finalizers?: unknown[];
  deletionTimestamp?: string;
  ownerReferences?: unknown[];
}

function metadataOf(value: string): StoredMeta | undefined {
  try {
    const meta = (JSON.parse(value) as { metadata?: StoredMeta }).metadata;
    return typeof meta === 'object' && meta !== null ? meta : undefined;
  } catch {
    return undefined;
  }
}

function ownerRefsOf(meta: StoredMeta): OwnerRef[] {
  return refsOf(meta).map((r) => ({ uid: r.uid, ...(r.blockOwnerDeletion === true ? { blockOwnerDeletion: true } : {}) }));
}

function refsOf(meta: { ownerReferences?: unknown[] }): (OwnerRef & Record<string, unknown>)[] {
  return (meta.ownerReferences ?? []).filter(
    (r): r is OwnerRef & Record<string, unknown> => typeof r === 'object' && r !== null && typeof (r as OwnerRef).uid === 'string',
  );
}
