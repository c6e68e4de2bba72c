import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../json/index.js';
import { apply } from './apply.js';
import { PodSchema } from './pod-schema.testing.js';
import { container, managedFieldsJson, pod, runScenario, stepTime } from './scenario.testing.js';

describe('apply: create and update', () => {
  it('apply/create: applying to an absent object creates it, owned by the applier', () => {
    runScenario({
      steps: [{ manager: 'a', apply: pod({ replicas: 1, hostname: 'h' }) }],
      object: pod({ replicas: 1, hostname: 'h' }),
      managed: { 'a/Apply': ['.spec.hostname', '.spec.replicas'] },
    });
  });

  it('apply/create-entry: the entry names manager, operation Apply, apiVersion, time and FieldsV1', () => {
    const live = runScenario({
      steps: [{ manager: 'kubectl', apply: pod({ containers: [container('a', { image: 'x' })] }, { labels: { app: 'web' } }) }],
    });
    expect(managedFieldsJson(live)).toEqual([
      {
        manager: 'kubectl',
        operation: 'Apply',
        apiVersion: 'v1',
        time: stepTime(0),
        fieldsType: 'FieldsV1',
        fieldsV1: {
          'f:metadata': { 'f:labels': { 'f:app': {} } },
          'f:spec': { 'f:containers': { 'k:{"name":"a"}': { '.': {}, 'f:image': {}, 'f:name': {} } } },
        },
      },
    ]);
    expect(JSON.stringify((managedFieldsJson(live) as { fieldsV1: unknown }[])[0]?.fieldsV1)).toBe(
      '{"f:metadata":{"f:labels":{"f:app":{}}},"f:spec":{"f:containers":{"k:{\\"name\\":\\"a\\"}":{".":{},"f:image":{},"f:name":{}}}}}',
    );
  });

  it('apply/update-value: the applier changes a field it owns without conflict', () => {
    runScenario({
      steps: [
        { manager: 'a', apply: pod({ replicas: 1 }) },
        { manager: 'a', apply: pod({ replicas: 3 }) },
      ],
      object: pod({ replicas: 3 }),
      managed: { 'a/Apply': ['.spec.replicas'] },
    });
  });

  it('apply/add-field: a field added to the configuration is set and owned', () => {
    runScenario({
      steps: [
        { manager: 'a', apply: pod({ replicas: 1 }) },
        { manager: 'a', apply: pod({ replicas: 1, paused: true }) },
      ],
      object: pod({ replicas: 1, paused: true }),
      managed: { 'a/Apply': ['.spec.paused', '.spec.replicas'] },
    });
  });

  it('apply/noop-keeps-time: applying the same configuration again changes nothing, time included', () => {
    const first = runScenario({ steps: [{ manager: 'a', apply: pod({ replicas: 1 }) }] });
    const again = apply(first, pod({ replicas: 1 }), 'a', { schema: PodSchema, apiVersion: 'v1', now: stepTime(9) });
    expect(again).toEqual(first);
  });

  it('apply/change-updates-time: a change records the time of the apply', () => {
    const first = runScenario({ steps: [{ manager: 'a', apply: pod({ replicas: 1 }) }] });
    const again = apply(first, pod({ replicas: 2 }), 'a', { schema: PodSchema, apiVersion: 'v1', now: stepTime(9) });
    expect((managedFieldsJson(again) as { time: string }[])[0]?.time).toBe(stepTime(9));
  });

  it('apply/server-set-fields-not-owned: apiVersion, kind and metadata.name are never recorded', () => {
    runScenario({
      steps: [{ manager: 'a', apply: pod({ replicas: 1 }, { namespace: 'ns', uid: 'u', resourceVersion: '5', generation: 2 }) }],
      managed: { 'a/Apply': ['.spec.replicas'] },
    });
  });

  it('apply/apiVersion-per-apply: an applier keeps one entry whatever version it applies through', () => {
    const live = runScenario({
      steps: [
        { manager: 'a', apply: pod({ replicas: 1 }) },
        { manager: 'a', apiVersion: 'v2', apply: { ...pod({ replicas: 2 }), apiVersion: 'v2' } },
      ],
      managed: { 'a/Apply': ['.spec.replicas'] },
    });
    expect((managedFieldsJson(live) as { apiVersion: string }[])[0]?.apiVersion).toBe('v2');
  });

  it('apply/null-value: an applied null is set and owned', () => {
    runScenario({
      steps: [
        { manager: 'a', apply: pod({ hostname: 'h' }) },
        { manager: 'a', apply: pod({ hostname: null }) },
      ],
      object: pod({ hostname: null }),
      managed: { 'a/Apply': ['.spec.hostname'] },
    });
  });

  it('apply/empty-struct: an applied {} is owned as a leaf', () => {
    runScenario({
      steps: [{ manager: 'a', apply: pod({ strategy: {} }) }],
      object: pod({ strategy: {} }),
      managed: { 'a/Apply': ['.spec.strategy'] },
    });
  });
});

describe('apply: inputs untouched', () => {
  it('apply/result-owned: the result shares nothing with the live object or the configuration', () => {
    const live = runScenario({ steps: [{ manager: 'a', apply: pod({ containers: [container('web', { image: '1' })] }) }] }) as JsonObject;
    const config = pod({ containers: [container('web', { env: [{ name: 'A', value: '1' }] })] });
    const before = JSON.stringify([live, config]);
    const next = apply(live, config, 'b', { schema: PodSchema, apiVersion: 'v1' });
    ((next.spec as JsonObject).containers as JsonObject[])[0]!.image = 'changed';
    (((next.spec as JsonObject).containers as JsonObject[])[0]!.env as JsonObject[])[0]!.value = 'changed';
    expect(JSON.stringify([live, config])).toBe(before);
  });
});

describe('apply: omitted fields', () => {
  it('apply/omit-removes: a field the applier owned alone and omits now is removed', () => {
    runScenario({
      steps: [
        { manager: 'a', apply: pod({ replicas: 1, paused: true }) },
        { manager: 'a', apply: pod({ replicas: 1 }) },
      ],
      object: pod({ replicas: 1 }),
      managed: { 'a/Apply': ['.spec.replicas'] },
    });
  });

  it('apply/omit-keeps-shared-with-applier: an omitted field another applier also owns stays', () => {
    runScenario({
      steps: [
        { manager: 'a', apply: pod({ replicas: 1, paused: true }) },
        { manager: 'b', apply: pod({ paused: true }) },
        { manager: 'a', apply: pod({ replicas: 1 }) },
      ],
      object: pod({ replicas: 1, paused: true }),
      managed: { 'a/Apply': ['.spec.replicas'], 'b/Apply': ['.spec.paused'] },
    });
  });

  it('apply/omit-keeps-shared-with-updater: an omitted field an updater also owns stays', () => {
    runScenario({
      steps: [
        { manager: 'u', update: pod({ paused: true }) },
        { manager: 'a', apply: pod({ paused: true, replicas: 1 }) },
        { manager: 'a', apply: pod({ replicas: 1 }) },
      ],
      object: pod({ replicas: 1, paused: true }),
      managed: { 'a/Apply': ['.spec.replicas'], 'u/Update': ['.spec', '.spec.paused'] },
    });
  });

  it('apply/omit-nested-struct: a struct the applier emptied is removed with its fields', () => {
    runScenario({
      steps: [
        { manager: 'a', apply: pod({ replicas: 1, strategy: { type: 'Recreate', maxSurge: 1 } }) },
        { manager: 'a', apply: pod({ replicas: 1 }) },
      ],
      object: pod({ replicas: 1 }),
      managed: { 'a/Apply': ['.spec.replicas'] },
    });
  });

  it('apply/omit-partial-struct: only the omitted fields of a struct go', () => {
    runScenario({
      steps: [
        { manager: 'a', apply: pod({ strategy: { type: 'Recreate', maxSurge: 1 } }) },
        { manager: 'a', apply: pod({ strategy: { type: 'Recreate' } }) },
      ],
      object: pod({ strategy: { type: 'Recreate' } }),
      managed: { 'a/Apply': ['.spec.strategy.type'] },
    });
  });

  it('apply/omit-unowned-stays: fields nobody applied are never pruned', () => {
    runScenario({
      steps: [
        { manager: 'u', update: pod({ hostname: 'h' }) },
        { manager: 'a', apply: pod({ replicas: 1 }) },
        { manager: 'a', apply: pod({ paused: true }) },
      ],
      object: pod({ hostname: 'h', paused: true }),
      managed: { 'a/Apply': ['.spec.paused'], 'u/Update': ['.spec', '.spec.hostname'] },
    });
  });

  it('apply/coordinated-transfer: two appliers share a value, one omits it, the other keeps it alone', () => {
    runScenario({
      steps: [
        { manager: 'old', apply: pod({ replicas: 3 }) },
        { manager: 'new', apply: pod({ replicas: 3 }) },
        { manager: 'old', apply: pod(undefined) },
      ],
      object: pod({ replicas: 3 }),
      managed: { 'new/Apply': ['.spec.replicas'] },
    });
  });

  it('apply/omit-everything: an applier that omits all its fields loses its entry', () => {
    runScenario({
      steps: [
        { manager: 'a', apply: pod({ replicas: 1 }) },
        { manager: 'b', apply: pod({ paused: false }) },
        { manager: 'a', apply: pod(undefined) },
      ],
      object: pod({ paused: false }),
      managed: { 'b/Apply': ['.spec.paused'] },
    });
  });
});

describe('apply: request checks', () => {
  it('apply/requires-apiVersion: a body without apiVersion is refused', () => {
    runScenario({ steps: [{ manager: 'a', apply: { kind: 'Pod', metadata: { name: 'p' } }, rejected: 'missing-api-version' }] });
  });

  it('apply/requires-kind: a body without kind is refused', () => {
    runScenario({ steps: [{ manager: 'a', apply: { apiVersion: 'v1', metadata: { name: 'p' } }, rejected: 'missing-kind' }] });
  });

  it('apply/rejects-managedFields: a body carrying managedFields is refused, even an empty list', () => {
    runScenario({ steps: [{ manager: 'a', apply: pod({}, { managedFields: [] }), rejected: 'managed-fields-set' }] });
    runScenario({ steps: [{ manager: 'a', apply: pod({}, { managedFields: [{}] }), rejected: 'managed-fields-set' }] });
  });

  it('apply/null-managedFields: an explicit null managedFields is no managedFields', () => {
    runScenario({
      steps: [{ manager: 'a', apply: pod({ replicas: 1 }, { managedFields: null }) }],
      object: pod({ replicas: 1 }),
      managed: { 'a/Apply': ['.spec.replicas'] },
    });
  });

  it('apply/requires-fieldManager: an apply without a manager is refused', () => {
    runScenario({ steps: [{ manager: '', apply: pod({ replicas: 1 }), rejected: 'missing-field-manager' }] });
  });

  it('apply/version-must-match: a body of another version than the endpoint is refused', () => {
    runScenario({ steps: [{ manager: 'a', apiVersion: 'v2', apply: pod({ replicas: 1 }), rejected: 'api-version-mismatch' }] });
  });

  it('apply/kind-must-match: a body of another kind than the endpoint serves is refused', () => {
    expect(() => apply(undefined, { ...pod({}), kind: 'Service' }, 'a', { schema: PodSchema, apiVersion: 'v1', kind: 'Pod' })).toThrow(
      /Incorrect kind/,
    );
  });

  it('apply/metadata-must-be-object: a null or scalar metadata is refused', () => {
    runScenario({ steps: [{ manager: 'a', apply: { apiVersion: 'v1', kind: 'Pod', metadata: null }, rejected: 'invalid-config' }] });
  });

  it('apply/body-must-be-object: a list or scalar body is refused', () => {
    runScenario({ steps: [{ manager: 'a', apply: [] as unknown as never, rejected: 'not-an-object' }] });
  });
});

describe('apply: reading managedFields back', () => {
  it('apply/changed-entry-read-afresh: an entry replaced between applies is read, not the set written before', () => {
    const options = { schema: PodSchema, apiVersion: 'v1', now: '2024-01-01T00:00:00Z' };
    const first = apply(undefined, pod({ replicas: 1, hostname: 'h' }), 'a', options);
    const again = apply(first, pod({ replicas: 1, hostname: 'h' }), 'a', options);
    // The written tree came back unchanged: it stays the same shared tree.
    expect(managedFieldsJson(again)).toEqual(managedFieldsJson(first));
    // The stored entry now says the applier gave up .spec.hostname (a changed copy of the tree).
    const changed = JSON.parse(JSON.stringify(first)) as JsonObject;
    const entry = (managedFieldsJson(changed) as JsonObject[])[0] as { fieldsV1: Record<string, Record<string, unknown>> };
    delete entry.fieldsV1['f:spec']!['f:hostname'];
    // Applying without hostname releases nothing the changed entry names: hostname stays.
    const kept = apply(changed, pod({ replicas: 1 }), 'a', options);
    expect((kept.spec as JsonObject).hostname).toBe('h');
    // From the original object, the applier gives hostname up and it goes.
    const pruned = apply(first, pod({ replicas: 1 }), 'a', options);
    expect((pruned.spec as JsonObject).hostname).toBeUndefined();
  });
});
