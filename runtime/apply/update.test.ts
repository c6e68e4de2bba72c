import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../json/index.js';
import { ANCIENT_CHANGES_MANAGER } from './managed-fields.js';
import { PodSchema } from './pod-schema.testing.js';
import { container, managedFieldsJson, ownership, pod, runScenario, stepTime } from './scenario.testing.js';
import { update } from './update.js';

const options = (i: number) => ({ schema: PodSchema, apiVersion: 'v1', now: stepTime(i) });

describe('update: ownership of non-apply writes', () => {
  it('update/create-owns-what-it-set: a create records every field it set, containers included', () => {
    runScenario({
      steps: [
        {
          manager: 'kubectl-create',
          update: pod({ replicas: 1, containers: [container('web', { image: 'x' })] }, { labels: { app: 'web' } }),
        },
      ],
      managed: {
        'kubectl-create/Update': [
          '.metadata.labels',
          '.metadata.labels.app',
          '.spec',
          '.spec.containers',
          '.spec.containers[name="web"]',
          '.spec.containers[name="web"].image',
          '.spec.containers[name="web"].name',
          '.spec.replicas',
        ],
      },
    });
  });

  it('update/entry: an Update entry records its apiVersion and time', () => {
    const live = runScenario({ steps: [{ manager: 'ctl', update: pod({ replicas: 1 }) }] });
    expect(managedFieldsJson(live)).toEqual([
      {
        manager: 'ctl',
        operation: 'Update',
        apiVersion: 'v1',
        time: stepTime(0),
        fieldsType: 'FieldsV1',
        fieldsV1: { 'f:spec': { '.': {}, 'f:replicas': {} } },
      },
    ]);
  });

  it('update/put-never-conflicts: a PUT changing an applier field succeeds and moves the field', () => {
    runScenario({
      steps: [
        { manager: 'a', apply: pod({ replicas: 1, paused: true }) },
        { manager: 'edit', update: pod({ replicas: 9, paused: true }) },
      ],
      object: pod({ replicas: 9, paused: true }),
      managed: { 'a/Apply': ['.spec.paused'], 'edit/Update': ['.spec.replicas'] },
    });
  });

  it('update/after-apply-moves-ownership: an applier that lost a field to an update conflicts on it', () => {
    runScenario({
      steps: [
        { manager: 'a', apply: pod({ replicas: 1 }) },
        { manager: 'hpa', update: pod({ replicas: 4 }) },
        { manager: 'a', apply: pod({ replicas: 1 }), conflicts: ['hpa: .spec.replicas'] },
      ],
    });
  });

  it('update/unchanged-not-owned: fields a PUT carries unchanged are not taken', () => {
    runScenario({
      steps: [
        { manager: 'a', apply: pod({ replicas: 1, hostname: 'h' }) },
        { manager: 'edit', update: pod({ replicas: 1, hostname: 'g' }) },
      ],
      managed: { 'a/Apply': ['.spec.replicas'], 'edit/Update': ['.spec.hostname'] },
    });
  });

  it('update/removed-field-dropped: a field a PUT removes is dropped from every owner', () => {
    runScenario({
      steps: [
        { manager: 'a', apply: pod({ replicas: 1, hostname: 'h' }) },
        { manager: 'edit', update: pod({ replicas: 1 }) },
      ],
      object: pod({ replicas: 1 }),
      managed: { 'a/Apply': ['.spec.replicas'] },
    });
  });

  it('update/same-manager-accumulates: successive writes by one manager merge into one entry', () => {
    runScenario({
      steps: [
        { manager: 'ctl', update: pod({ replicas: 1 }) },
        { manager: 'ctl', update: pod({ replicas: 1, paused: true }) },
      ],
      managed: { 'ctl/Update': ['.spec', '.spec.paused', '.spec.replicas'] },
    });
  });

  it('update/noop-keeps-entry: a write that changes nothing leaves managedFields as they were', () => {
    const live = runScenario({ steps: [{ manager: 'ctl', update: pod({ replicas: 1 }) }] });
    const next = update(live, pod({ replicas: 1 }), 'ctl', options(7));
    expect(managedFieldsJson(next)).toEqual(managedFieldsJson(live));
    const other = update(live, pod({ replicas: 1 }), 'other', options(8));
    expect(managedFieldsJson(other)).toEqual(managedFieldsJson(live));
  });

  it('update/time-of-last-change: an entry takes the time of the write that changed it', () => {
    const live = runScenario({ steps: [{ manager: 'ctl', update: pod({ replicas: 1 }) }] });
    const next = update(live, pod({ replicas: 2 }), 'ctl', options(7));
    expect((managedFieldsJson(next) as { time: string }[])[0]?.time).toBe(stepTime(7));
  });

  it('update/per-apiVersion: one updater writing through two versions has two entries', () => {
    const live = runScenario({
      steps: [
        { manager: 'ctl', update: pod({ replicas: 1 }) },
        { manager: 'ctl', apiVersion: 'v2', update: pod({ replicas: 1, paused: true }) },
      ],
    });
    expect((managedFieldsJson(live) as { apiVersion: string }[]).map((e) => e.apiVersion)).toEqual(['v1', 'v2']);
  });

  it('update/subresource-entry: a status write is recorded with its subresource', () => {
    const live = runScenario({
      steps: [
        { manager: 'a', apply: pod({ replicas: 1 }) },
        { manager: 'kubelet', subresource: 'status', update: { ...pod({ replicas: 1 }), status: { phase: 'Running' } } },
      ],
      managed: { 'a/Apply': ['.spec.replicas'], 'kubelet/Update/status': ['.status', '.status.phase'] },
    });
    expect((managedFieldsJson(live) as { subresource?: string }[])[1]?.subresource).toBe('status');
  });

  it('update/subresource-ignores-body-managedFields: a subresource write cannot rewrite ownership', () => {
    const live = runScenario({ steps: [{ manager: 'a', apply: pod({ replicas: 1 }) }] });
    const body = pod({ replicas: 1 }, { managedFields: [{}] });
    const next = update(live, { ...body, status: { phase: 'Running' } }, 'kubelet', { ...options(1), subresource: 'status' });
    expect(ownership(next)).toEqual({ 'a/Apply': ['.spec.replicas'], 'kubelet/Update/status': ['.status', '.status.phase'] });
  });

  it('update/unknown-manager: a write without any manager name is recorded as unknown', () => {
    runScenario({ steps: [{ manager: '', update: pod({ replicas: 1 }) }], managed: { 'unknown/Update': ['.spec', '.spec.replicas'] } });
  });

  it('update/entries-sorted: Apply entries first, then Update entries oldest first', () => {
    const live = runScenario({
      steps: [
        { manager: 'z', update: pod({ replicas: 1 }) },
        { manager: 'y', update: pod({ replicas: 1, paused: true }) },
        { manager: 'b', apply: pod({ hostname: 'h' }) },
      ],
    });
    expect((managedFieldsJson(live) as { manager: string }[]).map((e) => e.manager)).toEqual(['b', 'z', 'y']);
  });

  it('update/cap-update-entries: beyond ten updaters the oldest merge into ancient-changes', () => {
    let live: JsonObject | undefined;
    const labels: Record<string, string> = {};
    for (let i = 0; i < 12; i++) {
      labels[`l${i}`] = 'x';
      live = update(live, pod(undefined, { labels: { ...labels } }), `m${i}`, options(i));
    }
    const managers = (managedFieldsJson(live) as { manager: string }[]).map((e) => e.manager);
    expect(managers).toHaveLength(10);
    expect(managers[0]).toBe(ANCIENT_CHANGES_MANAGER);
    expect(ownership(live)[`${ANCIENT_CHANGES_MANAGER}/Update`]).toEqual([
      '.metadata.labels',
      '.metadata.labels.l0',
      '.metadata.labels.l1',
      '.metadata.labels.l2',
    ]);
  });

  it('update/misfit-drops-tracking: an object that does not fit the markers is stored without managedFields', () => {
    const live = runScenario({ steps: [{ manager: 'a', apply: pod({ replicas: 1 }) }] });
    const next = update(live, pod({ replicas: 1, containers: [{ image: 'no-name' }] }), 'edit', options(1));
    expect(managedFieldsJson(next)).toBeUndefined();
  });

  it('update/body-managedFields-used: managedFields written in the body are the starting point', () => {
    const live = runScenario({ steps: [{ manager: 'a', apply: pod({ replicas: 1 }) }] });
    const handedOver = [
      { manager: 'b', operation: 'Apply', apiVersion: 'v1', fieldsType: 'FieldsV1', fieldsV1: { 'f:spec': { 'f:replicas': {} } } },
    ];
    const next = update(live, pod({ replicas: 1 }, { managedFields: handedOver }), 'edit', options(1));
    expect(ownership(next)).toEqual({ 'b/Apply': ['.spec.replicas'] });
  });

  it('update/bad-body-managedFields-ignored: undecodable managedFields in the body keep the live ones', () => {
    const live = runScenario({ steps: [{ manager: 'a', apply: pod({ replicas: 1 }) }] });
    const next = update(live, pod({ replicas: 1 }, { managedFields: [{ manager: 'x', operation: 'Bogus' }] }), 'edit', options(1));
    expect(ownership(next)).toEqual({ 'a/Apply': ['.spec.replicas'] });
  });

  it('update/item-added-owns-item: an updater that adds a list item owns the item itself', () => {
    runScenario({
      steps: [
        { manager: 'a', apply: pod({ containers: [container('web')] }) },
        { manager: 'inject', update: pod({ containers: [container('web'), container('proxy', { image: 'envoy' })] }) },
      ],
      managed: {
        'a/Apply': ['.spec.containers[name="web"]', '.spec.containers[name="web"].name'],
        'inject/Update': ['.spec.containers[name="proxy"]', '.spec.containers[name="proxy"].image', '.spec.containers[name="proxy"].name'],
      },
    });
  });

  it('update/item-removed-drops-owners: an item a PUT removes is dropped from its owners', () => {
    runScenario({
      steps: [
        { manager: 'a', apply: pod({ containers: [container('web'), container('old')] }) },
        { manager: 'edit', update: pod({ containers: [container('web')] }) },
      ],
      managed: { 'a/Apply': ['.spec.containers[name="web"]', '.spec.containers[name="web"].name'] },
    });
  });

  it('update/atomic-list-taken-whole: a PUT changing an atomic list takes the whole list', () => {
    runScenario({
      steps: [
        { manager: 'a', apply: pod({ tolerations: [{ key: 'a' }] }) },
        { manager: 'edit', update: pod({ tolerations: [{ key: 'a' }, { key: 'b' }] }) },
      ],
      managed: { 'edit/Update': ['.spec.tolerations'] },
    });
  });

  it('update/null-vs-empty: replacing {} by null is a change of that field', () => {
    runScenario({
      steps: [
        { manager: 'a', apply: pod({ strategy: {} }) },
        { manager: 'edit', update: pod({ strategy: null }) },
      ],
      managed: { 'edit/Update': ['.spec.strategy'] },
    });
  });
});
