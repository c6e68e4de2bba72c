import {
  type JsonApiObject,
  badRequest,
  selectableFieldsOf,
  notFound,
  parseFieldSelector,
  parseLabelSelector,
  tooOldResourceVersion,
} from '../api/index.js';
import { decodeContinueToken, encodeContinueToken, type KeyValue } from '../store/index.js';
import type { RequestContext, ServerContext, Target } from './context.js';
import type { Reply } from './http.js';
import { collectionPrefix, decodeObject, decodeObjects, objectKey } from './objects.js';
import type { GetOptions, ReadOptions } from './query.js';
import type { ServedResource } from './resources.js';
import { JsonTextReply, storedObjectReply } from './served-json.js';
import { servedTextOf } from './stored-text.js';
import { awaitRevision, fromStoreError, fromTokenError, parseRevision } from './versions.js';

/** get: Most Recent when unset, Any for "0", Not older than for any other version. */
export function getObject(ctx: RequestContext, t: Target, opts: GetOptions): Reply | Promise<Reply> {
  if (opts.resourceVersion !== undefined && opts.resourceVersion !== '' && opts.resourceVersion !== '0') {
    const revision = parseRevision(opts.resourceVersion);
    return awaitRevision(ctx, revision).then(() => currentObject(ctx, t));
  }
  return currentObject(ctx, t);
}

/** The object as the store has it now: one store read, at once from a backend that can answer so. */
function currentObject(ctx: RequestContext, t: Target): Reply | Promise<Reply> {
  const key = objectKey(t.resource, t.namespace, t.name!);
  if (ctx.store.getNow) return objectReply(ctx.store.getNow(key), t);
  return ctx.store.get(key).then((kv) => objectReply(kv, t));
}

function objectReply(kv: KeyValue | undefined, t: Target): Reply | Promise<Reply> {
  if (!kv) throw notFound(t.resource, t.name!);
  return storedObjectReply(kv, t.resource);
}

/** Reads one object at the current revision; undefined when absent. */
export async function readCurrent(
  ctx: Pick<ServerContext, 'store'>,
  r: ServedResource,
  namespace: string | undefined,
  name: string,
): Promise<{ object: JsonApiObject; kv: KeyValue } | undefined> {
  const kv = await ctx.store.get(objectKey(r, namespace, name));
  return kv ? { object: await decodeObject(kv, r), kv } : undefined;
}

/** A filter built from the label and field selectors of a request. */
export type Matcher = (object: JsonApiObject) => boolean;

export function selectorMatcher(r: ServedResource, opts: Pick<ReadOptions, 'labelSelector' | 'fieldSelector'>): Matcher | undefined {
  if (opts.labelSelector === undefined && opts.fieldSelector === undefined) return undefined;
  const labels =
    opts.labelSelector === undefined ? undefined : parseSelector(() => parseLabelSelector(opts.labelSelector!), 'labelSelector');
  const fields =
    opts.fieldSelector === undefined ? undefined : parseSelector(() => parseFieldSelector(opts.fieldSelector!), 'fieldSelector');
  if (fields) {
    const supported = supportedFields(r);
    for (const req of fields.requirements()) {
      if (!supported.includes(req.field)) {
        throw badRequest(`field label not supported: ${req.field} (supported: ${supported.join(', ')})`);
      }
    }
  }
  const extra = supportedFields(r).filter((f) => f !== 'metadata.name' && f !== 'metadata.namespace');
  return (object) => (!labels || labels.matches(object.metadata?.labels)) && (!fields || fields.matches(selectableFieldsOf(object, extra)));
}

/** Field selectors every resource supports (name, and namespace when namespaced), plus the ones its kind declares. */
function supportedFields(r: ServedResource): string[] {
  const common = r.namespaced ? ['metadata.name', 'metadata.namespace'] : ['metadata.name'];
  return [...common, ...(r.descriptor.selectableFields ?? [])];
}

function parseSelector<T>(parse: () => T, name: string): T {
  try {
    return parse();
  } catch (e) {
    throw badRequest(`unable to parse requirement: ${name}: ${(e as Error).message}`);
  }
}

interface ListPlan {
  /** Revision to read at; undefined reads the current one. */
  revision: number | undefined;
  startAfter: string | undefined;
  /** The first page's revision must exist exactly (410 when compacted). */
  exact: boolean;
  /** When the first page of a chunked list was served (continue tokens keep it). */
  issuedAt?: number;
  /** Keys after `startAfter` at the snapshot, when a continue token carries them. */
  remaining?: number;
}

/**
 * The resource version table of list: which revision a page is read at, from resourceVersion,
 * resourceVersionMatch, limit and continue (whose combinations readOptions checked, as upstream's
 * ListOptions validation; a continue with a version is the storage's 400).
 */
async function planList(ctx: RequestContext, prefix: string, opts: ReadOptions): Promise<ListPlan> {
  const { resourceVersion: rv, resourceVersionMatch: match, limit, continueToken } = opts;
  const hasVersion = rv !== undefined && rv !== '';
  if (continueToken !== undefined) {
    if (hasVersion && rv !== '0') throw badRequest('specifying resource version is not allowed when using continue');
    const position = decodeContinue(ctx, prefix, continueToken);
    const { revision, startAfter, issuedAt, remaining } = position;
    return { revision, startAfter, exact: true, issuedAt, ...(remaining !== undefined ? { remaining } : {}) };
  }
  if (!hasVersion) return { revision: undefined, startAfter: undefined, exact: false };
  if (match === 'Exact') {
    const revision = parseRevision(rv);
    await awaitRevision(ctx, revision);
    return { revision, startAfter: undefined, exact: true };
  }
  if (rv === '0') return { revision: undefined, startAfter: undefined, exact: false };
  const revision = parseRevision(rv);
  await awaitRevision(ctx, revision);
  if (match === undefined && limit !== undefined) return { revision, startAfter: undefined, exact: true };
  // Not older than: the current state qualifies; with a limit, a version older than the
  // retained history is answered 410 as the real system's storage does.
  if (limit !== undefined && revision < (await ctx.store.compactedRevision())) {
    throw tooOldResourceVersion(revision, await ctx.store.compactedRevision());
  }
  return { revision: undefined, startAfter: undefined, exact: false };
}

function decodeContinue(ctx: RequestContext, prefix: string, token: string) {
  try {
    return decodeContinueToken(token, {
      prefix,
      secret: ctx.settings.continueSecret,
      ttlMs: ctx.settings.continueTtlMs,
      now: () => ctx.settings.now().getTime(),
    });
  } catch (e) {
    throw fromTokenError(e) ?? e;
  }
}

/**
 * list: one page of a collection, one snapshot across pages, selectors applied. The first page of
 * an unfiltered chunked list counts the rest of the collection once; its continue token carries
 * the count, and later pages subtract what they read (exact, the pages share one snapshot), so a
 * full paged list costs its size, not its size times its pages.
 */
export async function listObjects(ctx: RequestContext, t: Target, opts: ReadOptions): Promise<Reply> {
  const prefix = collectionPrefix(t.resource, t.namespace);
  const matcher = selectorMatcher(t.resource, opts);
  const plan = await planList(ctx, prefix, opts);
  // Objects, or their served JSON text (stored-text.ts).
  const items: (JsonApiObject | string)[] = [];
  let revision = plan.revision;
  let startAfter = plan.startAfter;
  // Keys after `startAfter` at the snapshot; unknown until counted, and never needed with a
  // selector (remainingItemCount is omitted then) or without a limit (there is no next page).
  let remaining = matcher ? undefined : plan.remaining;
  let more = false;
  let lastKey: string | undefined;
  try {
    // With selectors a page is filled from as many store chunks as it takes.
    for (;;) {
      const want = opts.limit === undefined ? undefined : opts.limit - items.length;
      const limit = want === undefined ? undefined : matcher ? Math.max(want, 100) : want;
      const countRemaining = limit !== undefined && !matcher && remaining === undefined;
      const page = await ctx.store.list(prefix, { revision, startAfter, limit, countRemaining });
      revision = page.revision;
      more = page.more;
      remaining = page.remaining ?? (remaining === undefined ? undefined : Math.max(0, remaining - page.items.length));
      // Without selectors, objects stored at the served version go out as their stored text.
      const pageTexts = matcher ? undefined : servedTexts(page.items, t.resource.apiVersion);
      const objects = pageTexts ? undefined : await decodeObjects(page.items, t.resource);
      for (let i = 0; i < page.items.length; i++) {
        const kv = page.items[i]!;
        if (opts.limit !== undefined && items.length >= opts.limit) {
          // Read but not served: the next page starts at it.
          more = true;
          if (remaining !== undefined) remaining++;
          continue;
        }
        lastKey = kv.key;
        const object = pageTexts ? pageTexts[i]! : objects![i]!;
        if (!matcher || matcher(object as JsonApiObject)) items.push(object);
      }
      if (page.items.length > 0) startAfter = page.items[page.items.length - 1]!.key;
      if (opts.limit === undefined || items.length >= opts.limit || !page.more || page.items.length === 0) break;
    }
  } catch (e) {
    throw fromStoreError(e, t.resource, undefined) ?? e;
  }
  const next = opts.limit !== undefined && more && lastKey !== undefined;
  const metadata: Record<string, unknown> = { resourceVersion: String(revision) };
  metadata.continue = next
    ? encodeContinueToken(
        {
          prefix,
          startAfter: lastKey!,
          revision: revision!,
          issuedAt: plan.issuedAt ?? ctx.settings.now().getTime(),
          ...(remaining !== undefined ? { remaining } : {}),
        },
        ctx.settings.continueSecret,
      )
    : '';
  // The rest of the collection, omitted on the last page and whenever selectors filtered the page
  // (as upstream's GetList: the store's count would include objects the selector drops).
  if (next && !matcher && remaining !== undefined) metadata.remainingItemCount = remaining;
  const head = { kind: t.resource.listKind, apiVersion: t.resource.apiVersion, metadata };
  if (items.some((item) => typeof item !== 'string')) {
    return { status: 200, body: { ...head, items: items.map((item) => (typeof item === 'string' ? JSON.parse(item) : item)) } };
  }
  return new JsonTextReply(200, listText(JSON.stringify({ ...head, items: [] }), items as string[]));
}

/**
 * The JSON line of a list whose items are texts, made by one join: a page is a few hundred
 * kilobytes, and each copy of it (flattening a concatenation to measure or send it) takes as long
 * as the join. `emptyList` is the list's JSON with `"items":[]` last.
 */
function listText(emptyList: string, items: string[]): string {
  if (items.length === 0) return `${emptyList}\n`;
  const parts = items.slice();
  parts[0] = `${emptyList.slice(0, -2)}${parts[0]}`;
  parts[parts.length - 1] = `${parts[parts.length - 1]}]}\n`;
  return parts.join(',');
}

/** Every item's served text, or undefined when one needs decoding (another version, another layout). */
function servedTexts(kvs: readonly KeyValue[], apiVersion: string): string[] | undefined {
  const texts: string[] = [];
  for (const kv of kvs) {
    const text = servedTextOf(kv.value, kv.modRevision, apiVersion);
    if (text === undefined) return undefined;
    texts.push(text);
  }
  return texts;
}
