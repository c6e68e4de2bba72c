/**
 * The RBAC authorizer's view of the server's own Role, ClusterRole, RoleBinding and
 * ClusterRoleBinding objects (upstream reads them from informer caches). Here a snapshot of the
 * four collections is kept and read again whenever the store's revision has moved, so a binding
 * created through the API takes effect for the very next request, with no watch lag; while nothing
 * is written (the common case for reads) a request costs one revision read.
 */
import { type BindingObject, RBAC_GROUP, type RbacLister, type RoleObject } from '../../runtime/auth/index.js';
import type { Store } from '../../runtime/store/index.js';
import { decodeObjects, type ServerContext } from '../../runtime/server/index.js';

interface Snapshot {
  readonly revision: number;
  readonly roles: ReadonlyMap<string, RoleObject>;
  readonly clusterRoles: ReadonlyMap<string, RoleObject>;
  readonly roleBindings: ReadonlyMap<string, readonly BindingObject[]>;
  readonly clusterRoleBindings: readonly BindingObject[];
}

export class StoreRbacLister implements RbacLister {
  #snapshot: Snapshot | undefined;
  #loading: Promise<Snapshot> | undefined;

  /** `server` is read lazily: the lister is made before the server whose store and registry it reads. */
  constructor(private readonly server: () => Pick<ServerContext, 'store' | 'registry'>) {}

  async #read(store: Store, plural: string): Promise<Record<string, unknown>[]> {
    const { registry } = this.server();
    const r = registry.get(registry.servedGroup(RBAC_GROUP), 'v1', plural);
    if (!r) return [];
    const { items } = await store.list(r.storagePrefix);
    return decodeObjects(items, r);
  }

  async #load(store: Store, revision: number): Promise<Snapshot> {
    const [roles, clusterRoles, roleBindings, clusterRoleBindings] = await Promise.all(
      ['roles', 'clusterroles', 'rolebindings', 'clusterrolebindings'].map((p) => this.#read(store, p)),
    );
    const byNamespace = new Map<string, BindingObject[]>();
    for (const b of roleBindings as unknown as BindingObject[]) {
      const ns = b.metadata.namespace ?? '';
      byNamespace.set(ns, [...(byNamespace.get(ns) ?? []), b]);
    }
    return {
      revision,
      roles: new Map((roles as unknown as RoleObject[]).map((r) => [`${r.metadata.namespace}/${r.metadata.name}`, r])),
      clusterRoles: new Map((clusterRoles as unknown as RoleObject[]).map((r) => [r.metadata.name, r])),
      roleBindings: byNamespace,
      clusterRoleBindings: clusterRoleBindings as unknown as BindingObject[],
    };
  }

  /** The snapshot at the store's current revision (concurrent callers share one reload). */
  async #current(): Promise<Snapshot> {
    const store = this.server().store;
    const revision = await store.currentRevision();
    if (this.#snapshot && this.#snapshot.revision === revision) return this.#snapshot;
    if (!this.#loading) {
      this.#loading = this.#load(store, revision).finally(() => {
        this.#loading = undefined;
      });
    }
    const loaded = await this.#loading;
    // A reload started at an older revision may finish after a newer one: keep the newest.
    if (!this.#snapshot || loaded.revision >= this.#snapshot.revision) this.#snapshot = loaded;
    return loaded.revision >= revision ? loaded : this.#current();
  }

  async clusterRoleBindings(): Promise<readonly BindingObject[]> {
    return (await this.#current()).clusterRoleBindings;
  }
  async roleBindings(namespace: string): Promise<readonly BindingObject[]> {
    return (await this.#current()).roleBindings.get(namespace) ?? [];
  }
  async clusterRole(name: string): Promise<RoleObject | undefined> {
    return (await this.#current()).clusterRoles.get(name);
  }
  async clusterRoles(): Promise<readonly RoleObject[]> {
    return [...(await this.#current()).clusterRoles.values()];
  }
  async role(namespace: string, name: string): Promise<RoleObject | undefined> {
    return (await this.#current()).roles.get(`${namespace}/${name}`);
  }
}
