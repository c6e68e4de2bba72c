/** Options of each verb, and how they become query parameters. */

/** On every call. */
export interface CallOptions {
  signal?: AbortSignal;
  /** Client-side deadline of the call in milliseconds, retries included. */
  timeoutMs?: number;
}

/** A selector as text (`app=web,tier!=db`) or as a set of equalities. */
export type Selector = string | Record<string, string>;

export interface GetOptions extends CallOptions {
  /** Unset: most recent; `0`: any; other: not older than. */
  resourceVersion?: string;
}

export interface ListOptions extends CallOptions {
  labelSelector?: Selector;
  fieldSelector?: Selector;
  resourceVersion?: string;
  /** Requires resourceVersion; always set it when resourceVersion is set on a list. */
  resourceVersionMatch?: 'Exact' | 'NotOlderThan';
  limit?: number;
  continue?: string;
  /** Server-side timeout of the list. */
  timeoutSeconds?: number;
}

export interface WriteOptions extends CallOptions {
  /** `true` or `'All'`: run every stage but persisting. */
  dryRun?: boolean | 'All';
  fieldValidation?: 'Ignore' | 'Warn' | 'Strict';
  fieldManager?: string;
}

/** Patches and apply may target the status subresource. */
export interface PatchOptions extends WriteOptions {
  subresource?: 'status';
}

export interface ApplyOptions extends PatchOptions {
  /** Required for server-side apply: who owns the applied fields. */
  fieldManager: string;
  /** Take ownership of fields other managers own instead of failing with a conflict. */
  force?: boolean;
}

export interface DeleteOptions extends CallOptions {
  dryRun?: boolean | 'All';
  gracePeriodSeconds?: number;
  propagationPolicy?: 'Orphan' | 'Background' | 'Foreground';
  /** The delete fails with 409 unless the object still has this uid / resourceVersion. */
  preconditions?: { uid?: string; resourceVersion?: string };
}

export interface DeleteCollectionOptions extends DeleteOptions {
  labelSelector?: Selector;
  fieldSelector?: Selector;
}

/** `app=web,tier=db` from a set; text passes through. */
export function selectorText(selector: Selector): string {
  if (typeof selector === 'string') return selector;
  return Object.entries(selector)
    .map(([k, v]) => `${k}=${v}`)
    .join(',');
}

export function readQuery(options: GetOptions & ListOptions): URLSearchParams {
  const q = new URLSearchParams();
  if (options.labelSelector !== undefined) q.set('labelSelector', selectorText(options.labelSelector));
  if (options.fieldSelector !== undefined) q.set('fieldSelector', selectorText(options.fieldSelector));
  if (options.resourceVersion !== undefined) q.set('resourceVersion', options.resourceVersion);
  if (options.resourceVersionMatch !== undefined) q.set('resourceVersionMatch', options.resourceVersionMatch);
  if (options.limit !== undefined) q.set('limit', String(options.limit));
  if (options.continue !== undefined && options.continue !== '') q.set('continue', options.continue);
  if (options.timeoutSeconds !== undefined) q.set('timeoutSeconds', String(options.timeoutSeconds));
  return q;
}

export function writeQuery(options: WriteOptions & { force?: boolean }): URLSearchParams {
  const q = new URLSearchParams();
  if (options.dryRun) q.set('dryRun', 'All');
  if (options.fieldValidation !== undefined) q.set('fieldValidation', options.fieldValidation);
  if (options.fieldManager !== undefined) q.set('fieldManager', options.fieldManager);
  if (options.force !== undefined) q.set('force', String(options.force));
  return q;
}

/** The DeleteOptions body (the real system reads these from the body). */
export function deleteBody(options: DeleteOptions): Record<string, unknown> | undefined {
  const body: Record<string, unknown> = {};
  if (options.gracePeriodSeconds !== undefined) body.gracePeriodSeconds = options.gracePeriodSeconds;
  if (options.propagationPolicy !== undefined) body.propagationPolicy = options.propagationPolicy;
  if (options.preconditions !== undefined) body.preconditions = options.preconditions;
  if (options.dryRun) body.dryRun = ['All'];
  return Object.keys(body).length === 0 ? undefined : { kind: 'DeleteOptions', apiVersion: 'v1', ...body };
}
