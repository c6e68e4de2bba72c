import {
  type FieldError,
  badRequest,
  fieldForbidden,
  fieldInvalid,
  fieldNotSupported,
  fieldTooLong,
  invalid,
  queryBool,
  queryInt64,
  parseGoBool,
} from '../api/index.js';

// Options of each verb, read from the query as upstream converts `url.Values` into its option
// structs (GetOptions, ListOptions, CreateOptions...): the conversions are runtime/api's
// `queryBool` and `queryInt64`, a repeated parameter counts by its first value, and a parameter
// the verb's options do not have is ignored (`?limit=x` on a get is no error).

/** Options of get: upstream's GetOptions. */
export interface GetOptions {
  /** undefined: unset; '' (consistent read) and '0' (any) are meaningful. */
  resourceVersion: string | undefined;
}

/** Options of list, watch and deletecollection: upstream's ListOptions, validated. */
export interface ReadOptions extends GetOptions {
  resourceVersionMatch: 'Exact' | 'NotOlderThan' | undefined;
  /** undefined: no limit (upstream pages only for a positive limit). */
  limit: number | undefined;
  continueToken: string | undefined;
  labelSelector: string | undefined;
  fieldSelector: string | undefined;
  watch: boolean;
  allowWatchBookmarks: boolean;
  sendInitialEvents: boolean | undefined;
  /** A negative value ends a watch at once, as upstream's timer does. */
  timeoutSeconds: number | undefined;
}

export type FieldValidation = 'Ignore' | 'Warn' | 'Strict';

/** Options of the writes (create, update, patch, delete). */
export interface WriteOptions {
  /** `dryRun=All`; a bare `dryRun` (no value) is not a dry run. */
  dryRun: boolean;
  fieldValidation: FieldValidation;
  fieldManager: string | undefined;
  force: boolean;
}

export function getOptions(q: URLSearchParams): GetOptions {
  // Upstream's GetResource still reads the long-gone export flag, with the bool conversion.
  if (queryBool(q, 'export')) throw badRequest('the export parameter, deprecated since v1.14, is no longer supported');
  return { resourceVersion: q.has('resourceVersion') ? (q.get('resourceVersion') ?? '') : undefined };
}

/**
 * ListOptions from the query, checked as upstream's ValidateListOptions (a 422 on ListOptions
 * with every cause). `watch` is whether the request watches (the `watch` parameter, or a
 * `/watch/` path); `watchList` whether the WatchList gate is on.
 */
export function readOptions(q: URLSearchParams, how: { watchList: boolean; watch?: boolean }): ReadOptions {
  const limit = queryInt64(q, 'limit');
  const opts: ReadOptions = {
    ...getOptions(q),
    resourceVersionMatch: nonEmpty(q.get('resourceVersionMatch')) as ReadOptions['resourceVersionMatch'],
    limit: limit !== undefined && limit > 0 ? limit : undefined,
    continueToken: nonEmpty(q.get('continue')),
    labelSelector: nonEmpty(q.get('labelSelector')),
    fieldSelector: nonEmpty(q.get('fieldSelector')),
    watch: how.watch ?? queryBool(q, 'watch') ?? false,
    allowWatchBookmarks: queryBool(q, 'allowWatchBookmarks') ?? false,
    sendInitialEvents: queryBool(q, 'sendInitialEvents'),
    timeoutSeconds: queryInt64(q, 'timeoutSeconds'),
  };
  const errors = opts.watch ? watchOptionErrors(opts, how.watchList) : listOptionErrors(opts);
  if (errors.length > 0) throw invalid(LIST_OPTIONS, '', errors);
  return opts;
}

const LIST_OPTIONS = { group: 'meta.svc.io', kind: 'ListOptions' };

/** Upstream's ValidateListOptions for a list. */
function listOptionErrors(opts: ReadOptions): FieldError[] {
  const errors: FieldError[] = [];
  const match: string | undefined = opts.resourceVersionMatch;
  if (match !== undefined) {
    if (!opts.resourceVersion)
      errors.push(fieldForbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden unless resourceVersion is provided'));
    if (opts.continueToken !== undefined)
      errors.push(fieldForbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden when continue is provided'));
    if (match !== 'Exact' && match !== 'NotOlderThan')
      errors.push(fieldNotSupported('resourceVersionMatch', match, ['Exact', 'NotOlderThan', '']));
    if (match === 'Exact' && opts.resourceVersion === '0')
      errors.push(fieldForbidden('resourceVersionMatch', 'resourceVersionMatch "exact" is forbidden for resourceVersion "0"'));
  }
  if (opts.sendInitialEvents !== undefined) errors.push(fieldForbidden('sendInitialEvents', 'sendInitialEvents is forbidden for list'));
  return errors;
}

/** Upstream's ValidateListOptions for a watch. */
function watchOptionErrors(opts: ReadOptions, watchList: boolean): FieldError[] {
  const errors: FieldError[] = [];
  const match: string | undefined = opts.resourceVersionMatch;
  if (opts.sendInitialEvents !== undefined) {
    if (match !== 'NotOlderThan')
      errors.push(fieldForbidden('resourceVersionMatch', 'sendInitialEvents requires setting resourceVersionMatch to NotOlderThan'));
    if (!watchList)
      errors.push(
        fieldForbidden('sendInitialEvents', 'sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled'),
      );
  }
  if (match !== undefined) {
    if (opts.sendInitialEvents === undefined)
      errors.push(
        fieldForbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided'),
      );
    if (match !== 'NotOlderThan') errors.push(fieldNotSupported('resourceVersionMatch', match, ['NotOlderThan']));
    if (opts.continueToken !== undefined)
      errors.push(fieldForbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden when continue is provided'));
  }
  return errors;
}

/** The options struct whose 422 a write reports, by method (upstream's Validate<Verb>Options). */
const WRITE_OPTIONS_KIND: Readonly<Record<string, string>> = {
  POST: 'CreateOptions',
  PUT: 'UpdateOptions',
  PATCH: 'PatchOptions',
  DELETE: 'DeleteOptions',
};

/**
 * The options of a write, checked as upstream's ValidateCreateOptions and its siblings: every
 * problem is a cause of one 422 on the verb's options kind (`CreateOptions.meta.k8s.io "" is
 * invalid: dryRun: Unsupported value: []string{"x"}: ...`).
 */
export function writeOptions(q: URLSearchParams, method: string): WriteOptions {
  // Upstream's order: the field manager, the dry run, the field validation.
  const fieldManager = nonEmpty(q.get('fieldManager'));
  const errors = fieldManager === undefined ? [] : fieldManagerErrors(fieldManager);
  const dryRunValues = q.getAll('dryRun').filter((v) => v !== '');
  if (dryRunValues.some((v) => v !== 'All')) errors.push(fieldNotSupported('dryRun', dryRunValues, ['All']));
  const fieldValidation = q.get('fieldValidation') || 'Warn';
  if (fieldValidation !== 'Ignore' && fieldValidation !== 'Warn' && fieldValidation !== 'Strict') {
    errors.push(fieldNotSupported('fieldValidation', fieldValidation, ['', 'Ignore', 'Strict', 'Warn']));
  }
  if (errors.length > 0) throw invalid({ group: 'meta.svc.io', kind: WRITE_OPTIONS_KIND[method] ?? 'CreateOptions' }, '', errors);
  return {
    dryRun: dryRunValues.length > 0,
    fieldValidation: fieldValidation as FieldValidation,
    fieldManager,
    force: queryBool(q, 'force') ?? false,
  };
}

const FIELD_MANAGER_MAX_BYTES = 128;
/** Go's unicode.IsPrint: letters, marks, numbers, punctuation, symbols and the ASCII space. */
const PRINTABLE = /^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u;

/** Upstream's ValidateFieldManager: at most 128 bytes, every character printable (at its byte offset). */
function fieldManagerErrors(fieldManager: string): FieldError[] {
  const errors: FieldError[] = [];
  if (Buffer.byteLength(fieldManager) > FIELD_MANAGER_MAX_BYTES)
    errors.push(fieldTooLong('fieldManager', fieldManager, FIELD_MANAGER_MAX_BYTES));
  let offset = 0;
  for (const ch of fieldManager) {
    if (!PRINTABLE.test(ch)) {
      const codePoint = `U+${ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;
      errors.push(fieldInvalid('fieldManager', fieldManager, `invalid character ${codePoint} (at position ${offset})`));
    }
    offset += Buffer.byteLength(ch);
  }
  return errors;
}

/**
 * The pretty flag as upstream's isPrettyPrint: a non-empty `pretty` is read with Go's ParseBool
 * (anything it refuses is false); without one, browsers, curl and wget get indented output.
 */
export function pretty(q: URLSearchParams, userAgent: string | undefined): boolean {
  const v = q.get('pretty');
  if (v) return parseGoBool(v) ?? false;
  return /^(curl|Wget|Mozilla\/5\.0)/.test(userAgent ?? '');
}

function nonEmpty(v: string | null): string | undefined {
  return v === null || v === '' ? undefined : v;
}
