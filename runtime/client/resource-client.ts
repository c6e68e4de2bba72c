import { pathFor } from '../api/index.js';
import { Informer, type InformerOptions } from './informer.js';
import {
  type ApplyOptions,
  type DeleteCollectionOptions,
  type DeleteOptions,
  type GetOptions,
  type ListOptions,
  type PatchOptions,
  type WriteOptions,
  deleteBody,
  readQuery,
  writeQuery,
} from './options.js';
import { type ListAllOptions, listPages } from './pager.js';
import type { ApplyConfiguration, JsonPatchOperation, MergePatch, StrategicMergePatch } from './patch-types.js';
import { type ReflectOptions, type WatchSource, reflect } from './reflector.js';
import { ServedNames } from './served-names.js';
import type { ApiRequest, HttpMethod, Transport } from './transport.js';
import {
  type ApiObject,
  type ObjectEvent,
  type ObjectList,
  type ResourceInfo,
  type SuccessStatus,
  type TokenRequest,
  type TokenRequestSpec,
  type WatchEvent,
  objectKey,
} from './types.js';

export const PATCH_CONTENT_TYPES = {
  json: 'application/json-patch+json',
  merge: 'application/merge-patch+json',
  strategic: 'application/strategic-merge-patch+json',
  apply: 'application/apply-patch+yaml',
} as const;

export interface WatchOptions<T> extends ReflectOptions {
  /** Also yield BOOKMARK events (they are always requested, and used to advance the resume point). */
  bookmarks?: boolean;
  /**
   * With `resourceVersion`: the objects the caller already holds (from its list), so that a
   * resync after 410 can report the ones deleted meanwhile.
   */
  known?: Iterable<T>;
}

/**
 * The generic client of one resource, in one namespace or across all: every verb of the protocol.
 * Generated typed clients hand it the resource's identity and types (as client-go's generated
 * clients hand theirs to gentype); all behaviour lives here.
 */
export class ResourceClient<T extends ApiObject, L extends ObjectList<T> = ObjectList<T>> {
  /** The resource as the server serves it: its group under the transport's group suffix. */
  readonly info: ResourceInfo;
  readonly #names: ServedNames;

  constructor(
    readonly transport: Transport,
    info: ResourceInfo,
    /** Undefined for cluster-scoped resources and for namespaced ones across all namespaces. */
    readonly namespace: string | undefined,
  ) {
    this.#names = new ServedNames(info, transport.groupSuffix);
    this.info = this.#names.info;
  }

  /** GET one object. */
  get(name: string, options: GetOptions = {}): Promise<T> {
    return this.call('GET', { name, query: readQuery(options), options });
  }

  /**
   * One list response (one page when `limit` is set). With `resourceVersionMatch: 'Exact'` and no
   * limit the collection version is checked, and a server that did not honour it is asked again
   * with paging, which it serves exactly (the spec's client duty).
   */
  async list(options: ListOptions = {}): Promise<L> {
    const list = await this.call<L>('GET', { query: readQuery(options), options });
    const wanted = options.resourceVersion;
    if (options.resourceVersionMatch !== 'Exact' || options.limit !== undefined || !wanted || list.metadata?.resourceVersion === wanted)
      return list;
    const items: T[] = [];
    let last = list;
    for await (const page of listPages((o) => this.call<L>('GET', { query: readQuery(o), options: o }), { ...options })) {
      items.push(...page.items);
      last = page;
    }
    return { ...last, metadata: { ...last.metadata, continue: '' }, items };
  }

  /** Every page of the collection, following continue tokens; see listPages for the 410 handling. */
  listAll(options: ListAllOptions = {}): AsyncGenerator<L, void, undefined> {
    return listPages((o) => this.list(o), options);
  }

  /**
   * The collection's changes as typed events, forever: without `resourceVersion` it first reports
   * the current state as ADDED events, then every change; it resumes after disconnects and resyncs
   * after 410, never dropping or repeating a change. It ends when the caller breaks out of the
   * loop or aborts `signal`, and throws only non-retryable errors.
   */
  watch(options: WatchOptions<T> & { bookmarks: true }): AsyncGenerator<WatchEvent<T>, void, undefined>;
  watch(options?: WatchOptions<T>): AsyncGenerator<ObjectEvent<T>, void, undefined>;
  async *watch(options: WatchOptions<T> = {}): AsyncGenerator<WatchEvent<T>, void, undefined> {
    const store = new Map<string, T>();
    for (const object of options.known ?? []) store.set(objectKey(object), object);
    for await (const event of reflect(this.watchSource(), options, store)) {
      if (event.type === 'SYNCED') continue;
      if (event.type === 'BOOKMARK') {
        if (options.bookmarks) yield event;
        continue;
      }
      yield { type: event.type, object: event.object };
    }
  }

  /** A cache of the collection kept in sync by list and watch; call `start()`. */
  informer(options: InformerOptions<T> = {}): Informer<T> {
    return new Informer<T>(this.watchSource(), options);
  }

  /** POST a new object. */
  create(object: T, options: WriteOptions = {}): Promise<T> {
    return this.call('POST', { body: this.typed(object), query: writeQuery(options), options });
  }

  /** PUT the whole object; its metadata.resourceVersion guards against lost updates (409). */
  update(object: T, options: WriteOptions = {}): Promise<T> {
    return this.call('PUT', { name: nameOf(object), body: this.typed(object), query: writeQuery(options), options });
  }

  /** GET the status subresource. */
  getStatus(name: string, options: GetOptions = {}): Promise<T> {
    return this.call('GET', { name, subresource: 'status', query: readQuery(options), options });
  }

  /** PUT the status subresource: only the status of `object` is written. */
  updateStatus(object: T, options: WriteOptions = {}): Promise<T> {
    return this.call('PUT', { name: nameOf(object), subresource: 'status', body: this.typed(object), query: writeQuery(options), options });
  }

  /** JSON Patch (RFC 6902): operations on JSON Pointers, with `test` conditions. */
  jsonPatch(name: string, operations: readonly JsonPatchOperation[], options: PatchOptions = {}): Promise<T> {
    return this.patch(name, operations, PATCH_CONTENT_TYPES.json, options);
  }

  /** JSON Merge Patch (RFC 7386): fields merged, `null` removes, lists replaced whole. */
  mergePatch(name: string, patch: MergePatch<T>, options: PatchOptions = {}): Promise<T> {
    return this.patch(name, patch, PATCH_CONTENT_TYPES.merge, options);
  }

  /** Strategic merge patch: lists merged by their keys. Built-in kinds only (never custom resources). */
  strategicMergePatch(name: string, patch: StrategicMergePatch<T>, options: PatchOptions = {}): Promise<T> {
    if (this.info.custom)
      throw new TypeError(
        `${this.info.resource}.${this.info.group} is a custom resource: strategic merge patch is not served for it; use mergePatch or apply`,
      );
    return this.patch(name, patch, PATCH_CONTENT_TYPES.strategic, options);
  }

  /**
   * Server-side apply: `configuration` is the full intent of `fieldManager`. Creates the object when
   * it is absent; a field another manager owns fails with a 409 StatusError (one cause per field)
   * unless `force`.
   */
  apply(configuration: ApplyConfiguration<T>, options: ApplyOptions): Promise<T> {
    if (!options.fieldManager) throw new TypeError('apply needs a fieldManager');
    return this.patch(configuration.metadata.name, configuration, PATCH_CONTENT_TYPES.apply, options);
  }

  /** Server-side apply to the status subresource. */
  applyStatus(configuration: ApplyConfiguration<T>, options: ApplyOptions): Promise<T> {
    return this.apply(configuration, { ...options, subresource: 'status' });
  }

  /** DELETE one object: the object (while finalizers hold it) or a success Status. */
  delete(name: string, options: DeleteOptions = {}): Promise<T | SuccessStatus> {
    const body = deleteBody(options);
    return this.call('DELETE', { name, ...(body ? { body } : {}), query: new URLSearchParams(), options });
  }

  /** DELETE every object that matches the selectors; answers the deleted objects. */
  deleteCollection(options: DeleteCollectionOptions = {}): Promise<L> {
    const body = deleteBody(options);
    return this.call('DELETE', { ...(body ? { body } : {}), query: readQuery(options), options });
  }

  /** POST an Eviction to the pod's eviction subresource (API-initiated eviction). */
  async evict(name: string, options: DeleteOptions = {}): Promise<void> {
    const deleteOptions = deleteBody(options);
    const body = {
      apiVersion: 'policy/v1',
      kind: 'Eviction',
      metadata: { name, ...(this.namespace ? { namespace: this.namespace } : {}) },
      ...(deleteOptions ? { deleteOptions } : {}),
    };
    await this.call('POST', { name, subresource: 'eviction', body, query: writeQuery(options), options });
  }

  /**
   * POST a TokenRequest to a service account's token subresource: a signed token
   * (`status.token`) that expires at `status.expirationTimestamp`, for `spec.audiences` (default
   * the API server's), bound to `spec.boundObjectRef` (a Pod or Secret) if given. The body names no
   * apiVersion: the server serves TokenRequest under its own group names.
   */
  createToken(name: string, spec: TokenRequestSpec = {}, options: WriteOptions = {}): Promise<TokenRequest> {
    const body = { kind: 'TokenRequest', metadata: { name, ...(this.namespace ? { namespace: this.namespace } : {}) }, spec };
    return this.call('POST', { name, subresource: 'token', body, query: writeQuery(options), options });
  }

  /** PUT the finalize subresource (a namespace's spec.finalizers). */
  finalize(object: T, options: WriteOptions = {}): Promise<T> {
    return this.call('PUT', { name: nameOf(object), subresource: 'finalize', body: object, query: writeQuery(options), options });
  }

  /**
   * The object with the resource's apiVersion and kind filled in where the caller left them out:
   * JSON servers infer them from the path, but a Protobuf envelope must name them.
   */
  private typed(object: T): T {
    const o = object as { apiVersion?: string; kind?: string };
    if (o.apiVersion !== undefined && o.kind !== undefined) return object;
    const { group, version, kind } = this.info;
    return { apiVersion: group === '' ? version : `${group}/${version}`, kind, ...object };
  }

  private patch(name: string, body: unknown, contentType: string, options: PatchOptions & { force?: boolean }): Promise<T> {
    return this.call('PATCH', { name, subresource: options.subresource, body, contentType, query: writeQuery(options), options });
  }

  private call<R>(
    method: HttpMethod,
    r: {
      name?: string;
      subresource?: string | undefined;
      body?: unknown;
      contentType?: string;
      query: URLSearchParams;
      options: { signal?: AbortSignal; timeoutMs?: number };
    },
  ): Promise<R> {
    const req: ApiRequest = { method, path: this.path(r.name, r.subresource), query: r.query, resource: this.info };
    if (r.body !== undefined) req.body = this.#names.toServed(r.body);
    if (r.contentType !== undefined) req.contentType = r.contentType;
    if (r.options.signal) req.signal = r.options.signal;
    if (r.options.timeoutMs !== undefined) req.timeoutMs = r.options.timeoutMs;
    return this.transport.request<R>(req).then((answer) => this.#names.toSpec(answer));
  }

  private path(name?: string, subresource?: string): string {
    const { group, version, resource } = this.info;
    return pathFor({
      group,
      version,
      resource,
      ...(this.namespace !== undefined ? { namespace: this.namespace } : {}),
      ...(name !== undefined ? { name } : {}),
      ...(subresource !== undefined ? { subresource } : {}),
    });
  }

  private watchSource(): WatchSource<T> {
    const key = `watch-list ${this.info.group}/${this.info.version}/${this.info.resource}`;
    return {
      list: (o) => this.list(o),
      open: async (query, signal) => {
        const events = await this.transport.stream({ method: 'GET', path: this.path(), query, resource: this.info, signal });
        const names = this.#names;
        if (!names.renames) return events;
        return (async function* () {
          for await (const event of events) yield names.eventToSpec(event);
        })();
      },
      initialEventsRefused: { has: () => this.transport.refused.has(key), set: () => this.transport.refused.add(key) },
    };
  }
}

function nameOf(object: ApiObject): string {
  const name = object.metadata?.name;
  if (!name) throw new TypeError('the object has no metadata.name');
  return name;
}
