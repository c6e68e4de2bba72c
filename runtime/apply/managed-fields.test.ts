import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../json/index.js';
import { isManagedFieldsError } from './errors.js';
import { FieldSet } from './field-set.js';
import {
  capUpdateManagers,
  decodeManagedFields,
  encodeManagedFields,
  formatTime,
  type ManagedEntry,
  managerIdentity,
} from './managed-fields.js';
import { fieldElement } from './path-element.js';

const entry = (over: JsonObject = {}): JsonObject => ({
  manager: 'm',
  operation: 'Update',
  apiVersion: 'v1',
  time: '2024-01-01T00:00:00Z',
  fieldsType: 'FieldsV1',
  fieldsV1: { 'f:spec': { 'f:x': {} } },
  ...over,
});

function managed(...entries: Partial<ManagedEntry>[]): Map<string, ManagedEntry> {
  return new Map(
    entries.map((e) => {
      const full: ManagedEntry = {
        manager: 'm',
        operation: 'Update',
        apiVersion: 'v1',
        subresource: '',
        time: undefined,
        fields: FieldSet.of([fieldElement('x')]),
        ...e,
      };
      return [managerIdentity(full), full];
    }),
  );
}

describe('managedFields entries', () => {
  it('entries/roundtrip: an entry decodes and encodes back unchanged, keys in order', () => {
    const raw = [entry({ subresource: 'status' })];
    const out = encodeManagedFields(decodeManagedFields(raw));
    expect(out).toEqual(raw);
    expect(Object.keys(out[0] ?? {})).toEqual(['manager', 'operation', 'apiVersion', 'time', 'fieldsType', 'fieldsV1', 'subresource']);
  });

  it('entries/identity: updaters are told apart by apiVersion, appliers are not', () => {
    const base = { manager: 'm', subresource: '' };
    expect(managerIdentity({ ...base, operation: 'Update', apiVersion: 'v1' })).not.toBe(
      managerIdentity({ ...base, operation: 'Update', apiVersion: 'v2' }),
    );
    expect(managerIdentity({ ...base, operation: 'Apply', apiVersion: 'v1' })).toBe(
      managerIdentity({ ...base, operation: 'Apply', apiVersion: 'v2' }),
    );
    expect(managerIdentity({ ...base, operation: 'Apply', apiVersion: 'v1' })).not.toBe(
      managerIdentity({ ...base, operation: 'Update', apiVersion: 'v1' }),
    );
    expect(managerIdentity({ ...base, operation: 'Update', apiVersion: 'v1' })).not.toBe(
      managerIdentity({ manager: 'm', operation: 'Update', apiVersion: 'v1', subresource: 'status' }),
    );
  });

  it('entries/one-per-identity: a later entry of the same identity replaces an earlier one', () => {
    const decoded = decodeManagedFields([entry({ fieldsV1: { 'f:a': {} } }), entry({ fieldsV1: { 'f:b': {} } })]);
    expect(decoded.size).toBe(1);
  });

  it('entries/validation: operation, apiVersion and fieldsType are checked', () => {
    for (const bad of [
      entry({ operation: 'update' }),
      entry({ operation: '' }),
      entry({ apiVersion: '' }),
      entry({ fieldsType: '' }),
      entry({ fieldsType: 'FieldsV2' }),
      entry({ fieldsV1: [] }),
      'x',
    ]) {
      try {
        decodeManagedFields([bad]);
        expect.unreachable(JSON.stringify(bad));
      } catch (error) {
        expect(isManagedFieldsError(error)).toBe(true);
      }
    }
    expect(() => decodeManagedFields({})).toThrow(/must be a list/);
  });

  it('entries/missing-fieldsV1: an entry without fieldsV1 owns nothing', () => {
    const decoded = decodeManagedFields([entry({ fieldsV1: null })]);
    expect([...decoded.values()][0]?.fields.isEmpty()).toBe(true);
  });

  it('entries/sorted: Apply first, then by time, manager, apiVersion and subresource', () => {
    const out = encodeManagedFields(
      managed(
        { manager: 'z', time: '2024-01-01T00:00:05Z' },
        { manager: 'b', time: '2024-01-01T00:00:05Z' },
        { manager: 'old', time: '2024-01-01T00:00:01Z' },
        { manager: 'applier', operation: 'Apply', time: '2024-01-01T00:00:09Z' },
      ),
    );
    expect(out.map((e) => e.manager)).toEqual(['applier', 'old', 'b', 'z']);
  });

  it('entries/empty-dropped: an entry owning nothing is not written', () => {
    expect(encodeManagedFields(managed({ fields: new FieldSet() }))).toEqual([]);
  });

  it('entries/cap: the oldest updaters beyond the cap merge into one ancient-changes entry per version', () => {
    const many = managed(
      ...Array.from({ length: 5 }, (_, i) => ({
        manager: `m${i}`,
        time: `2024-01-01T00:00:0${i}Z`,
        fields: FieldSet.of([fieldElement(`f${i}`)]),
      })),
    );
    const capped = capUpdateManagers(many, 3);
    const out = encodeManagedFields(capped);
    expect(out.map((e) => e.manager)).toEqual(['ancient-changes', 'm3', 'm4']);
    expect(out[0]?.fieldsV1).toEqual({ 'f:f0': {}, 'f:f1': {}, 'f:f2': {} });
  });

  it('entries/time-format: times are written in RFC 3339 with whole seconds', () => {
    expect(formatTime(new Date('2024-05-06T07:08:09.123Z'))).toBe('2024-05-06T07:08:09Z');
    // The text kept for one second is not written for another, before or after it.
    expect(formatTime(new Date('2024-05-06T07:08:09.999Z'))).toBe('2024-05-06T07:08:09Z');
    expect(formatTime(new Date('2024-05-06T07:08:10.000Z'))).toBe('2024-05-06T07:08:10Z');
    expect(formatTime(new Date('1969-12-31T23:59:59.500Z'))).toBe('1969-12-31T23:59:59Z');
    expect(formatTime(new Date('2024-05-06T07:08:09.000Z'))).toBe('2024-05-06T07:08:09Z');
    expect(formatTime(undefined)).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  });
});
