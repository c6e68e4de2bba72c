/**
 * Scenario tests in the style of structured-merge-diff's merge tests: a list of applies and
 * updates by named managers, then the expected object, ownership and conflicts. Each step runs
 * one second after the previous one.
 */
import { expect } from 'vitest';
import { isStatusError } from '../api/index.js';
import type { JsonObject, JsonValue } from '../json/index.js';
import type { SchemaNode } from '../schema/index.js';
import { apply } from './apply.js';
import { type ApplyInputReason, isApplyInputError } from './errors.js';
import { decodeManagedFields } from './managed-fields.js';
import { managedFieldsOf, withoutManagedFields } from './object-meta.js';
import { pathString } from './path-element.js';
import { PodSchema } from './pod-schema.testing.js';
import { update } from './update.js';

interface StepCommon {
  readonly manager: string;
  readonly apiVersion?: string;
  readonly subresource?: string;
  /** The schema from this step on, for topology changes. */
  readonly schema?: SchemaNode;
}

export interface ApplyStep extends StepCommon {
  readonly apply: JsonObject;
  readonly force?: boolean;
  /** The step must fail with these conflicts, as `manager: .field.path`. */
  readonly conflicts?: readonly string[];
  /** The step must fail with an ApplyInputError of this reason. */
  readonly rejected?: ApplyInputReason;
}

export interface UpdateStep extends StepCommon {
  readonly update: JsonObject;
}

export type Step = ApplyStep | UpdateStep;

export interface Scenario {
  /** The Pod schema when left out; an explicit undefined means no schema (all untyped). */
  readonly schema?: SchemaNode | undefined;
  readonly custom?: boolean;
  readonly steps: readonly Step[];
  /** The final object, managedFields left out. */
  readonly object?: JsonObject;
  /** The final ownership: `manager/Apply` or `manager/Update` (plus `/subresource`) to field paths. */
  readonly managed?: Readonly<Record<string, readonly string[]>>;
}

/** The time of step `i`. */
export function stepTime(i: number): string {
  return `2024-01-01T00:00:${String(i).padStart(2, '0')}Z`;
}

/** Runs the steps and checks the expectations; returns the final stored object. */
export function runScenario(scenario: Scenario): JsonObject | undefined {
  let live: JsonObject | undefined;
  let schema = 'schema' in scenario ? scenario.schema : PodSchema;
  scenario.steps.forEach((step, i) => {
    schema = step.schema ?? schema;
    const options = {
      schema,
      custom: scenario.custom,
      apiVersion: step.apiVersion ?? 'v1',
      subresource: step.subresource,
      now: stepTime(i),
    };
    if ('update' in step) {
      live = update(live, step.update, step.manager, options);
      return;
    }
    const run = (): JsonObject => apply(live, step.apply, step.manager, { ...options, force: step.force });
    if (step.rejected !== undefined) {
      expect(run, `step ${i} is rejected`).toThrow();
      try {
        run();
      } catch (error) {
        expect(isApplyInputError(error) && error.reason).toBe(step.rejected);
      }
      return;
    }
    if (step.conflicts !== undefined) {
      expect(conflictsOf(run), `conflicts of step ${i}`).toEqual([...step.conflicts].sort());
      return;
    }
    live = run();
  });
  if (scenario.object !== undefined) expect(live && withoutManagedFields(live)).toEqual(scenario.object);
  if (scenario.managed !== undefined) expect(ownership(live)).toEqual(sortedOwnership(scenario.managed));
  return live;
}

/** The conflicts an apply fails with, as sorted `manager: .field` strings. */
export function conflictsOf(run: () => unknown): string[] {
  try {
    run();
  } catch (error) {
    if (!isStatusError(error) || error.code !== 409) throw error;
    return (error.details?.causes ?? [])
      .map((c) => {
        expect(c.type).toBe('FieldManagerConflict');
        const manager = /conflict with "([^"]*)"/.exec(c.message ?? '')?.[1] ?? '?';
        return `${manager}: ${c.field ?? ''}`;
      })
      .sort();
  }
  throw new Error('expected an apply conflict, but the apply succeeded');
}

/** Ownership of an object as `manager/Operation[/subresource]` to sorted field paths. */
export function ownership(object: JsonObject | undefined): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const entry of decodeManagedFields(managedFieldsOf(object)).values()) {
    const key = [entry.manager, entry.operation, ...(entry.subresource === '' ? [] : [entry.subresource])].join('/');
    out[key] = entry.fields.paths().map(pathString).sort();
  }
  return out;
}

function sortedOwnership(managed: Readonly<Record<string, readonly string[]>>): Record<string, string[]> {
  return Object.fromEntries(Object.entries(managed).map(([k, v]) => [k, [...v].sort()]));
}

/** A Pod named `p` with the given spec and metadata additions. */
export function pod(spec: JsonObject | undefined, metadata: JsonObject = {}): JsonObject {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', ...metadata }, ...(spec === undefined ? {} : { spec }) };
}

/** A container item. */
export function container(name: string, rest: JsonObject = {}): JsonObject {
  return { name, ...rest };
}

/** The managedFields of an object, as stored. */
export function managedFieldsJson(object: JsonObject | undefined): JsonValue | undefined {
  return managedFieldsOf(object);
}
