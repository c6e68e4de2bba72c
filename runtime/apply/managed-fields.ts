/**
 * `metadata.managedFields`: one entry per manager identity, read into field sets and written back
 * as the real system writes them.
 *
 * A manager's identity is its name, operation and subresource, plus the apiVersion for `Update`
 * entries: an applier keeps one entry whatever version it applies through, an updater gets one per
 * version. Entries are written sorted (Apply before Update, then oldest first, then by name,
 * version and subresource); entries that own nothing are dropped.
 */
import { type JsonObject, type JsonValue, getOwn, isJsonObject } from '../json/index.js';
import { ManagedFieldsError } from './errors.js';
import { FieldSet } from './field-set.js';
import { fromFieldsV1, toFieldsV1 } from './fields-v1.js';
import { compareStrings } from './path-element.js';

export type Operation = 'Apply' | 'Update';

/** Who a managedFields entry belongs to. */
export interface ManagerInfo {
  readonly manager: string;
  readonly operation: Operation;
  readonly apiVersion: string;
  /** The subresource written through; empty for the resource itself. */
  readonly subresource: string;
}

/** One decoded managedFields entry. */
export interface ManagedEntry extends ManagerInfo {
  /** RFC 3339 time of the last write that changed what this manager owns. */
  readonly time: string | undefined;
  readonly fields: FieldSet;
}

/** Entries by manager identity. */
export type ManagedFields = ReadonlyMap<string, ManagedEntry>;

/** The identity an entry is stored under; an `Apply` entry's apiVersion is not part of it. */
export function managerIdentity(info: ManagerInfo): string {
  return JSON.stringify([info.manager, info.operation, info.operation === 'Apply' ? '' : info.apiVersion, info.subresource]);
}

/**
 * Whether a written managedFields value asks to clear ownership: a list holding exactly one empty
 * entry. An empty list does not, so that clients unaware of the field never clear it.
 */
export function isManagedFieldsReset(value: JsonValue | undefined): boolean {
  if (!Array.isArray(value) || value.length !== 1) return false;
  const [entry] = value;
  if (!isJsonObject(entry)) return false;
  return Object.keys(entry).every((key) => isZero(entry[key] as JsonValue));
}

function isZero(value: JsonValue): boolean {
  return value === null || value === '' || (isJsonObject(value) && Object.keys(value).length === 0);
}

/** Reads a managedFields list; absent or null is no entries. Later duplicates replace earlier ones. */
export function decodeManagedFields(value: JsonValue | undefined): Map<string, ManagedEntry> {
  const out = new Map<string, ManagedEntry>();
  if (value === undefined || value === null) return out;
  if (!Array.isArray(value)) throw new ManagedFieldsError('metadata.managedFields: must be a list');
  value.forEach((raw, i) => {
    const entry = decodeEntry(raw, `metadata.managedFields[${i}]`);
    out.set(managerIdentity(entry), entry);
  });
  return out;
}

function decodeEntry(raw: JsonValue, where: string): ManagedEntry {
  if (!isJsonObject(raw)) throw new ManagedFieldsError(`${where}: must be an object`);
  const operation = entryText(raw, 'operation', where);
  if (operation !== 'Apply' && operation !== 'Update')
    throw new ManagedFieldsError(`${where}.operation: must be \`Apply\` or \`Update\`, not ${JSON.stringify(operation)}`);
  const apiVersion = entryText(raw, 'apiVersion', where);
  if (apiVersion === '') throw new ManagedFieldsError(`${where}.apiVersion: must not be empty`);
  const fieldsType = entryText(raw, 'fieldsType', where);
  if (fieldsType === '') throw new ManagedFieldsError(`${where}.fieldsType: missing`);
  if (fieldsType !== 'FieldsV1')
    throw new ManagedFieldsError(`${where}.fieldsType: invalid ${JSON.stringify(fieldsType)}, only FieldsV1 is supported`);
  const tree = getOwn(raw, 'fieldsV1');
  const fields = tree === undefined || tree === null ? new FieldSet() : fromFieldsV1(tree, `${where}.fieldsV1`);
  const time = entryText(raw, 'time', where);
  return {
    manager: entryText(raw, 'manager', where),
    operation,
    apiVersion,
    subresource: entryText(raw, 'subresource', where),
    time: time === '' ? undefined : time,
    fields,
  };
}

/** A string member of an entry; absent or null is empty. */
function entryText(raw: JsonObject, key: string, where: string): string {
  const v = getOwn(raw, key);
  if (v === undefined || v === null) return '';
  if (typeof v !== 'string') throw new ManagedFieldsError(`${where}.${key}: must be a string`);
  return v;
}

/** Writes entries as `metadata.managedFields`, sorted, without the ones that own nothing. */
export function encodeManagedFields(managed: ManagedFields): JsonObject[] {
  return [...managed.values()]
    .filter((e) => !e.fields.isEmpty())
    .sort(compareEntries)
    .map(encodeEntry);
}

function encodeEntry(e: ManagedEntry): JsonObject {
  // Keys in the real system's order; empty subresource and time are omitted.
  const out: JsonObject = { manager: e.manager, operation: e.operation, apiVersion: e.apiVersion };
  if (e.time !== undefined) out.time = e.time;
  out.fieldsType = 'FieldsV1';
  out.fieldsV1 = toFieldsV1(e.fields);
  if (e.subresource !== '') out.subresource = e.subresource;
  return out;
}

function compareEntries(a: ManagedEntry, b: ManagedEntry): number {
  if (a.operation !== b.operation) return compareStrings(a.operation, b.operation);
  const seconds = epochSeconds(a.time) - epochSeconds(b.time);
  if (seconds !== 0) return seconds;
  return compareStrings(a.manager, b.manager) || compareStrings(a.apiVersion, b.apiVersion) || compareStrings(a.subresource, b.subresource);
}

function epochSeconds(time: string | undefined): number {
  const ms = time === undefined ? Number.NaN : Date.parse(time);
  return Number.isNaN(ms) ? 0 : Math.floor(ms / 1000);
}

/** The real system keeps at most this many `Update` entries. */
export const DEFAULT_MAX_UPDATE_MANAGERS = 10;

/** The manager the oldest `Update` entries are merged into beyond the cap. */
export const ANCIENT_CHANGES_MANAGER = 'ancient-changes';

/**
 * Keeps at most `max` `Update` entries by merging the oldest into one `ancient-changes` entry per
 * apiVersion, so that objects written by many updaters do not grow without bound.
 */
export function capUpdateManagers(managed: ManagedFields, max = DEFAULT_MAX_UPDATE_MANAGERS): ManagedFields {
  let updating = 0;
  for (const e of managed.values()) if (e.operation === 'Update' && !e.fields.isEmpty()) updating++;
  if (updating <= max) return managed;
  const out = new Map(managed);
  const updaters = [...managed.entries()].filter(([, e]) => e.operation === 'Update' && !e.fields.isEmpty());
  let count = updaters.length;
  updaters.sort(([ka, a], [kb, b]) => epochSeconds(a.time) - epochSeconds(b.time) || compareStrings(ka, kb));
  for (const [key, entry] of updaters) {
    if (count <= max) break;
    const bucket: ManagerInfo = { manager: ANCIENT_CHANGES_MANAGER, operation: 'Update', apiVersion: entry.apiVersion, subresource: '' };
    const bucketKey = managerIdentity(bucket);
    if (key === bucketKey) continue;
    const existing = out.get(bucketKey);
    out.delete(key);
    if (existing === undefined) {
      out.set(bucketKey, { ...bucket, time: entry.time, fields: entry.fields });
    } else {
      out.set(bucketKey, { ...existing, time: laterTime(existing.time, entry.time), fields: existing.fields.union(entry.fields) });
      count--;
    }
  }
  return out;
}

function laterTime(a: string | undefined, b: string | undefined): string | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  return epochSeconds(b) > epochSeconds(a) ? b : a;
}

/** RFC 3339 with whole seconds, as managedFields times are written. */
export function formatTime(now: Date | string | undefined): string {
  if (typeof now === 'string') return now;
  const ms = now === undefined ? Date.now() : now.getTime();
  // Every write within one second writes the same text: it is made once per second.
  const second = Math.floor(ms / 1000);
  if (second !== lastSecond.second) lastSecond = { second, text: `${new Date(second * 1000).toISOString().slice(0, 19)}Z` };
  return lastSecond.text;
}

let lastSecond = { second: Number.NaN, text: '' };
