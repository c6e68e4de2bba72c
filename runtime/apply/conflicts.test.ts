import { describe, expect, it } from 'vitest';
import { isStatusError } from '../api/index.js';
import { apply } from './apply.js';
import { PodSchema } from './pod-schema.testing.js';
import { container, pod, runScenario, stepTime } from './scenario.testing.js';

describe('apply: conflicts', () => {
  it('conflict/apply-vs-apply: a field another applier owns with another value conflicts', () => {
    runScenario({
      steps: [
        { manager: 'a', apply: pod({ replicas: 1 }) },
        { manager: 'b', apply: pod({ replicas: 2 }), conflicts: ['a: .spec.replicas'] },
      ],
      object: pod({ replicas: 1 }),
      managed: { 'a/Apply': ['.spec.replicas'] },
    });
  });

  it('conflict/apply-vs-update: a field an updater owns with another value conflicts', () => {
    runScenario({
      steps: [
        { manager: 'ctl', update: pod({ replicas: 5 }) },
        { manager: 'a', apply: pod({ replicas: 2 }), conflicts: ['ctl: .spec.replicas'] },
      ],
    });
  });

  it('conflict/status: the error is a 409 Conflict with one FieldManagerConflict cause per field', () => {
    const live = runScenario({ steps: [{ manager: 'ctl', update: pod({ replicas: 5 }) }] });
    try {
      apply(live, pod({ replicas: 2 }), 'a', { schema: PodSchema, apiVersion: 'v1' });
      expect.unreachable();
    } catch (error) {
      expect(isStatusError(error)).toBe(true);
      if (!isStatusError(error)) return;
      expect(error.code).toBe(409);
      expect(error.reason).toBe('Conflict');
      expect(error.message).toBe(`Apply failed with 1 conflict: conflict with "ctl" using v1 at ${stepTime(0)}: .spec.replicas`);
      expect(error.details?.causes).toEqual([
        { type: 'FieldManagerConflict', message: `conflict with "ctl" using v1 at ${stepTime(0)}`, field: '.spec.replicas' },
      ]);
    }
  });

  it('conflict/several-fields: every conflicting field is listed', () => {
    runScenario({
      steps: [
        { manager: 'a', apply: pod({ replicas: 1, hostname: 'x', paused: true }) },
        { manager: 'b', apply: pod({ replicas: 2, hostname: 'y', paused: true }), conflicts: ['a: .spec.hostname', 'a: .spec.replicas'] },
      ],
    });
  });

  it('conflict/several-managers: a field shared by two managers conflicts with both', () => {
    runScenario({
      steps: [
        { manager: 'a', apply: pod({ replicas: 1 }) },
        { manager: 'b', apply: pod({ replicas: 1 }) },
        { manager: 'c', apply: pod({ replicas: 3 }), conflicts: ['a: .spec.replicas', 'b: .spec.replicas'] },
      ],
    });
  });

  it('conflict/nothing-changes: a conflicting apply leaves object and ownership as they were', () => {
    const live = runScenario({ steps: [{ manager: 'a', apply: pod({ replicas: 1 }) }] });
    const snapshot = JSON.stringify(live);
    expect(() => apply(live, pod({ replicas: 2, paused: true }), 'b', { schema: PodSchema, apiVersion: 'v1' })).toThrow(/conflict/);
    expect(JSON.stringify(live)).toBe(snapshot);
  });

  it('conflict/force: force=true takes the field; the other manager loses it', () => {
    runScenario({
      steps: [
        { manager: 'a', apply: pod({ replicas: 1, paused: true }) },
        { manager: 'b', apply: pod({ replicas: 2 }), force: true },
      ],
      object: pod({ replicas: 2, paused: true }),
      managed: { 'a/Apply': ['.spec.paused'], 'b/Apply': ['.spec.replicas'] },
    });
  });

  it('conflict/force-drops-empty-entry: a manager left owning nothing disappears', () => {
    runScenario({
      steps: [
        { manager: 'a', apply: pod({ replicas: 1 }) },
        { manager: 'b', apply: pod({ replicas: 2 }), force: true },
      ],
      managed: { 'b/Apply': ['.spec.replicas'] },
    });
  });

  it('conflict/force-over-updater: force takes a field from an updater too', () => {
    runScenario({
      steps: [
        { manager: 'hpa', update: pod({ replicas: 7 }) },
        { manager: 'a', apply: pod({ replicas: 2 }), force: true },
      ],
      object: pod({ replicas: 2 }),
      managed: { 'a/Apply': ['.spec.replicas'], 'hpa/Update': ['.spec'] },
    });
  });

  it('conflict/after-force-old-owner-conflicts: the manager that lost a field now conflicts on it', () => {
    runScenario({
      steps: [
        { manager: 'a', apply: pod({ replicas: 1 }) },
        { manager: 'b', apply: pod({ replicas: 2 }), force: true },
        { manager: 'a', apply: pod({ replicas: 1 }), conflicts: ['b: .spec.replicas'] },
      ],
    });
  });

  it('conflict/equal-value-shares: applying the value another manager owns shares the field', () => {
    runScenario({
      steps: [
        { manager: 'a', apply: pod({ replicas: 1 }) },
        { manager: 'b', apply: pod({ replicas: 1 }) },
      ],
      object: pod({ replicas: 1 }),
      managed: { 'a/Apply': ['.spec.replicas'], 'b/Apply': ['.spec.replicas'] },
    });
  });

  it('conflict/equal-value-shares-with-updater: an applier may share a field with an updater', () => {
    runScenario({
      steps: [
        { manager: 'ctl', update: pod({ replicas: 4 }) },
        { manager: 'a', apply: pod({ replicas: 4 }) },
      ],
      managed: { 'a/Apply': ['.spec.replicas'], 'ctl/Update': ['.spec', '.spec.replicas'] },
    });
  });

  it('conflict/shared-then-change: after sharing, a change by the first sharer conflicts with the second', () => {
    runScenario({
      steps: [
        { manager: 'a', apply: pod({ replicas: 1 }) },
        { manager: 'b', apply: pod({ replicas: 1 }) },
        { manager: 'a', apply: pod({ replicas: 2 }), conflicts: ['b: .spec.replicas'] },
      ],
    });
  });

  it('conflict/shared-then-change-other: after sharing, a change by the second sharer conflicts with the first', () => {
    runScenario({
      steps: [
        { manager: 'a', apply: pod({ replicas: 1 }) },
        { manager: 'b', apply: pod({ replicas: 1 }) },
        { manager: 'b', apply: pod({ replicas: 2 }), conflicts: ['a: .spec.replicas'] },
      ],
    });
  });

  it('conflict/drop-field-resolves: dropping the conflicting field lets the apply through, value unchanged', () => {
    runScenario({
      steps: [
        { manager: 'a', apply: pod({ replicas: 1 }) },
        { manager: 'b', apply: pod({ replicas: 2, paused: true }), conflicts: ['a: .spec.replicas'] },
        { manager: 'b', apply: pod({ paused: true }) },
      ],
      object: pod({ replicas: 1, paused: true }),
      managed: { 'a/Apply': ['.spec.replicas'], 'b/Apply': ['.spec.paused'] },
    });
  });

  it('conflict/multiple-managers: disjoint fields of three appliers never conflict', () => {
    runScenario({
      steps: [
        { manager: 'a', apply: pod({ replicas: 1 }) },
        { manager: 'b', apply: pod({ paused: true }) },
        { manager: 'c', apply: pod({ hostname: 'h' }) },
        { manager: 'a', apply: pod({ replicas: 2 }) },
      ],
      object: pod({ replicas: 2, paused: true, hostname: 'h' }),
      managed: { 'a/Apply': ['.spec.replicas'], 'b/Apply': ['.spec.paused'], 'c/Apply': ['.spec.hostname'] },
    });
  });

  it('conflict/list-item-field: changing a field of an item another manager owns names the item by key', () => {
    runScenario({
      steps: [
        { manager: 'a', apply: pod({ containers: [container('web', { image: 'nginx:1' })] }) },
        {
          manager: 'b',
          apply: pod({ containers: [container('web', { image: 'nginx:2' })] }),
          conflicts: ['a: .spec.containers[name="web"].image'],
        },
      ],
    });
  });

  it('conflict/new-item-no-conflict: adding an item to a list map conflicts with no owner of other items', () => {
    runScenario({
      steps: [
        { manager: 'a', apply: pod({ containers: [container('web', { image: 'nginx' })] }) },
        { manager: 'b', apply: pod({ containers: [container('sidecar', { image: 'envoy' })] }) },
      ],
      object: pod({ containers: [container('web', { image: 'nginx' }), container('sidecar', { image: 'envoy' })] }),
      managed: {
        'a/Apply': ['.spec.containers[name="web"]', '.spec.containers[name="web"].image', '.spec.containers[name="web"].name'],
        'b/Apply': ['.spec.containers[name="sidecar"]', '.spec.containers[name="sidecar"].image', '.spec.containers[name="sidecar"].name'],
      },
    });
  });

  it('conflict/updater-item-then-applier: an item an updater added conflicts when an applier changes it', () => {
    runScenario({
      steps: [
        { manager: 'ctl', update: pod({ containers: [container('web', { image: 'v1' })] }) },
        {
          manager: 'a',
          apply: pod({ containers: [container('web', { image: 'v2' })] }),
          conflicts: ['ctl: .spec.containers[name="web"].image'],
        },
      ],
    });
  });

  it('conflict/subresource-manager: a conflict names the subresource the owner wrote through', () => {
    const live = runScenario({
      steps: [
        { manager: 'a', apply: { ...pod(undefined), status: { phase: 'Pending' } } },
        { manager: 'kubelet', subresource: 'status', update: { ...pod(undefined), status: { phase: 'Running' } } },
      ],
    });
    expect(() => apply(live, { ...pod(undefined), status: { phase: 'Failed' } }, 'a', { schema: PodSchema, apiVersion: 'v1' })).toThrow(
      /conflict with "kubelet" with subresource "status" using v1/,
    );
  });

  it('conflict/same-name-other-operation: an updater and an applier of the same name are separate owners', () => {
    runScenario({
      steps: [
        { manager: 'kubectl', update: pod({ replicas: 1 }) },
        { manager: 'kubectl', apply: pod({ replicas: 2 }), conflicts: ['kubectl: .spec.replicas'] },
      ],
    });
  });
});
