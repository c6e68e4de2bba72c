import { describe, it } from 'vitest';
import { container, pod, runScenario } from './scenario.testing.js';
import { topology, withSpecField } from './pod-schema.testing.js';

const t = (key: string) => ({ key, operator: 'Exists' });
const granularTolerations = withSpecField('tolerations', topology.tolerationsGranular);
const atomicTolerations = withSpecField('tolerations', topology.tolerationsAtomic);

describe('topology change: granular to atomic', () => {
  it('topology/list-to-atomic-owned-whole: every manager that owned an item owns the whole list', () => {
    runScenario({
      schema: granularTolerations,
      steps: [
        { manager: 'a', apply: pod({ tolerations: [t('a')] }) },
        { manager: 'b', apply: pod({ tolerations: [t('b')] }) },
        { manager: 'c', apply: pod({ hostname: 'h' }), schema: atomicTolerations },
      ],
      object: pod({ tolerations: [t('a'), t('b')], hostname: 'h' }),
      managed: { 'a/Apply': ['.spec.tolerations'], 'b/Apply': ['.spec.tolerations'], 'c/Apply': ['.spec.hostname'] },
    });
  });

  it('topology/list-to-atomic-change-conflicts: any later change of the list conflicts with the other owners', () => {
    runScenario({
      schema: granularTolerations,
      steps: [
        { manager: 'a', apply: pod({ tolerations: [t('a')] }) },
        { manager: 'b', apply: pod({ tolerations: [t('b')] }) },
        { manager: 'a', apply: pod({ tolerations: [t('a'), t('c')] }), schema: atomicTolerations, conflicts: ['b: .spec.tolerations'] },
        { manager: 'a', apply: pod({ tolerations: [t('a'), t('b')] }) },
      ],
      managed: { 'a/Apply': ['.spec.tolerations'], 'b/Apply': ['.spec.tolerations'] },
    });
  });

  it('topology/list-to-atomic-update-takes-whole: an update changing the now atomic list takes it from all', () => {
    runScenario({
      schema: granularTolerations,
      steps: [
        { manager: 'a', apply: pod({ tolerations: [t('a')] }) },
        { manager: 'b', apply: pod({ tolerations: [t('b')] }) },
        { manager: 'edit', update: pod({ tolerations: [t('b')] }), schema: atomicTolerations },
      ],
      managed: { 'edit/Update': ['.spec.tolerations'] },
    });
  });

  it('topology/nested-list-to-atomic: owners of fields deep inside list items own the whole list', () => {
    runScenario({
      steps: [
        { manager: 'a', apply: pod({ containers: [container('web', { image: '1' })] }) },
        { manager: 'b', apply: pod({ containers: [container('web', { env: [{ name: 'X', value: '1' }] })] }) },
        {
          manager: 'c',
          apply: pod({ containers: [container('web', { image: '1' })] }),
          schema: withSpecField('containers', topology.containersAtomic),
          conflicts: ['a: .spec.containers', 'b: .spec.containers'],
        },
      ],
    });
  });

  it('topology/map-to-atomic: owners of keys of a map that became atomic own the map, and conflict on changes', () => {
    runScenario({
      schema: withSpecField('nodeSelector', topology.nodeSelectorGranular),
      steps: [
        { manager: 'a', apply: pod({ nodeSelector: { x: '1' } }) },
        { manager: 'b', apply: pod({ nodeSelector: { y: '1' } }) },
        {
          manager: 'c',
          apply: pod({ nodeSelector: { x: '1', y: '1', z: '1' } }),
          schema: withSpecField('nodeSelector', topology.nodeSelectorAtomic),
          conflicts: ['a: .spec.nodeSelector', 'b: .spec.nodeSelector'],
        },
      ],
    });
  });

  it('topology/struct-to-atomic: owners of fields of a struct that became atomic own the struct', () => {
    runScenario({
      steps: [
        { manager: 'a', apply: pod({ strategy: { type: 'Recreate' } }) },
        { manager: 'b', apply: pod({ hostname: 'h' }), schema: withSpecField('strategy', topology.strategyAtomic) },
      ],
      managed: { 'a/Apply': ['.spec.strategy'], 'b/Apply': ['.spec.hostname'] },
    });
  });

  it('topology/set-to-atomic: owners of set values own the whole list once it is atomic', () => {
    runScenario({
      steps: [
        { manager: 'a', apply: pod({ gates: ['x'] }) },
        { manager: 'b', apply: pod({ gates: ['y'] }) },
        {
          manager: 'b',
          apply: pod({ gates: ['y', 'z'] }),
          schema: withSpecField('gates', topology.gatesAtomic),
          conflicts: ['a: .spec.gates'],
        },
      ],
    });
  });
});

describe('topology change: atomic to granular', () => {
  it('topology/list-to-granular-top-level-kept: the owner keeps the field but owns no entries; no conflict', () => {
    runScenario({
      schema: atomicTolerations,
      steps: [
        { manager: 'a', apply: pod({ tolerations: [t('a')] }) },
        { manager: 'b', apply: pod({ tolerations: [t('b')] }), schema: granularTolerations },
      ],
      object: pod({ tolerations: [t('a'), t('b')] }),
      managed: {
        'a/Apply': ['.spec.tolerations'],
        'b/Apply': ['.spec.tolerations[key="b"]', '.spec.tolerations[key="b"].key', '.spec.tolerations[key="b"].operator'],
      },
    });
  });

  it('topology/list-to-granular-entry-change-no-conflict: changing an entry the old owner set conflicts with no one', () => {
    runScenario({
      schema: atomicTolerations,
      steps: [
        { manager: 'a', apply: pod({ tolerations: [t('a')] }) },
        { manager: 'b', apply: pod({ tolerations: [{ key: 'a', operator: 'Equal' }] }), schema: granularTolerations },
      ],
      object: pod({ tolerations: [{ key: 'a', operator: 'Equal' }] }),
    });
  });

  it('topology/map-to-granular: a former atomic map owner does not block changes of its keys', () => {
    runScenario({
      schema: withSpecField('nodeSelector', topology.nodeSelectorAtomic),
      steps: [
        { manager: 'a', apply: pod({ nodeSelector: { x: '1' } }) },
        { manager: 'b', apply: pod({ nodeSelector: { x: '2' } }), schema: withSpecField('nodeSelector', topology.nodeSelectorGranular) },
      ],
      object: pod({ nodeSelector: { x: '2' } }),
      managed: { 'a/Apply': ['.spec.nodeSelector'], 'b/Apply': ['.spec.nodeSelector.x'] },
    });
  });

  it('topology/struct-to-granular-update: an update of a field of a formerly atomic struct takes only that field', () => {
    runScenario({
      steps: [
        { manager: 'a', apply: pod({ securityContext: { runAsUser: 1 } }) },
        {
          manager: 'edit',
          update: pod({ securityContext: { runAsUser: 2 } }),
          schema: withSpecField('securityContext', topology.securityContextGranular),
        },
      ],
      managed: { 'a/Apply': ['.spec.securityContext'], 'edit/Update': ['.spec.securityContext.runAsUser'] },
    });
  });

  it('topology/list-to-granular-omit-keeps-others: the old owner omitting the field leaves entries others own', () => {
    runScenario({
      schema: atomicTolerations,
      steps: [
        { manager: 'a', apply: pod({ tolerations: [t('a')] }) },
        { manager: 'b', apply: pod({ tolerations: [t('b')] }), schema: granularTolerations },
        { manager: 'a', apply: pod({ hostname: 'h' }) },
      ],
      object: pod({ tolerations: [t('a'), t('b')], hostname: 'h' }),
    });
  });
});
