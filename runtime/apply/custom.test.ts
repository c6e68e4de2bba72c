import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../json/index.js';
import { WidgetSchema } from './pod-schema.testing.js';
import { managedFieldsJson, runScenario } from './scenario.testing.js';

const widget = (spec: JsonObject): JsonObject => ({ apiVersion: 'v1', kind: 'Widget', metadata: { name: 'w' }, spec });

describe('custom resources', () => {
  it('custom/unmarked-list-atomic: a list of strings without markers is atomic', () => {
    runScenario({
      schema: WidgetSchema,
      custom: true,
      steps: [
        { manager: 'a', apply: widget({ tags: ['x'] }) },
        { manager: 'b', apply: widget({ tags: ['x', 'y'] }), conflicts: ['a: .spec.tags'] },
      ],
    });
  });

  it('custom/unmarked-object-list-atomic: a list of objects without markers is atomic, owned whole', () => {
    runScenario({
      schema: WidgetSchema,
      custom: true,
      steps: [
        { manager: 'a', apply: widget({ parts: [{ id: '1', count: 1 }] }) },
        { manager: 'a', apply: widget({ parts: [{ id: '2' }] }) },
      ],
      object: widget({ parts: [{ id: '2' }] }),
      managed: { 'a/Apply': ['.spec.parts'] },
    });
  });

  it('custom/legacy-markers-ignored: patchStrategy merge means nothing on a custom resource', () => {
    runScenario({
      schema: WidgetSchema,
      custom: true,
      steps: [
        { manager: 'a', apply: widget({ legacy: [{ id: '1' }] }) },
        { manager: 'b', apply: widget({ legacy: [{ id: '2' }] }), conflicts: ['a: .spec.legacy'] },
      ],
    });
  });

  it('custom/legacy-markers-read-for-built-in: the same schema read as a built-in kind merges by the legacy key', () => {
    runScenario({
      schema: WidgetSchema,
      steps: [
        { manager: 'a', apply: widget({ legacy: [{ id: '1' }] }) },
        { manager: 'b', apply: widget({ legacy: [{ id: '2' }] }) },
      ],
      object: widget({ legacy: [{ id: '1' }, { id: '2' }] }),
    });
  });

  it('custom/list-type-map-honoured: a custom resource list with list-type map merges by key', () => {
    runScenario({
      schema: WidgetSchema,
      custom: true,
      steps: [
        { manager: 'a', apply: widget({ keyed: [{ id: '1', count: 1 }] }) },
        { manager: 'b', apply: widget({ keyed: [{ id: '2', count: 2 }] }) },
      ],
      object: widget({
        keyed: [
          { id: '1', count: 1 },
          { id: '2', count: 2 },
        ],
      }),
      managed: {
        'a/Apply': ['.spec.keyed[id="1"]', '.spec.keyed[id="1"].count', '.spec.keyed[id="1"].id'],
        'b/Apply': ['.spec.keyed[id="2"]', '.spec.keyed[id="2"].count', '.spec.keyed[id="2"].id'],
      },
    });
  });

  it('custom/struct-fields-granular: fields of a custom resource are owned one by one', () => {
    runScenario({
      schema: WidgetSchema,
      custom: true,
      steps: [
        { manager: 'a', apply: widget({ size: 1 }) },
        { manager: 'b', apply: widget({ labels: { x: 'y' } }) },
      ],
      object: widget({ size: 1, labels: { x: 'y' } }),
      managed: { 'a/Apply': ['.spec.size'], 'b/Apply': ['.spec.labels.x'] },
    });
  });

  it('custom/preserve-unknown: unknown fields are unstructured: keys owned as keys, lists atomic', () => {
    runScenario({
      schema: WidgetSchema,
      custom: true,
      steps: [{ manager: 'a', apply: widget({ free: { a: { b: 1 }, l: [1] } }) }],
      managed: { 'a/Apply': ['.spec.free.a', '.spec.free.a.b', '.spec.free.l'] },
    });
  });

  it('custom/no-schema-unstructured: without a schema every object key is owned as a key', () => {
    const live = runScenario({
      schema: undefined,
      custom: true,
      steps: [{ manager: 'a', apply: widget({ size: 1, list: [{ id: 1 }] }) }],
      managed: { 'a/Apply': ['.spec', '.spec.list', '.spec.size'] },
    });
    expect((managedFieldsJson(live) as { fieldsV1: unknown }[])[0]?.fieldsV1).toEqual({
      'f:spec': { '.': {}, 'f:list': {}, 'f:size': {} },
    });
  });

  it('custom/omit-atomic-list-removes: an omitted atomic list the applier owned is removed whole', () => {
    runScenario({
      schema: WidgetSchema,
      custom: true,
      steps: [
        { manager: 'a', apply: widget({ size: 1, tags: ['x', 'y'] }) },
        { manager: 'a', apply: widget({ size: 1 }) },
      ],
      object: widget({ size: 1 }),
    });
  });
});
