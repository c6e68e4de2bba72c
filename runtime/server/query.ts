import { type StatusError, badRequest } from '../api/index.js';

/** Options of get, list and watch, parsed from the query string and checked. */
export interface ReadOptions {
  /** undefined: unset; '' (consistent read) and '0' (any) are meaningful. */
  resourceVersion: string | undefined;
  resourceVersionMatch: 'Exact' | 'NotOlderThan' | undefined;
  limit: number | undefined;
  continueToken: string | undefined;
  labelSelector: string | undefined;
  fieldSelector: string | undefined;
  watch: boolean;
  allowWatchBookmarks: boolean;
  sendInitialEvents: boolean | undefined;
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

export function readOptions(q: URLSearchParams): ReadOptions {
  const rvMatch = q.get('resourceVersionMatch') ?? undefined;
  if (rvMatch !== undefined && rvMatch !== '' && rvMatch !== 'Exact' && rvMatch !== 'NotOlderThan') {
    throw badParam('resourceVersionMatch', rvMatch, 'supported values: "Exact", "NotOlderThan"');
  }
  const limit = integer(q, 'limit');
  if (limit !== undefined && limit < 0) throw badParam('limit', String(limit), 'must be a non-negative integer');
  const timeoutSeconds = integer(q, 'timeoutSeconds');
  if (timeoutSeconds !== undefined && timeoutSeconds < 0)
    throw badParam('timeoutSeconds', String(timeoutSeconds), 'must be a non-negative integer');
  const watch = boolean(q, 'watch') ?? false;
  return {
    resourceVersion: q.has('resourceVersion') ? (q.get('resourceVersion') ?? '') : undefined,
    resourceVersionMatch: rvMatch === '' ? undefined : (rvMatch as ReadOptions['resourceVersionMatch']),
    // limit=0 means no limit, as upstream.
    limit: limit === 0 ? undefined : limit,
    continueToken: nonEmpty(q.get('continue')),
    labelSelector: nonEmpty(q.get('labelSelector')),
    fieldSelector: nonEmpty(q.get('fieldSelector')),
    watch,
    allowWatchBookmarks: boolean(q, 'allowWatchBookmarks') ?? false,
    sendInitialEvents: boolean(q, 'sendInitialEvents'),
    timeoutSeconds,
  };
}

export function writeOptions(q: URLSearchParams): WriteOptions {
  const dryRunValues = q.getAll('dryRun').filter((v) => v !== '');
  for (const v of dryRunValues) if (v !== 'All') throw badParam('dryRun', v, 'supported values: "All"');
  const fieldValidation = q.get('fieldValidation') || 'Warn';
  if (fieldValidation !== 'Ignore' && fieldValidation !== 'Warn' && fieldValidation !== 'Strict') {
    throw badParam('fieldValidation', fieldValidation, 'supported values: "Ignore", "Warn", "Strict"');
  }
  const fieldManager = nonEmpty(q.get('fieldManager'));
  if (fieldManager !== undefined && fieldManager.length > 128)
    throw badParam('fieldManager', fieldManager, 'must be at most 128 characters');
  return {
    dryRun: dryRunValues.length > 0,
    fieldValidation,
    fieldManager,
    force: boolean(q, 'force') ?? false,
  };
}

/** The pretty flag: `pretty`, `pretty=true` or `pretty=1`. */
export function pretty(q: URLSearchParams): boolean {
  if (!q.has('pretty')) return false;
  const v = q.get('pretty');
  return v === '' || v === 'true' || v === '1';
}

function boolean(q: URLSearchParams, name: string): boolean | undefined {
  if (!q.has(name)) return undefined;
  const v = q.get(name);
  if (v === '' || v === 'true' || v === '1') return true;
  if (v === 'false' || v === '0') return false;
  throw badParam(name, v ?? '', 'must be true or false');
}

function integer(q: URLSearchParams, name: string): number | undefined {
  const v = q.get(name);
  if (v === null || v === '') return undefined;
  if (!/^-?\d+$/.test(v) || !Number.isSafeInteger(Number(v))) throw badParam(name, v, 'must be an integer');
  return Number(v);
}

function nonEmpty(v: string | null): string | undefined {
  return v === null || v === '' ? undefined : v;
}

function badParam(name: string, value: string, accepted: string): StatusError {
  return badRequest(`invalid value ${JSON.stringify(value)} for query parameter ${name}: ${accepted}`);
}
