import { describe, expect, it } from 'vitest';
import { apply } from './apply.js';
import { isManagedFieldsReset } from './managed-fields.js';
import { withoutManagedFields } from './object-meta.js';
import { PodSchema } from './pod-schema.testing.js';
import { managedFieldsJson, ownership, pod, runScenario, stepTime } from './scenario.testing.js';
import { update } from './update.js';

const options = { schema: PodSchema, apiVersion: 'v1', now: stepTime(5) };
const applied = () =>
  runScenario({
    steps: [
      { manager: 'a', apply: pod({ replicas: 1, paused: true }) },
      { manager: 'b', apply: pod({ hostname: 'h' }) },
    ],
  });

describe('managedFields reset', () => {
  it('reset/one-empty-entry-clears: [{}] with no other change leaves no managedFields', () => {
    const next = update(applied(), pod({ replicas: 1, paused: true, hostname: 'h' }, { managedFields: [{}] }), 'edit', options);
    expect(managedFieldsJson(next)).toBeUndefined();
  });

  it('reset/empty-list-does-not-reset: [] keeps the live managedFields', () => {
    const live = applied();
    const next = update(live, pod({ replicas: 1, paused: true, hostname: 'h' }, { managedFields: [] }), 'edit', options);
    expect(managedFieldsJson(next)).toEqual(managedFieldsJson(live));
  });

  it('reset/absent-does-not-reset: a body without managedFields keeps the live ones', () => {
    const live = applied();
    const next = update(live, pod({ replicas: 1, paused: true, hostname: 'h' }), 'edit', options);
    expect(managedFieldsJson(next)).toEqual(managedFieldsJson(live));
  });

  it('reset/with-changes: the reset happens first, so the writer owns exactly what it changed', () => {
    const next = update(applied(), pod({ replicas: 3, paused: true, hostname: 'h' }, { managedFields: [{}] }), 'edit', options);
    expect(ownership(next)).toEqual({ 'edit/Update': ['.spec.replicas'] });
  });

  it('reset/then-apply-no-conflict: after a reset, former owners no longer block other appliers', () => {
    const cleared = update(applied(), pod({ replicas: 1, paused: true, hostname: 'h' }, { managedFields: [{}] }), 'edit', options);
    const next = apply(cleared, pod({ replicas: 5 }), 'c', { ...options, now: stepTime(6) });
    expect(withoutManagedFields(next)).toEqual(pod({ replicas: 5, paused: true, hostname: 'h' }));
    expect(ownership(next)).toEqual({ 'c/Apply': ['.spec.replicas'] });
  });

  it('reset/on-create: a create carrying [{}] is recorded normally', () => {
    const created = update(undefined, pod({ replicas: 1 }, { managedFields: [{}] }), 'ctl', options);
    expect(ownership(created)).toEqual({ 'ctl/Update': ['.spec', '.spec.replicas'] });
  });

  it('reset/empty-strings-count-as-empty: an entry of empty strings is an empty entry', () => {
    const next = update(
      applied(),
      pod({ replicas: 1, paused: true, hostname: 'h' }, { managedFields: [{ manager: '', operation: '' }] }),
      'edit',
      options,
    );
    expect(managedFieldsJson(next)).toBeUndefined();
  });

  it('reset/two-empty-entries-not-reset: [{}, {}] is not a reset; being unreadable, the live ones stay', () => {
    const live = applied();
    const next = update(live, pod({ replicas: 1, paused: true, hostname: 'h' }, { managedFields: [{}, {}] }), 'edit', options);
    expect(managedFieldsJson(next)).toEqual(managedFieldsJson(live));
  });

  it('reset/detection: only a list holding exactly one empty entry is a reset', () => {
    expect(isManagedFieldsReset([{}])).toBe(true);
    expect(isManagedFieldsReset([{ manager: '' }])).toBe(true);
    expect(isManagedFieldsReset([])).toBe(false);
    expect(isManagedFieldsReset(undefined)).toBe(false);
    expect(isManagedFieldsReset(null)).toBe(false);
    expect(isManagedFieldsReset([{ manager: 'x' }])).toBe(false);
    expect(isManagedFieldsReset([{}, {}])).toBe(false);
  });
});
