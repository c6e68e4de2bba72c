import { describe, it } from 'vitest';
import { pod, runScenario } from './scenario.testing.js';

describe('granular maps', () => {
  it('granular-map/merge-by-key: appliers own their own keys; all keys stay', () => {
    runScenario({
      steps: [
        { manager: 'a', apply: pod(undefined, { labels: { app: 'web' } }) },
        { manager: 'b', apply: pod(undefined, { labels: { tier: 'fe' } }) },
      ],
      object: pod(undefined, { labels: { app: 'web', tier: 'fe' } }),
      managed: { 'a/Apply': ['.metadata.labels.app'], 'b/Apply': ['.metadata.labels.tier'] },
    });
  });

  it('granular-map/omit-key-removes: a key the applier owned alone and omits now is removed', () => {
    runScenario({
      steps: [
        { manager: 'a', apply: pod(undefined, { labels: { app: 'web', old: 'x' } }) },
        { manager: 'a', apply: pod(undefined, { labels: { app: 'web' } }) },
      ],
      object: pod(undefined, { labels: { app: 'web' } }),
    });
  });

  it('granular-map/omit-map-keeps-others: omitting the whole map removes only the applier keys', () => {
    runScenario({
      steps: [
        { manager: 'a', apply: pod(undefined, { labels: { app: 'web' } }) },
        { manager: 'b', apply: pod(undefined, { labels: { tier: 'fe' } }) },
        { manager: 'a', apply: pod(undefined) },
      ],
      object: pod(undefined, { labels: { tier: 'fe' } }),
      managed: { 'b/Apply': ['.metadata.labels.tier'] },
    });
  });

  it('granular-map/conflict-same-key: another value for a key another manager owns conflicts', () => {
    runScenario({
      steps: [
        { manager: 'a', apply: pod(undefined, { labels: { app: 'web' } }) },
        { manager: 'b', apply: pod(undefined, { labels: { app: 'api' } }), conflicts: ['a: .metadata.labels.app'] },
      ],
    });
  });

  it('granular-map/shared-key: the same value for a key is shared', () => {
    runScenario({
      steps: [
        { manager: 'a', apply: pod(undefined, { annotations: { note: 'x' } }) },
        { manager: 'b', apply: pod(undefined, { annotations: { note: 'x' } }) },
      ],
      managed: { 'a/Apply': ['.metadata.annotations.note'], 'b/Apply': ['.metadata.annotations.note'] },
    });
  });

  it('granular-map/empty-map-leaf: an applied empty map is owned as one leaf', () => {
    runScenario({
      steps: [{ manager: 'a', apply: pod(undefined, { labels: {} }) }],
      object: pod(undefined, { labels: {} }),
      managed: { 'a/Apply': ['.metadata.labels'] },
    });
  });
});

describe('atomic maps', () => {
  it('atomic-map/replaced-whole: an applied atomic map replaces the live one, owned as one field', () => {
    runScenario({
      steps: [
        { manager: 'a', apply: pod({ nodeSelector: { disk: 'ssd', zone: 'a' } }) },
        { manager: 'a', apply: pod({ nodeSelector: { disk: 'ssd' } }) },
      ],
      object: pod({ nodeSelector: { disk: 'ssd' } }),
      managed: { 'a/Apply': ['.spec.nodeSelector'] },
    });
  });

  it('atomic-map/conflict-on-any-key: adding a key to an atomic map owned by another conflicts', () => {
    runScenario({
      steps: [
        { manager: 'a', apply: pod({ nodeSelector: { disk: 'ssd' } }) },
        { manager: 'b', apply: pod({ nodeSelector: { disk: 'ssd', gpu: 'yes' } }), conflicts: ['a: .spec.nodeSelector'] },
      ],
    });
  });

  it('atomic-map/granular-vs-atomic: the same change merges in a granular map but conflicts in an atomic one', () => {
    runScenario({
      steps: [
        { manager: 'a', apply: pod(undefined, { labels: { disk: 'ssd' } }) },
        { manager: 'b', apply: pod(undefined, { labels: { gpu: 'yes' } }) },
      ],
      object: pod(undefined, { labels: { disk: 'ssd', gpu: 'yes' } }),
    });
    runScenario({
      steps: [
        { manager: 'a', apply: pod({ nodeSelector: { disk: 'ssd' } }) },
        { manager: 'b', apply: pod({ nodeSelector: { gpu: 'yes' } }), conflicts: ['a: .spec.nodeSelector'] },
      ],
    });
  });
});

describe('structs', () => {
  it('atomic-struct/owned-whole: a struct marked atomic is one leaf', () => {
    runScenario({
      steps: [{ manager: 'a', apply: pod({ securityContext: { runAsUser: 1000, runAsGroup: 1000 } }) }],
      managed: { 'a/Apply': ['.spec.securityContext'] },
    });
  });

  it('atomic-struct/replaced-whole: applying part of an atomic struct drops the rest', () => {
    runScenario({
      steps: [
        { manager: 'a', apply: pod({ securityContext: { runAsUser: 1000, runAsGroup: 1000 } }) },
        { manager: 'a', apply: pod({ securityContext: { runAsUser: 1000 } }) },
      ],
      object: pod({ securityContext: { runAsUser: 1000 } }),
    });
  });

  it('atomic-struct/conflict-on-disjoint-fields: another field of an atomic struct owned by another conflicts', () => {
    runScenario({
      steps: [
        { manager: 'a', apply: pod({ securityContext: { runAsUser: 1000 } }) },
        { manager: 'b', apply: pod({ securityContext: { runAsNonRoot: true } }), conflicts: ['a: .spec.securityContext'] },
      ],
    });
  });

  it('granular-struct/merge-by-field: fields of a granular struct are owned one by one', () => {
    runScenario({
      steps: [
        { manager: 'a', apply: pod({ strategy: { type: 'Recreate' } }) },
        { manager: 'b', apply: pod({ strategy: { maxSurge: '25%' } }) },
      ],
      object: pod({ strategy: { type: 'Recreate', maxSurge: '25%' } }),
      managed: { 'a/Apply': ['.spec.strategy.type'], 'b/Apply': ['.spec.strategy.maxSurge'] },
    });
  });

  it('granular-struct/nested-maps: maps inside a struct inside a list item merge key by key', () => {
    runScenario({
      steps: [
        { manager: 'a', apply: pod({ containers: [{ name: 'web', resources: { requests: { cpu: '1' } } }] }) },
        { manager: 'b', apply: pod({ containers: [{ name: 'web', resources: { requests: { memory: '1Gi' }, limits: { cpu: '2' } } }] }) },
      ],
      object: pod({ containers: [{ name: 'web', resources: { requests: { cpu: '1', memory: '1Gi' }, limits: { cpu: '2' } } }] }),
    });
  });

  it('scalar/int-or-string: a changed int-or-string value conflicts as a scalar', () => {
    runScenario({
      steps: [
        { manager: 'a', apply: pod({ strategy: { maxSurge: 1 } }) },
        { manager: 'b', apply: pod({ strategy: { maxSurge: '25%' } }), conflicts: ['a: .spec.strategy.maxSurge'] },
      ],
    });
  });
});

describe('untyped content', () => {
  it('untyped/objects-granular: objects of a raw field merge key by key, each key owned as a key', () => {
    runScenario({
      steps: [
        { manager: 'a', apply: { ...pod(undefined), extra: { x: { y: 1 } } } },
        { manager: 'b', apply: { ...pod(undefined), extra: { x: { z: 2 } } } },
      ],
      object: { ...pod(undefined), extra: { x: { y: 1, z: 2 } } },
      managed: { 'a/Apply': ['.extra.x', '.extra.x.y'], 'b/Apply': ['.extra.x', '.extra.x.z'] },
    });
  });

  it('untyped/lists-atomic: lists of a raw field are replaced whole and conflict whole', () => {
    runScenario({
      steps: [
        { manager: 'a', apply: { ...pod(undefined), extra: { list: [1, 2] } } },
        { manager: 'b', apply: { ...pod(undefined), extra: { list: [1] } }, conflicts: ['a: .extra.list'] },
      ],
    });
  });
});
