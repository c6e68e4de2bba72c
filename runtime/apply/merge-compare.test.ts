import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../json/index.js';
import { compareObjects } from './compare.js';
import { mergeObjects } from './merge.js';
import { pathString } from './path-element.js';
import { PodSchema } from './pod-schema.testing.js';
import { pruneReleased } from './prune.js';
import { rootShape } from './shape.js';
import { fieldSetOf } from './field-set-of.js';

const shape = rootShape(PodSchema);
const show = (c: ReturnType<typeof compareObjects>) => ({
  added: c.added.paths().map(pathString),
  removed: c.removed.paths().map(pathString),
  modified: c.modified.paths().map(pathString),
});

describe('merge', () => {
  it('merge/does-not-mutate: inputs are left as they were', () => {
    const live: JsonObject = { spec: { containers: [{ name: 'a', image: '1' }] } };
    const config: JsonObject = { spec: { containers: [{ name: 'a', image: '2' }] } };
    const before = JSON.stringify([live, config]);
    expect(mergeObjects(live, config, shape)).toEqual(config);
    expect(JSON.stringify([live, config])).toBe(before);
  });

  it('merge/key-order: live keys keep their order, new keys follow', () => {
    const merged = mergeObjects({ spec: { b: 1, a: 2 } }, { spec: { c: 3, a: 4 } }, shape);
    expect(Object.keys(merged.spec as object)).toEqual(['b', 'a', 'c']);
  });

  it('merge/reorder: shared items follow the applied order', () => {
    const live = { spec: { containers: [{ name: 'a' }, { name: 'b' }, { name: 'c' }] } };
    const merged = mergeObjects(live, { spec: { containers: [{ name: 'c' }, { name: 'a' }] } }, shape);
    expect(merged).toEqual({ spec: { containers: [{ name: 'b' }, { name: 'c' }, { name: 'a' }] } });
  });

  it('merge/unchanged-shared: parts the configuration leaves as they were are the live values themselves', () => {
    const ports = [{ containerPort: 80, protocol: 'TCP' }];
    const live: JsonObject = { spec: { containers: [{ name: 'a', image: '1', ports }], hostname: 'h' } };
    const merged = mergeObjects(
      live,
      { spec: { containers: [{ name: 'a', image: '2', ports: [{ containerPort: 80, protocol: 'TCP' }] }] } },
      shape,
    );
    const container = (merged.spec as { containers: JsonObject[] }).containers[0] as JsonObject;
    expect(container.image).toBe('2');
    expect(container.ports).toBe(ports);
    expect(merged).not.toBe(live);
    // Nothing changed at all: the live object comes back.
    expect(mergeObjects(live, { spec: { hostname: 'h', containers: [{ name: 'a', ports }] } }, shape)).toBe(live);
  });

  it('merge/changed-not-shared: a new key, a new item or a new order gives a new value', () => {
    const live: JsonObject = { spec: { containers: [{ name: 'a' }, { name: 'b' }] } };
    const cases: JsonObject[] = [
      { spec: { hostname: 'h' } },
      { spec: { containers: [{ name: 'a', image: 'x' }] } },
      { spec: { containers: [{ name: 'c' }] } },
      { spec: { containers: [{ name: 'b' }, { name: 'a' }] } },
    ];
    for (const config of cases) {
      const merged = mergeObjects(live, config, shape);
      expect(merged, JSON.stringify(config)).not.toBe(live);
      expect(merged.spec, JSON.stringify(config)).not.toEqual(live.spec);
    }
  });
});

describe('compare', () => {
  it('compare/leaves: changed scalars are modified, new ones added, missing ones removed', () => {
    expect(show(compareObjects({ spec: { replicas: 1, hostname: 'h' } }, { spec: { replicas: 2, paused: true } }, shape))).toEqual({
      added: ['.spec.paused'],
      removed: ['.spec.hostname'],
      modified: ['.spec.replicas'],
    });
  });

  it('compare/new-container-itself-added: a struct or item that appears is added besides its contents', () => {
    expect(show(compareObjects({}, { spec: { containers: [{ name: 'a' }] } }, shape)).added).toEqual([
      '.spec',
      '.spec.containers',
      '.spec.containers[name="a"]',
      '.spec.containers[name="a"].name',
    ]);
  });

  it('compare/empty-values-as-leaves: {} against null is a modified leaf; absent against [] an added one', () => {
    expect(show(compareObjects({ spec: { strategy: {} } }, { spec: { strategy: null, containers: [] } }, shape))).toEqual({
      added: ['.spec.containers'],
      removed: [],
      modified: ['.spec.strategy'],
    });
  });

  it('compare/atomic: any change inside an atomic value modifies the value', () => {
    expect(
      show(compareObjects({ spec: { tolerations: [{ key: 'a' }] } }, { spec: { tolerations: [{ key: 'b' }] } }, shape)).modified,
    ).toEqual(['.spec.tolerations']);
  });
});

describe('prune', () => {
  it('prune/released-only: only what the applier released and no one owns goes', () => {
    const merged = { spec: { replicas: 1, paused: true, hostname: 'h' } };
    const released = fieldSetOf({ spec: { replicas: 1, paused: true } }, PodSchema);
    const owned = fieldSetOf({ spec: { replicas: 1 } }, PodSchema);
    expect(pruneReleased(merged, released, owned, shape)).toEqual({ spec: { replicas: 1, hostname: 'h' } });
  });
});
