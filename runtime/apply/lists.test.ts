import { describe, expect, it } from 'vitest';
import { container, managedFieldsJson, pod, runScenario } from './scenario.testing.js';

const web = (rest = {}) => container('web', rest);
const side = (rest = {}) => container('side', rest);
const item = (name: string, ...rest: string[]) => [
  `.spec.containers[name="${name}"]`,
  ...['name', ...rest].map((f) => `.spec.containers[name="${name}"].${f}`),
];

describe('list maps', () => {
  it('list-map/merge-by-key: each applier changes its own item, the others stay', () => {
    runScenario({
      steps: [
        { manager: 'a', apply: pod({ containers: [web({ image: '1' })] }) },
        { manager: 'b', apply: pod({ containers: [side({ image: 'envoy' })] }) },
        { manager: 'a', apply: pod({ containers: [web({ image: '2' })] }) },
      ],
      object: pod({ containers: [web({ image: '2' }), side({ image: 'envoy' })] }),
      managed: { 'a/Apply': item('web', 'image'), 'b/Apply': item('side', 'image') },
    });
  });

  it('list-map/omit-item-removes: an item the applier owned alone and omits now is removed', () => {
    runScenario({
      steps: [
        { manager: 'a', apply: pod({ containers: [web({ image: '1' }), side({ image: '2' })] }) },
        { manager: 'a', apply: pod({ containers: [web({ image: '1' })] }) },
      ],
      object: pod({ containers: [web({ image: '1' })] }),
      managed: { 'a/Apply': item('web', 'image') },
    });
  });

  it('list-map/omit-shared-item-stays: an item another applier also applied stays', () => {
    runScenario({
      steps: [
        { manager: 'a', apply: pod({ containers: [web({ image: '1', imagePullPolicy: 'Always' })] }) },
        { manager: 'b', apply: pod({ containers: [web({ image: '1' })] }) },
        { manager: 'a', apply: pod(undefined) },
      ],
      object: pod({ containers: [web({ image: '1' })] }),
      managed: { 'b/Apply': item('web', 'image') },
    });
  });

  it('list-map/omit-item-owned-inside-by-updater: the item goes although an updater owns a field inside', () => {
    runScenario({
      steps: [
        { manager: 'a', apply: pod({ containers: [web({ image: '1' })] }) },
        { manager: 'ctl', update: pod({ containers: [web({ image: '2' })] }) },
        { manager: 'a', apply: pod(undefined) },
      ],
      object: pod({ containers: [] }),
      managed: {},
    });
  });

  it('list-map/nested-list-map: env entries inside an item merge by name across appliers', () => {
    runScenario({
      steps: [
        { manager: 'a', apply: pod({ containers: [web({ env: [{ name: 'A', value: '1' }] })] }) },
        { manager: 'b', apply: pod({ containers: [web({ env: [{ name: 'B', value: '2' }] })] }) },
      ],
      object: pod({
        containers: [
          web({
            env: [
              { name: 'A', value: '1' },
              { name: 'B', value: '2' },
            ],
          }),
        ],
      }),
      managed: {
        'a/Apply': [
          ...item('web'),
          '.spec.containers[name="web"].env[name="A"]',
          '.spec.containers[name="web"].env[name="A"].name',
          '.spec.containers[name="web"].env[name="A"].value',
        ],
        'b/Apply': [
          ...item('web'),
          '.spec.containers[name="web"].env[name="B"]',
          '.spec.containers[name="web"].env[name="B"].name',
          '.spec.containers[name="web"].env[name="B"].value',
        ],
      },
    });
  });

  it('list-map/two-keys: ports keyed by containerPort and protocol are distinct per protocol', () => {
    runScenario({
      steps: [
        { manager: 'a', apply: pod({ containers: [web({ ports: [{ containerPort: 53 }, { containerPort: 53, protocol: 'UDP' }] })] }) },
      ],
      managed: {
        'a/Apply': [
          ...item('web'),
          '.spec.containers[name="web"].ports[containerPort=53,protocol="TCP"]',
          '.spec.containers[name="web"].ports[containerPort=53,protocol="TCP"].containerPort',
          '.spec.containers[name="web"].ports[containerPort=53,protocol="UDP"]',
          '.spec.containers[name="web"].ports[containerPort=53,protocol="UDP"].containerPort',
          '.spec.containers[name="web"].ports[containerPort=53,protocol="UDP"].protocol',
        ],
      },
    });
  });

  it('list-map/two-keys-default: an item without the defaulted key matches the live item with the default', () => {
    runScenario({
      steps: [
        { manager: 'ctl', update: pod({ containers: [web({ ports: [{ containerPort: 80, protocol: 'TCP' }] })] }) },
        { manager: 'a', apply: pod({ containers: [web({ ports: [{ containerPort: 80, name: 'http' }] })] }) },
      ],
      object: pod({ containers: [web({ ports: [{ containerPort: 80, protocol: 'TCP', name: 'http' }] })] }),
    });
  });

  it('list-map/two-keys-encoding: a two-field key is written with fields sorted and JSON-encoded', () => {
    const live = runScenario({
      steps: [{ manager: 'a', apply: pod({ containers: [web({ ports: [{ protocol: 'UDP', containerPort: 53 }] })] }) }],
    });
    const [entry] = managedFieldsJson(live) as {
      fieldsV1: Record<string, Record<string, Record<string, Record<string, Record<string, unknown>>>>>;
    }[];
    const ports = entry?.fieldsV1['f:spec']?.['f:containers']?.['k:{"name":"web"}']?.['f:ports'];
    expect(Object.keys(ports ?? {})).toEqual(['k:{"containerPort":53,"protocol":"UDP"}']);
  });

  it('list-map/missing-key-rejected: an applied item without its key and no default is refused', () => {
    runScenario({ steps: [{ manager: 'a', apply: pod({ containers: [{ image: 'x' }] }), rejected: 'invalid-config' }] });
  });

  it('list-map/duplicate-key-rejected: an applied list naming an item twice is refused', () => {
    runScenario({ steps: [{ manager: 'a', apply: pod({ containers: [web(), web()] }), rejected: 'invalid-config' }] });
  });

  it('list-map/order: applied items keep the applied order, live-only items keep their place', () => {
    runScenario({
      steps: [
        { manager: 'ctl', update: pod({ containers: [container('B'), container('C'), container('A')] }) },
        { manager: 'a', apply: pod({ containers: [container('A', { image: 'a' }), container('B', { image: 'b' }), container('D')] }) },
      ],
      object: pod({ containers: [container('C'), container('A', { image: 'a' }), container('B', { image: 'b' }), container('D')] }),
    });
  });

  it('list-map/order-append: a new item goes after the live items', () => {
    runScenario({
      steps: [
        { manager: 'a', apply: pod({ containers: [web(), side()] }) },
        { manager: 'b', apply: pod({ containers: [container('third')] }) },
      ],
      object: pod({ containers: [web(), side(), container('third')] }),
    });
  });
});

describe('sets', () => {
  const fin = (...v: string[]) => v.map((x) => `.metadata.finalizers[="${x}"]`);

  it('set/merge-by-value: appliers add their own values; values are owned one by one', () => {
    runScenario({
      steps: [
        { manager: 'a', apply: pod(undefined, { finalizers: ['x'] }) },
        { manager: 'b', apply: pod(undefined, { finalizers: ['y'] }) },
      ],
      object: pod(undefined, { finalizers: ['x', 'y'] }),
      managed: { 'a/Apply': fin('x'), 'b/Apply': fin('y') },
    });
  });

  it('set/omit-value-removes: a value the applier owned alone and omits now is removed', () => {
    runScenario({
      steps: [
        { manager: 'a', apply: pod(undefined, { finalizers: ['x', 'y'] }) },
        { manager: 'a', apply: pod(undefined, { finalizers: ['x'] }) },
      ],
      object: pod(undefined, { finalizers: ['x'] }),
      managed: { 'a/Apply': fin('x') },
    });
  });

  it('set/omit-shared-value-stays: a value another applier also applied stays', () => {
    runScenario({
      steps: [
        { manager: 'a', apply: pod(undefined, { finalizers: ['x', 'y'] }) },
        { manager: 'b', apply: pod(undefined, { finalizers: ['y'] }) },
        { manager: 'a', apply: pod(undefined, { finalizers: ['x'] }) },
      ],
      object: pod(undefined, { finalizers: ['x', 'y'] }),
      managed: { 'a/Apply': fin('x'), 'b/Apply': fin('y') },
    });
  });

  it('set/no-conflict: values are leaves; applying another value never conflicts', () => {
    runScenario({
      steps: [
        { manager: 'a', apply: pod({ gates: ['one'] }) },
        { manager: 'b', apply: pod({ gates: ['two', 'one'] }) },
      ],
      object: pod({ gates: ['two', 'one'] }),
      managed: { 'a/Apply': ['.spec.gates[="one"]'], 'b/Apply': ['.spec.gates[="one"]', '.spec.gates[="two"]'] },
    });
  });

  it('set/encoding: set values are written as v:<json>', () => {
    const live = runScenario({ steps: [{ manager: 'a', apply: pod(undefined, { finalizers: ['example.com/x'] }) }] });
    expect((managedFieldsJson(live) as { fieldsV1: unknown }[])[0]?.fieldsV1).toEqual({
      'f:metadata': { 'f:finalizers': { 'v:"example.com/x"': {} } },
    });
  });

  it('set/empty-list-owns-nothing: an applied empty granular list is set but records no ownership', () => {
    runScenario({
      steps: [{ manager: 'a', apply: pod({ replicas: 1 }, { finalizers: [] }) }],
      object: pod({ replicas: 1 }, { finalizers: [] }),
      managed: { 'a/Apply': ['.spec.replicas'] },
    });
  });
});

describe('atomic lists', () => {
  const t = (key: string) => ({ key, operator: 'Exists' });

  it('atomic-list/replaced-whole: an applied atomic list replaces the live one and is owned as one field', () => {
    runScenario({
      steps: [
        { manager: 'a', apply: pod({ tolerations: [t('a'), t('b')] }) },
        { manager: 'a', apply: pod({ tolerations: [t('c')] }) },
      ],
      object: pod({ tolerations: [t('c')] }),
      managed: { 'a/Apply': ['.spec.tolerations'] },
    });
  });

  it('atomic-list/conflict: another applier changing any item conflicts on the whole list', () => {
    runScenario({
      steps: [
        { manager: 'a', apply: pod({ tolerations: [t('a')] }) },
        { manager: 'b', apply: pod({ tolerations: [t('a'), t('b')] }), conflicts: ['a: .spec.tolerations'] },
      ],
    });
  });

  it('atomic-list/equal-shared: the same atomic list applied by two appliers is shared', () => {
    runScenario({
      steps: [
        { manager: 'a', apply: pod({ tolerations: [t('a')] }) },
        { manager: 'b', apply: pod({ tolerations: [t('a')] }) },
      ],
      managed: { 'a/Apply': ['.spec.tolerations'], 'b/Apply': ['.spec.tolerations'] },
    });
  });

  it('atomic-list/unmarked-is-atomic: a list with no marker on a built-in kind is atomic', () => {
    runScenario({
      steps: [
        { manager: 'a', apply: pod({ containers: [web({ command: ['sh'] })] }) },
        { manager: 'b', apply: pod({ containers: [web({ command: ['bash'] })] }), conflicts: ['a: .spec.containers[name="web"].command'] },
      ],
    });
  });
});

describe('legacy patch markers', () => {
  it('legacy/merge-key-read-as-list-map: patchStrategy merge with patchMergeKey merges by that key', () => {
    runScenario({
      steps: [
        { manager: 'a', apply: pod({ initContainers: [container('init-a')] }) },
        { manager: 'b', apply: pod({ initContainers: [container('init-b')] }) },
      ],
      object: pod({ initContainers: [container('init-a'), container('init-b')] }),
      managed: {
        'a/Apply': ['.spec.initContainers[name="init-a"]', '.spec.initContainers[name="init-a"].name'],
        'b/Apply': ['.spec.initContainers[name="init-b"]', '.spec.initContainers[name="init-b"].name'],
      },
    });
  });

  it('legacy/merge-without-key-read-as-set: patchStrategy merge on a list of strings is a set', () => {
    runScenario({
      steps: [
        { manager: 'a', apply: pod({ dnsConfig: { nameservers: ['1.1.1.1'] } }) },
        { manager: 'b', apply: pod({ dnsConfig: { nameservers: ['8.8.8.8'] } }) },
      ],
      object: pod({ dnsConfig: { nameservers: ['1.1.1.1', '8.8.8.8'] } }),
      managed: { 'a/Apply': ['.spec.dnsConfig.nameservers[="1.1.1.1"]'], 'b/Apply': ['.spec.dnsConfig.nameservers[="8.8.8.8"]'] },
    });
  });

  it('legacy/list-type-wins: an explicit list type overrides the legacy markers', () => {
    runScenario({
      steps: [
        { manager: 'a', apply: pod({ volumes: [{ name: 'v1' }] }) },
        { manager: 'b', apply: pod({ volumes: [{ name: 'v2' }] }), conflicts: ['a: .spec.volumes'] },
      ],
    });
  });

  it('legacy/unmarked-sibling-atomic: a sibling list without markers stays atomic', () => {
    runScenario({
      steps: [
        { manager: 'a', apply: pod({ dnsConfig: { searches: ['a.local'] } }) },
        { manager: 'b', apply: pod({ dnsConfig: { searches: ['b.local'] } }), conflicts: ['a: .spec.dnsConfig.searches'] },
      ],
    });
  });
});

describe('index lists', () => {
  it('index-list/items-by-position: a map list without keys names its items by index', () => {
    const live = runScenario({
      steps: [{ manager: 'a', apply: pod({ readinessGates: [{ conditionType: 'x' }] }) }],
      managed: { 'a/Apply': ['.spec.readinessGates[0]', '.spec.readinessGates[0].conditionType'] },
    });
    expect((managedFieldsJson(live) as { fieldsV1: unknown }[])[0]?.fieldsV1).toEqual({
      'f:spec': { 'f:readinessGates': { 'i:0': { '.': {}, 'f:conditionType': {} } } },
    });
  });

  it('index-list/merge-by-position: items at the same position merge', () => {
    runScenario({
      steps: [
        { manager: 'a', apply: pod({ readinessGates: [{ conditionType: 'x' }] }) },
        { manager: 'b', apply: pod({ readinessGates: [{ conditionType: 'y' }] }), conflicts: ['a: .spec.readinessGates[0].conditionType'] },
      ],
    });
  });
});
