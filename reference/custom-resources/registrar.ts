import { type JsonApiObject, timestamp } from '../../runtime/api/index.js';
import type { KeyValue } from '../../runtime/store/index.js';
import {
  type CustomResourceHost,
  decodeObject,
  encodeObject,
  type ServedResource,
  type ServerContext,
  storagePrefixOf,
  StoreFollower,
} from '../../runtime/server/index.js';
import { type WebhookConversionSpec, webhookConverter } from './conversion-webhook.js';
import { type Definition, isRecord } from './definition-errors.js';

/**
 * The finalizer that keeps a deleted definition until its objects are gone, as upstream's: named
 * in the definitions' own group (`customresourcecleanup.apiextensions.k8s.io` under k8s.io).
 */
export function cleanupFinalizer(definitionsGroup: string): string {
  return `customresourcecleanup.${definitionsGroup}`;
}

interface Condition {
  type: string;
  status: 'True' | 'False';
  reason: string;
  message: string;
  lastTransitionTime?: string;
}

/** What one definition currently serves. */
interface Served {
  group: string;
  plural: string;
  /** The accepted names, for conflicts with other definitions of the group. */
  names: string[];
  kinds: string[];
  /** The spec it was compiled from: an update that changes nothing else keeps the compiled kinds. */
  spec: string;
  openApiKeys: string[];
}

/**
 * Serves what the stored CustomResourceDefinitions define, as upstream's establishing, naming and
 * finalizing controllers do: it watches the definitions, accepts a definition's names unless
 * another one of the group already uses them (NamesAccepted), compiles its kinds and puts them in
 * the registry and its documents in /openapi/v3 (Established); a deleted definition's resource is
 * withdrawn and its objects removed before the cleanup finalizer is.
 */
export class Registrar {
  readonly #served = new Map<string, Served>();
  /** Per OpenAPI path, the document of each definition: definitions of one group/version share a document. */
  readonly #documents = new Map<string, Map<string, Loader>>();
  #queue: Promise<void> = Promise.resolve();
  readonly #follower: StoreFollower;

  constructor(
    private readonly context: Omit<ServerContext, 'hooks'>,
    private readonly host: CustomResourceHost,
    private readonly definitions: ServedResource,
  ) {
    this.#follower = new StoreFollower(context.store, definitions.storagePrefix, {
      listed: (items) => this.resync(items),
      changed: (event) => this.enqueue(event.key),
      settle: () => this.#queue,
    });
  }

  /** Serves the stored definitions, then follows their changes. */
  start(): Promise<void> {
    return this.#follower.start();
  }

  /** Reconciles every stored definition, and withdraws those no longer stored. */
  private async resync(items: readonly KeyValue[]): Promise<void> {
    const names = new Set(items.map((kv) => kv.key));
    for (const kv of items) await this.reconcile(kv.key);
    for (const name of this.#served.keys()) if (!names.has(this.definitions.storagePrefix + name)) this.withdraw(name);
  }

  stop(): void {
    this.#follower.stop();
  }

  /** Resolves once every change seen so far is served. */
  idle(): Promise<void> {
    return this.#queue;
  }

  private enqueue(key: string): void {
    this.#queue = this.#queue
      .then(() => this.reconcile(key))
      .catch((e: unknown) => this.log(`CustomResourceDefinition ${key}: ${String(e)}`));
  }

  private async reconcile(key: string): Promise<void> {
    const kv = await this.context.store.get(key);
    const name = key.slice(this.definitions.storagePrefix.length);
    if (!kv) {
      this.withdraw(name);
      return;
    }
    const crd = await decodeObject(kv, this.definitions);
    if (crd.metadata?.deletionTimestamp) await this.finalize(name, crd, kv);
    else await this.serve(name, crd, kv);
  }

  private async serve(name: string, crd: JsonApiObject, kv: KeyValue): Promise<void> {
    const spec = (crd.spec ?? {}) as Definition;
    const names = (spec.names ?? {}) as Record<string, unknown>;
    const group = String(spec.group);
    const plural = String(names.plural);
    const accepted = acceptedNamesOf(names);
    const conflict = this.conflict(name, group, accepted);
    const status = isRecord(crd.status) ? { ...crd.status } : {};
    let conditions: Condition[];
    if (conflict) {
      conditions = [
        { type: 'NamesAccepted', status: 'False', reason: conflict.reason, message: conflict.message },
        { type: 'Established', status: 'False', reason: 'NotAccepted', message: 'not all names are accepted' },
      ];
    } else {
      const error = await this.register(name, group, plural, accepted, crd);
      conditions = [
        { type: 'NamesAccepted', status: 'True', reason: 'NoConflicts', message: 'no conflicts found' },
        error === undefined
          ? { type: 'Established', status: 'True', reason: 'InitialNamesAccepted', message: 'the initial names have been accepted' }
          : { type: 'Established', status: 'False', reason: 'InstallationFailure', message: error },
      ];
      status.acceptedNames = accepted;
      const storage = (Array.isArray(spec.versions) ? spec.versions : []).find((v) => isRecord(v) && v.storage === true) as
        | { name?: string }
        | undefined;
      const stored = Array.isArray(status.storedVersions) ? (status.storedVersions as string[]) : [];
      if (storage?.name && !stored.includes(storage.name)) status.storedVersions = [...stored, storage.name];
    }
    status.conditions = this.transitions(crd, conditions);
    await this.writeStatus(crd, kv, status);
  }

  /** Compiles and serves the definition's kinds (unless its spec is unchanged); the failure, if any. */
  private async register(
    name: string,
    group: string,
    plural: string,
    names: Record<string, unknown>,
    crd: JsonApiObject,
  ): Promise<string | undefined> {
    const spec = JSON.stringify(crd.spec);
    const current = this.#served.get(name);
    if (current?.spec === spec) return undefined;
    let defined: Awaited<ReturnType<CustomResourceHost['compile']>>;
    try {
      defined = await this.host.compile(crd);
    } catch (e) {
      return e instanceof Error ? e.message : String(e);
    }
    if (current) this.unpublish(name, current.openApiKeys);
    const conversion = (crd.spec as Definition).conversion;
    // ConversionReview belongs to the definitions' own group, whichever suffix it is served under.
    const webhook =
      conversion?.strategy === 'Webhook' && isRecord(conversion.webhook)
        ? webhookConverter(conversion.webhook as WebhookConversionSpec, this.definitions.group)
        : undefined;
    this.context.registry.replace(group, plural, defined.kinds, webhook);
    for (const [key, loader] of Object.entries(defined.openApiDocuments)) {
      const byDefinition = this.#documents.get(key) ?? new Map<string, Loader>();
      this.#documents.set(key, byDefinition.set(name, loader));
      this.host.openApi.publish({ [key]: merged([...byDefinition.values()]) });
    }
    this.#served.set(name, {
      group,
      plural,
      names: namesOf(names),
      kinds: [names.kind, names.listKind].map(String),
      spec,
      openApiKeys: Object.keys(defined.openApiDocuments),
    });
    return undefined;
  }

  /** Another definition of the group already serving one of these names (upstream's NamingConditionController). */
  private conflict(name: string, group: string, names: Record<string, unknown>): { reason: string; message: string } | undefined {
    const wanted = namesOf(names);
    for (const [other, served] of this.#served) {
      if (other === name || served.group !== group) continue;
      const plural = String(names.plural);
      if (served.names.includes(plural)) return { reason: 'PluralConflict', message: `"${plural}" is already in use` };
      const taken = wanted.find((n) => served.names.includes(n));
      if (taken) return { reason: 'ShortNamesConflict', message: `"${taken}" is already in use` };
      const kind = [names.kind, names.listKind].map(String).find((k) => served.kinds.includes(k));
      if (kind) return { reason: 'KindConflict', message: `"${kind}" is already in use` };
    }
    // A built-in resource of the group (not one of the definitions) keeps its plural.
    const builtIn = this.context.registry
      .resources()
      .find((r) => r.group === group && r.resource === String(names.plural) && !r.descriptor.custom);
    if (builtIn) return { reason: 'PluralConflict', message: `"${builtIn.resource}" is already in use` };
    return undefined;
  }

  private withdraw(name: string): void {
    const served = this.#served.get(name);
    if (!served) return;
    this.context.registry.remove(served.group, served.plural);
    this.unpublish(name, served.openApiKeys);
    this.#served.delete(name);
    // Its names are free again: a definition refused for a conflict with it may now be accepted.
    void this.context.store
      .list(this.definitions.storagePrefix)
      .then((listed) => {
        for (const kv of listed.items) if (!this.#served.has(kv.key.slice(this.definitions.storagePrefix.length))) this.enqueue(kv.key);
      })
      .catch((e: unknown) => this.log(`listing CustomResourceDefinitions failed: ${String(e)}`));
  }

  private unpublish(name: string, keys: readonly string[]): void {
    for (const key of keys) {
      const byDefinition = this.#documents.get(key);
      byDefinition?.delete(name);
      if (byDefinition && byDefinition.size > 0) this.host.openApi.publish({ [key]: merged([...byDefinition.values()]) });
      else {
        this.#documents.delete(key);
        this.host.openApi.withdraw([key]);
      }
    }
  }

  /** A deleted definition: stop serving it, remove its objects, then let it go. */
  private async finalize(name: string, crd: JsonApiObject, kv: KeyValue): Promise<void> {
    const spec = (crd.spec ?? {}) as Definition;
    this.withdraw(name);
    const finalizers = crd.metadata?.finalizers ?? [];
    const cleanup = cleanupFinalizer(this.definitions.group);
    if (!finalizers.includes(cleanup)) return;
    const { store } = this.context;
    const prefix = storagePrefixOf(String(spec.group), String(spec.names?.plural), true);
    for (const item of (await store.list(prefix)).items) {
      await store.delete(item.key).catch(() => undefined); // gone already: someone else deleted it
    }
    const rest = finalizers.filter((f) => f !== cleanup);
    if (rest.length === 0) {
      await store.delete(kv.key, { expectedModRevision: kv.modRevision }).catch(() => undefined); // changed meanwhile: its event comes next
      return;
    }
    const next = structuredClone(crd);
    next.metadata = { ...next.metadata, finalizers: rest };
    await this.write(next, kv);
  }

  /** Conditions keep their transition time while their status stays. */
  private transitions(crd: JsonApiObject, conditions: Condition[]): Condition[] {
    const old = Array.isArray((crd.status as { conditions?: unknown } | undefined)?.conditions)
      ? ((crd.status as { conditions: Condition[] }).conditions ?? [])
      : [];
    const now = timestamp(this.context.settings.now());
    return conditions.map((c) => {
      const before = old.find((o) => o.type === c.type);
      return { ...c, lastTransitionTime: before?.status === c.status && before.lastTransitionTime ? before.lastTransitionTime : now };
    });
  }

  private async writeStatus(crd: JsonApiObject, kv: KeyValue, status: Record<string, unknown>): Promise<void> {
    if (JSON.stringify(status) === JSON.stringify(crd.status ?? {})) return;
    await this.write({ ...crd, status }, kv);
  }

  private async write(crd: JsonApiObject, kv: KeyValue): Promise<void> {
    // A conflict means the definition changed meanwhile; its own event reconciles it again.
    await this.context.store
      .update(kv.key, await encodeObject(crd, this.definitions), { expectedModRevision: kv.modRevision })
      .catch(() => undefined);
  }

  private log(line: string): void {
    process.stderr.write(`${line}\n`);
  }
}

type Loader = () => Promise<Record<string, unknown>>;

/** One group/version's document from each definition's: their paths and component schemas together. */
function merged(loaders: readonly Loader[]): Loader {
  return async () => {
    const docs = await Promise.all(loaders.map((load) => load()));
    const paths: Record<string, unknown> = {};
    const schemas: Record<string, unknown> = {};
    for (const doc of docs) {
      Object.assign(paths, doc.paths);
      Object.assign(schemas, (doc.components as { schemas?: object } | undefined)?.schemas);
    }
    const first = docs[0] ?? {};
    return { ...first, paths, components: { ...(first.components as object | undefined), schemas } };
  };
}

/** spec.names with upstream's defaults: singular the lowercased kind, listKind `<kind>List`. */
function acceptedNamesOf(names: Record<string, unknown>): Record<string, unknown> {
  const kind = String(names.kind);
  const out: Record<string, unknown> = {
    ...names,
    singular: names.singular || kind.toLowerCase(),
    listKind: names.listKind || `${kind}List`,
  };
  return out;
}

function namesOf(names: Record<string, unknown>): string[] {
  const shortNames = Array.isArray(names.shortNames) ? names.shortNames.map(String) : [];
  return [String(names.plural), String(names.singular), ...shortNames];
}
