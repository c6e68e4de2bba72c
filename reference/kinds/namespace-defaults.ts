/**
 * Two controllers of kube-controller-manager that give every namespace what clients expect in it:
 *
 * - serviceaccounts: the ServiceAccount `default` in every active namespace, created again when
 *   deleted (pkg/controller/serviceaccount/serviceaccounts_controller.go);
 * - root-ca-cert-publisher: the ConfigMap `kube-root-ca.crt` whose `ca.crt` is the CA clients
 *   verify the server with, put back when deleted or changed
 *   (pkg/controller/certificates/rootcacertpublisher/publisher.go); only when the server has one.
 *
 * Declared by the Namespace kind as the hook `namespace-defaults`. They follow namespaces, service
 * accounts and config maps in the store, as informers do, and write through admission as their
 * service accounts in kube-system; a terminating namespace gets nothing.
 */
import { randomUUID } from 'node:crypto';
import { type JsonApiObject, timestamp } from '../../runtime/api/index.js';
import { isStoreConflictError, isStoreKeyExistsError, type WatchEvent } from '../../runtime/store/index.js';
import { update as recordUpdate } from '../../runtime/apply/index.js';
import {
  admitControllerWrite,
  decodeObject,
  encodeObject,
  type HookHost,
  type KindHook,
  objectKey,
  type ServedResource,
  StoreFollower,
} from '../../runtime/server/index.js';

export const DEFAULT_SERVICE_ACCOUNT = 'default';
export const ROOT_CA_CONFIG_MAP = 'kube-root-ca.crt';
export const ROOT_CA_DESCRIPTION_ANNOTATION = 'kubernetes.io/description';
export const ROOT_CA_DESCRIPTION =
  'Contains a CA bundle that can be used to verify the kube-apiserver when using internal endpoints such as the internal service IP or kubernetes.default.svc. No other usage is guaranteed across distributions of Kubernetes clusters.';
/** The field manager upstream's controllers write as. */
const MANAGER = 'kube-controller-manager';

export interface NamespaceDefaultsOptions {
  /** The PEM CA published as `kube-root-ca.crt`; without one no ConfigMap is published. */
  rootCa?: string;
  /** false: neither controller runs (a server without a controller manager). */
  enabled?: boolean;
}

export function namespaceDefaults(options: NamespaceDefaultsOptions = {}): (host: HookHost) => KindHook {
  return (host) => (options.enabled === false ? {} : new NamespaceDefaults(host, options.rootCa).hook());
}

class NamespaceDefaults {
  readonly #host: HookHost;
  readonly #rootCa: string | undefined;
  readonly #accounts: ServedResource | undefined;
  readonly #configMaps: ServedResource | undefined;
  readonly #followers: StoreFollower[] = [];
  readonly #pending = new Set<string>();
  #running: Promise<void> | undefined;
  #paused = 0;
  #closed = false;

  constructor(host: HookHost, rootCa: string | undefined) {
    this.#host = host;
    this.#rootCa = rootCa;
    const storage = (r: ServedResource | undefined) => r && (r.storageVersion ?? r);
    this.#accounts = storage(host.context.registry.get('', 'v1', 'serviceaccounts'));
    this.#configMaps = rootCa === undefined ? undefined : storage(host.context.registry.get('', 'v1', 'configmaps'));
  }

  hook(): KindHook {
    return {
      resume: () => this.#start(),
      idle: () => this.#idle(),
      pause: async () => {
        this.#paused++;
        await this.#drained();
        return () => {
          this.#paused--;
          for (const namespace of this.#pending) this.#kick(namespace);
        };
      },
      close: () => {
        this.#closed = true;
        for (const f of this.#followers) f.stop();
      },
    };
  }

  async #start(): Promise<void> {
    const namespaces = this.#host.declaring;
    const follow = (prefix: string, kicked: (event: WatchEvent) => void) => {
      const follower = new StoreFollower(this.#host.context.store, prefix, {
        listed: async () => this.#kickAll(),
        changed: kicked,
        settle: () => this.#idle(),
      });
      this.#followers.push(follower);
      return follower.start();
    };
    await follow(namespaces.storagePrefix, (e) => this.#kick(e.key.slice(namespaces.storagePrefix.length)));
    for (const [r, name] of [
      [this.#accounts, DEFAULT_SERVICE_ACCOUNT],
      [this.#configMaps, ROOT_CA_CONFIG_MAP],
    ] as const) {
      if (!r) continue;
      await follow(r.storagePrefix, (e) => {
        const [namespace, object] = e.key.slice(r.storagePrefix.length).split('/');
        if (object === name && e.type === 'delete') this.#kick(namespace!);
        else if (object === name && r === this.#configMaps) this.#kick(namespace!);
      });
    }
  }

  /** Every namespace looked at now (at start, after a relist, and when a test waits). */
  async #kickAll(): Promise<void> {
    const { items } = await this.#host.context.store.list(this.#host.declaring.storagePrefix);
    for (const kv of items) this.#kick(kv.key.slice(this.#host.declaring.storagePrefix.length));
    await this.#drained();
  }

  /** Every namespace has its defaults once this resolves (each is looked at again: a change may not have reached the watch yet). */
  async #idle(): Promise<void> {
    if (this.#closed || this.#paused > 0 || this.#followers.length === 0) return;
    await this.#kickAll();
  }

  async #drained(): Promise<void> {
    while (this.#running) await this.#running;
  }

  #kick(namespace: string): void {
    if (this.#closed) return;
    this.#pending.add(namespace);
    if (this.#paused > 0) return;
    this.#running ??= this.#drain().finally(() => {
      this.#running = undefined;
    });
  }

  async #drain(): Promise<void> {
    while (this.#pending.size > 0 && !this.#closed && this.#paused === 0) {
      const [namespace] = this.#pending;
      this.#pending.delete(namespace!);
      await this.#sync(namespace!).catch((e: unknown) => {
        // Refused by admission or the store: the next change or wait looks again, as a requeue.
        process.stderr.write(`namespace defaults of ${namespace}: ${String(e)}\n`);
      });
    }
  }

  async #sync(namespace: string): Promise<void> {
    const { store } = this.#host.context;
    const nsKv = await store.get(objectKey(this.#host.declaring, undefined, namespace));
    if (!nsKv) return;
    const ns = await decodeObject(nsKv, this.#host.declaring);
    if (ns.metadata?.deletionTimestamp) return;
    if (this.#accounts) await this.#ensureAccount(this.#accounts, namespace);
    if (this.#configMaps) await this.#publishRootCa(this.#configMaps, namespace, this.#rootCa!);
  }

  async #ensureAccount(r: ServedResource, namespace: string): Promise<void> {
    if (await this.#host.context.store.get(objectKey(r, namespace, DEFAULT_SERVICE_ACCOUNT))) return;
    await this.#create(r, 'service-account-controller', {
      apiVersion: r.apiVersion,
      kind: r.kind,
      metadata: { name: DEFAULT_SERVICE_ACCOUNT, namespace },
    });
  }

  async #publishRootCa(r: ServedResource, namespace: string, ca: string): Promise<void> {
    const { store } = this.#host.context;
    const key = objectKey(r, namespace, ROOT_CA_CONFIG_MAP);
    const kv = await store.get(key);
    const data = { 'ca.crt': ca };
    if (!kv) {
      await this.#create(r, 'root-ca-cert-publisher', {
        apiVersion: r.apiVersion,
        kind: r.kind,
        metadata: { name: ROOT_CA_CONFIG_MAP, namespace, annotations: { [ROOT_CA_DESCRIPTION_ANNOTATION]: ROOT_CA_DESCRIPTION } },
        data,
      });
      return;
    }
    const live = await decodeObject(kv, r);
    const liveData = (live.data ?? {}) as Record<string, string>;
    const same = Object.keys(liveData).length === 1 && liveData['ca.crt'] === ca;
    if (same && live.metadata?.annotations?.[ROOT_CA_DESCRIPTION_ANNOTATION]) return;
    const next: JsonApiObject = {
      ...live,
      metadata: { ...live.metadata, annotations: { ...live.metadata?.annotations, [ROOT_CA_DESCRIPTION_ANNOTATION]: ROOT_CA_DESCRIPTION } },
      data,
    };
    await this.#write(r, 'root-ca-cert-publisher', key, next, live, kv.modRevision);
  }

  /** A create as upstream's: the server sets the uid and creation time; another writer's object wins. */
  async #create(r: ServedResource, controller: string, object: JsonApiObject): Promise<void> {
    const meta = object.metadata!;
    meta.uid = randomUUID();
    meta.creationTimestamp = timestamp(this.#host.context.settings.now());
    await this.#write(r, controller, objectKey(r, meta.namespace, meta.name!), object, undefined, undefined);
  }

  async #write(
    r: ServedResource,
    controller: string,
    key: string,
    object: JsonApiObject,
    live: JsonApiObject | undefined,
    modRevision: number | undefined,
  ): Promise<void> {
    const { context } = this.#host;
    const admitted = await admitControllerWrite(context, controller, { resource: r, object, ...(live ? { old: live } : {}) });
    const owned = recordUpdate(live as never, admitted as never, MANAGER, {
      schema: r.registration.schema,
      custom: r.descriptor.custom,
      apiVersion: r.apiVersion,
      now: context.settings.now(),
    }) as unknown as JsonApiObject;
    try {
      const value = await encodeObject(owned, r);
      if (modRevision === undefined) await context.store.create(key, value);
      else await context.store.update(key, value, { expectedModRevision: modRevision });
    } catch (e) {
      // Written meanwhile by someone else: its own event brings the namespace back if needed.
      if (!isStoreKeyExistsError(e) && !isStoreConflictError(e)) throw e;
    }
  }
}
