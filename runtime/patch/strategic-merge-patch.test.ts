import { describe, expect, it, vi } from 'vitest';
import { applyStrategicMergePatch, isPatchError, type PatchErrorReason } from './index.js';
import { PodSchema } from './pod-schema.testing.js';

/** One case in the style of the real system's patch_test.go: original + patch gives result or error. */
interface Case {
  description: string;
  original: unknown;
  patch: unknown;
  result?: unknown;
  error?: { reason: PatchErrorReason; path: string; detail?: string };
}

const containers = (...items: unknown[]) => ({ spec: { containers: items } });
const finalizers = (...items: string[]) => ({ metadata: { finalizers: items } });
const c = (name: string, rest: Record<string, unknown> = {}) => ({ name, ...rest });

const CASES: Case[] = [
  // Merge by key.
  {
    description: 'merge by key: a new container goes before the live-only ones, as the real system orders it',
    original: containers(c('a', { image: 'a:1' })),
    patch: containers(c('b', { image: 'b:1' })),
    result: containers(c('b', { image: 'b:1' }), c('a', { image: 'a:1' })),
  },
  {
    description: 'merge by key: a named container is merged, the others stay',
    original: containers(c('a', { image: 'a:1', args: ['x'] }), c('b', { image: 'b:1' })),
    patch: containers(c('b', { image: 'b:2' })),
    result: containers(c('a', { image: 'a:1', args: ['x'] }), c('b', { image: 'b:2' })),
  },
  {
    description: 'merge by key: patch items keep the patch order, live-only items keep their live place',
    original: containers(c('B', { image: 'b' }), c('C'), c('A', { image: 'a' })),
    patch: containers(c('A', { image: "a'" }), c('B', { image: "b'" }), c('D')),
    result: containers(c('C'), c('A', { image: "a'" }), c('B', { image: "b'" }), c('D')),
  },
  {
    description: 'merge by key: null removes a member of a matched item',
    original: containers(c('a', { image: 'a:1', imagePullPolicy: 'Always' })),
    patch: containers(c('a', { imagePullPolicy: null })),
    result: containers(c('a', { image: 'a:1' })),
  },
  {
    description: 'merge by key: the first of duplicate live items is merged',
    original: containers(c('a', { image: '1' }), c('a', { image: '2' })),
    patch: containers(c('a', { image: '3' })),
    result: containers(c('a', { image: '3' }), c('a', { image: '2' })),
  },
  {
    description: 'merge by key: an item without its merge key is an error',
    original: containers(c('a')),
    patch: containers({ image: 'x' }),
    error: { reason: 'malformed', path: '/spec/containers/0', detail: 'expected an object with scalar "name", not {"image":"x"}' },
  },
  {
    description: 'merge by key: a scalar item in a keyed list is an error',
    original: containers(c('a')),
    patch: containers('a'),
    error: { reason: 'malformed', path: '/spec/containers/0', detail: 'items of this list are objects keyed by "name", not "a"' },
  },
  {
    description: 'merge by key: a list keyed by list type only (no legacy marker) merges by its keys',
    original: {
      status: {
        conditions: [
          { type: 'Ready', status: 'False' },
          { type: 'Scheduled', status: 'True' },
        ],
      },
    },
    patch: { status: { conditions: [{ type: 'Ready', status: 'True' }] } },
    result: {
      status: {
        conditions: [
          { type: 'Ready', status: 'True' },
          { type: 'Scheduled', status: 'True' },
        ],
      },
    },
  },

  // Several keys: ports are keyed by containerPort and protocol.
  {
    description: 'several keys: the same port number with another protocol is another item',
    original: containers(c('a', { ports: [{ containerPort: 53, protocol: 'TCP' }] })),
    patch: containers(c('a', { ports: [{ containerPort: 53, protocol: 'UDP' }] })),
    result: containers(
      c('a', {
        ports: [
          { containerPort: 53, protocol: 'UDP' },
          { containerPort: 53, protocol: 'TCP' },
        ],
      }),
    ),
  },
  {
    description: 'several keys: a missing key takes its schema default (protocol TCP)',
    original: containers(c('a', { ports: [{ containerPort: 80, protocol: 'TCP', name: 'http' }] })),
    patch: containers(c('a', { ports: [{ containerPort: 80, hostPort: 8080 }] })),
    result: containers(c('a', { ports: [{ containerPort: 80, protocol: 'TCP', name: 'http', hostPort: 8080 }] })),
  },
  {
    description: 'several keys: an item is deleted when all its keys match',
    original: containers(
      c('a', {
        ports: [
          { containerPort: 53, protocol: 'TCP' },
          { containerPort: 53, protocol: 'UDP' },
        ],
      }),
    ),
    patch: containers(c('a', { ports: [{ containerPort: 53, protocol: 'UDP', $patch: 'delete' }] })),
    result: containers(c('a', { ports: [{ containerPort: 53, protocol: 'TCP' }] })),
  },
  {
    description: 'several keys: a key with neither a value nor a default is an error',
    original: containers(c('a', { ports: [{ containerPort: 53 }] })),
    patch: containers(c('a', { ports: [{ protocol: 'UDP' }] })),
    error: { reason: 'malformed', path: '/spec/containers/0/ports/0' },
  },

  // Delete by key.
  {
    description: 'delete by key: $patch delete removes the item',
    original: containers(c('a'), c('b')),
    patch: containers({ name: 'a', $patch: 'delete' }),
    result: containers(c('b')),
  },
  {
    description: 'delete by key: deleting an absent item changes nothing',
    original: containers(c('a')),
    patch: containers({ name: 'z', $patch: 'delete' }),
    result: containers(c('a')),
  },
  {
    description: 'delete by key: every duplicate is removed',
    original: containers(c('a', { image: '1' }), c('b'), c('a', { image: '2' })),
    patch: containers({ name: 'a', $patch: 'delete' }),
    result: containers(c('b')),
  },
  {
    description: 'delete by key: delete one item and add another in one patch',
    original: containers(c('a'), c('b')),
    patch: containers(c('c'), { name: 'a', $patch: 'delete' }),
    result: containers(c('c'), c('b')),
  },
  {
    description: 'delete by key: an unknown $patch in a list item is an error',
    original: containers(c('a')),
    patch: containers({ name: 'a', $patch: 'remove' }),
    error: {
      reason: 'malformed',
      path: '/spec/containers/0/$patch',
      detail: 'unknown directive "remove"; expected replace, delete or merge',
    },
  },

  // Replace.
  {
    description: 'replace: $patch replace in a list item replaces the whole list',
    original: containers(c('a'), c('b')),
    patch: containers(c('c', { image: 'c:1' }), { $patch: 'replace' }),
    result: containers(c('c', { image: 'c:1' })),
  },
  {
    description: 'replace: a lone $patch replace item empties the list',
    original: containers(c('a'), c('b')),
    patch: containers({ $patch: 'replace' }),
    result: containers(),
  },
  {
    description: 'replace: $patch replace on a map replaces the map',
    original: { metadata: { labels: { app: 'web', tier: 'front' } } },
    patch: { metadata: { labels: { $patch: 'replace', team: 'x' } } },
    result: { metadata: { labels: { team: 'x' } } },
  },
  {
    description: 'replace: $patch replace on a struct replaces it, dropping nulls inside',
    original: containers(c('a', { resources: { limits: { cpu: '1' }, requests: { cpu: '1' } } })),
    patch: containers(c('a', { resources: { $patch: 'replace', limits: { memory: '1Gi', cpu: null } } })),
    result: containers(c('a', { resources: { limits: { memory: '1Gi' } } })),
  },
  {
    description: 'replace: $patch delete on a map empties it, as the real system does',
    original: { spec: { nodeSelector: { disk: 'ssd' } } },
    patch: { spec: { nodeSelector: { $patch: 'delete' } } },
    result: { spec: { nodeSelector: {} } },
  },
  {
    description: 'replace: $patch delete at the top empties the object',
    original: { metadata: { name: 'web' }, spec: {} },
    patch: { $patch: 'delete' },
    result: {},
  },
  {
    description: 'replace: $patch merge asks for the usual merge',
    original: { metadata: { labels: { app: 'web' } } },
    patch: { metadata: { labels: { $patch: 'merge', team: 'x' } } },
    result: { metadata: { labels: { app: 'web', team: 'x' } } },
  },
  {
    description: 'replace: an unknown $patch on a map is an error',
    original: { metadata: { labels: {} } },
    patch: { metadata: { labels: { $patch: 'clear' } } },
    error: { reason: 'malformed', path: '/metadata/labels/$patch' },
  },
  {
    description: 'replace: a field marked patchStrategy replace is replaced whole',
    original: { spec: { affinity: { zone: 'a', rack: '1' } } },
    patch: { spec: { affinity: { zone: 'b' } } },
    result: { spec: { affinity: { zone: 'b' } } },
  },

  // retainKeys: volumes have patchStrategy merge,retainKeys.
  {
    description: 'retainKeys: members not listed are cleared, switching a volume source',
    original: { spec: { volumes: [{ name: 'data', emptyDir: { medium: 'Memory' } }] } },
    patch: { spec: { volumes: [{ name: 'data', $retainKeys: ['name', 'hostPath'], hostPath: { path: '/d' } }] } },
    result: { spec: { volumes: [{ name: 'data', hostPath: { path: '/d' } }] } },
  },
  {
    description: 'retainKeys: without the directive the item merges as usual',
    original: { spec: { volumes: [{ name: 'data', emptyDir: {} }] } },
    patch: { spec: { volumes: [{ name: 'data', hostPath: { path: '/d' } }] } },
    result: { spec: { volumes: [{ name: 'data', emptyDir: {}, hostPath: { path: '/d' } }] } },
  },
  {
    description: 'retainKeys: a member set to null need not be listed',
    original: { spec: { volumes: [{ name: 'data', emptyDir: {} }] } },
    patch: { spec: { volumes: [{ name: 'data', $retainKeys: ['name', 'hostPath'], hostPath: { path: '/d' }, emptyDir: null }] } },
    result: { spec: { volumes: [{ name: 'data', hostPath: { path: '/d' } }] } },
  },
  {
    description: 'retainKeys: a member the patch sets must be listed',
    original: { spec: { volumes: [{ name: 'data' }] } },
    patch: { spec: { volumes: [{ name: 'data', $retainKeys: ['name'], hostPath: { path: '/d' } }] } },
    error: {
      reason: 'malformed',
      path: '/spec/volumes/0/hostPath',
      detail: '"hostPath" is set by the patch but not listed in $retainKeys',
    },
  },
  {
    description: 'retainKeys: the directive must be a list of names',
    original: { spec: { volumes: [{ name: 'data' }] } },
    patch: { spec: { volumes: [{ name: 'data', $retainKeys: 'name' }] } },
    error: { reason: 'malformed', path: '/spec/volumes/0/$retainKeys' },
  },

  // $deleteFromPrimitiveList.
  {
    description: 'deleteFromPrimitiveList: removes a finalizer',
    original: finalizers('a', 'b', 'c'),
    patch: { metadata: { '$deleteFromPrimitiveList/finalizers': ['b'] } },
    result: finalizers('a', 'c'),
  },
  {
    description: 'deleteFromPrimitiveList: a value that is absent changes nothing',
    original: finalizers('a', 'b'),
    patch: { metadata: { '$deleteFromPrimitiveList/finalizers': ['z'] } },
    result: finalizers('a', 'b'),
  },
  {
    description: 'deleteFromPrimitiveList: an absent list stays absent',
    original: { metadata: { name: 'web' } },
    patch: { metadata: { '$deleteFromPrimitiveList/finalizers': ['a'] } },
    result: { metadata: { name: 'web' } },
  },
  {
    description: 'deleteFromPrimitiveList: works on a list that does not merge too, every occurrence',
    original: containers(c('a', { args: ['x', 'y', 'x'] })),
    patch: containers(c('a', { '$deleteFromPrimitiveList/args': ['x'] })),
    result: containers(c('a', { args: ['y'] })),
  },
  {
    description: 'deleteFromPrimitiveList: add and delete in one patch',
    original: finalizers('a', 'b'),
    patch: { metadata: { finalizers: ['c'], '$deleteFromPrimitiveList/finalizers': ['a'] } },
    result: finalizers('c', 'b'),
  },
  {
    description: 'deleteFromPrimitiveList: the directive needs /<field>',
    original: finalizers('a'),
    patch: { metadata: { $deleteFromPrimitiveList: ['a'] } },
    error: { reason: 'malformed', path: '/metadata/$deleteFromPrimitiveList' },
  },
  {
    description: 'deleteFromPrimitiveList: the directive holds a list',
    original: finalizers('a'),
    patch: { metadata: { '$deleteFromPrimitiveList/finalizers': 'a' } },
    error: { reason: 'malformed', path: '/metadata/$deleteFromPrimitiveList~1finalizers', detail: 'must be a list, not "a"' },
  },

  // $setElementOrder.
  {
    description: 'setElementOrder: reorders a keyed list without changing it',
    original: containers(c('a'), c('b'), c('c')),
    patch: { spec: { '$setElementOrder/containers': [{ name: 'c' }, { name: 'a' }, { name: 'b' }] } },
    result: containers(c('c'), c('a'), c('b')),
  },
  {
    description: 'setElementOrder: listed items take its order, interleaved with live-only items by live place',
    original: containers(c('x'), c('a'), c('y')),
    patch: { spec: { '$setElementOrder/containers': [{ name: 'b' }, { name: 'a' }], containers: [c('b')] } },
    // b has no live place, so it goes first; x comes before a and y after it, as they were live.
    result: containers(c('b'), c('x'), c('a'), c('y')),
  },
  {
    description: 'setElementOrder: the finalizers example of the real system with a deletion',
    original: finalizers('b', 'e', 'a', 'c', 'd'),
    patch: {
      metadata: {
        '$setElementOrder/finalizers': ['a', 'b', 'f'],
        '$deleteFromPrimitiveList/finalizers': ['c'],
        finalizers: ['f'],
      },
    },
    result: finalizers('e', 'a', 'b', 'f', 'd'),
  },
  {
    description: 'setElementOrder: names missing from the list are ignored',
    original: containers(c('a'), c('c')),
    patch: { spec: { '$setElementOrder/containers': [{ name: 'c' }, { name: 'b' }, { name: 'a' }] } },
    result: containers(c('c'), c('a')),
  },
  {
    description: 'setElementOrder: a patch list out of that order is an error',
    original: containers(c('a'), c('b')),
    patch: {
      spec: { '$setElementOrder/containers': [{ name: 'a' }, { name: 'b' }], containers: [c('b', { image: 'x' }), c('a', { image: 'y' })] },
    },
    error: { reason: 'malformed', path: '/spec/$setElementOrder~1containers' },
  },
  {
    description: 'setElementOrder: refused on a list that does not merge',
    original: { spec: { tolerations: [{ key: 'a' }, { key: 'b' }] } },
    patch: { spec: { '$setElementOrder/tolerations': [{ key: 'b' }, { key: 'a' }] } },
    error: { reason: 'malformed', path: '/spec/$setElementOrder~1tolerations' },
  },
  {
    description: 'setElementOrder: an absent list with nothing to merge stays absent',
    original: containers(c('a')),
    patch: { spec: { '$setElementOrder/initContainers': [{ name: 'init' }] } },
    result: containers(c('a')),
  },

  // Nested lists.
  {
    description: 'nested lists: env inside a container merges by name',
    original: containers(
      c('a', {
        env: [
          { name: 'A', value: '1' },
          { name: 'B', value: '2' },
        ],
      }),
    ),
    patch: containers(c('a', { env: [{ name: 'B', value: '3' }] })),
    result: containers(
      c('a', {
        env: [
          { name: 'A', value: '1' },
          { name: 'B', value: '3' },
        ],
      }),
    ),
  },
  {
    description: 'nested lists: a port inside a container is deleted by key (protocol defaulted)',
    original: containers(
      c('a', {
        ports: [
          { containerPort: 80, protocol: 'TCP' },
          { containerPort: 443, protocol: 'TCP' },
        ],
      }),
    ),
    patch: containers(c('a', { ports: [{ containerPort: 80, $patch: 'delete' }] })),
    result: containers(c('a', { ports: [{ containerPort: 443, protocol: 'TCP' }] })),
  },
  {
    description: 'nested lists: a non-merging list inside a merging list is replaced',
    original: containers(c('a', { args: ['x', 'y'] }), c('b', { args: ['k'] })),
    patch: containers(c('a', { args: ['z'] })),
    result: containers(c('a', { args: ['z'] }), c('b', { args: ['k'] })),
  },
  {
    description: 'nested lists: directives and nulls inside a new item are processed, not stored',
    original: { spec: {} },
    patch: containers(
      c('n', {
        image: null,
        env: [
          { name: 'X', value: '1' },
          { name: 'Y', $patch: 'delete' },
        ],
      }),
    ),
    result: containers(c('n', { env: [{ name: 'X', value: '1' }] })),
  },

  // Nulls.
  {
    description: 'nulls: null removes a label',
    original: { metadata: { labels: { app: 'web', tier: 'front' } } },
    patch: { metadata: { labels: { tier: null } } },
    result: { metadata: { labels: { app: 'web' } } },
  },
  {
    description: 'nulls: null for an absent member is dropped, not stored',
    original: { metadata: { labels: { app: 'web' } } },
    patch: { metadata: { labels: { gone: null } } },
    result: { metadata: { labels: { app: 'web' } } },
  },
  {
    description: 'nulls: null removes a whole merging list',
    original: containers(c('a')),
    patch: { spec: { containers: null } },
    result: { spec: {} },
  },
  {
    description: 'nulls: nulls inside a new map are dropped',
    original: { metadata: { name: 'web' } },
    patch: { metadata: { annotations: { a: '1', b: null } } },
    result: { metadata: { name: 'web', annotations: { a: '1' } } },
  },

  // Sets.
  {
    description: 'sets: union; a new value goes before the live-only ones, as the real system orders it',
    original: finalizers('a', 'b'),
    patch: finalizers('c'),
    result: finalizers('c', 'a', 'b'),
  },
  {
    description: 'sets: live values the patch names keep their place, new ones follow them',
    original: finalizers('a', 'b'),
    patch: finalizers('b', 'c'),
    result: finalizers('a', 'b', 'c'),
  },
  {
    description: 'sets: among values the patch names, the patch order wins',
    original: finalizers('a', 'b', 'c'),
    patch: finalizers('c', 'a'),
    result: finalizers('b', 'c', 'a'),
  },
  {
    description: 'sets: duplicates are dropped, live ones too',
    original: finalizers('a', 'a', 'b'),
    patch: finalizers('b', 'b'),
    result: finalizers('a', 'b'),
  },
  {
    description: 'sets: a list type set without legacy markers merges as a set',
    original: { spec: { gates: ['x'] } },
    patch: { spec: { gates: ['y', 'x'] } },
    result: { spec: { gates: ['y', 'x'] } },
  },
  {
    description: 'sets: an object in a set is an error',
    original: finalizers('a'),
    patch: { metadata: { finalizers: [{ name: 'a' }] } },
    error: { reason: 'malformed', path: '/metadata/finalizers/0' },
  },

  // Atomic lists and the rest.
  {
    description: 'atomic: tolerations are replaced whole',
    original: { spec: { tolerations: [{ key: 'k1', operator: 'Exists' }] } },
    patch: { spec: { tolerations: [{ key: 'k2', operator: 'Exists' }] } },
    result: { spec: { tolerations: [{ key: 'k2', operator: 'Exists' }] } },
  },
  {
    description: 'atomic: an empty list replaces too',
    original: { spec: { tolerations: [{ key: 'k1' }] } },
    patch: { spec: { tolerations: [] } },
    result: { spec: { tolerations: [] } },
  },
  {
    description: 'unstructured values: maps merge, lists replace, $-members are data',
    original: { extensions: { a: { b: 1, c: [1, 2] } } },
    patch: { extensions: { a: { c: [3], d: 2, $ref: '#/x' } } },
    result: { extensions: { a: { b: 1, c: [3], d: 2, $ref: '#/x' } } },
  },
  {
    description: 'map keys starting with $ are data',
    original: { metadata: { labels: {} } },
    patch: { metadata: { labels: { $x: 'y' } } },
    result: { metadata: { labels: { $x: 'y' } } },
  },
  {
    description: 'an unknown $-directive in a struct is an error',
    original: { spec: {} },
    patch: { spec: { $replace: true } },
    error: { reason: 'malformed', path: '/spec/$replace' },
  },
  {
    description: 'a value of another type replaces',
    original: { spec: { nodeSelector: { disk: 'ssd' } } },
    patch: { spec: { nodeSelector: 'none' } },
    result: { spec: { nodeSelector: 'none' } },
  },
  {
    description: 'the patch must be an object',
    original: { spec: {} },
    patch: [{ op: 'add' }],
    error: { reason: 'malformed', path: '' },
  },
  {
    description: 'the document must be an object',
    original: 'pod',
    patch: {},
    error: { reason: 'not-applicable', path: '' },
  },
];

describe('applyStrategicMergePatch', () => {
  it.each(CASES)('$description', ({ original, patch, result, error }) => {
    const originalBefore = structuredClone(original);
    const patchBefore = structuredClone(patch);
    if (error === undefined) {
      expect(applyStrategicMergePatch(original, patch, PodSchema)).toEqual(result);
    } else {
      let caught: unknown;
      try {
        applyStrategicMergePatch(original, patch, PodSchema);
      } catch (e) {
        caught = e;
      }
      expect(isPatchError(caught)).toBe(true);
      expect(caught).toMatchObject({ patchType: 'strategic-merge-patch', ...error });
    }
    expect(original).toEqual(originalBefore);
    expect(patch).toEqual(patchBefore);
  });

  it('keeps __proto__ members as plain data', () => {
    const patch: unknown = JSON.parse('{"metadata":{"labels":{"__proto__":{"polluted":"yes"}}}}');
    const result = applyStrategicMergePatch({ metadata: { labels: { app: 'web' } } }, patch, PodSchema);
    const labels = (result as { metadata: { labels: Record<string, unknown> } }).metadata.labels;
    expect(Object.keys(labels)).toEqual(['app', '__proto__']);
    expect(Object.getPrototypeOf(labels)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('does not let inherited names shadow absent members', () => {
    const result = applyStrategicMergePatch({ metadata: {} }, { metadata: { labels: { constructor: 'x', toString: 'y' } } }, PodSchema);
    expect(result).toEqual({ metadata: { labels: { constructor: 'x', toString: 'y' } } });
  });
});

describe('strategic merge patch of long lists', () => {
  const n = 2000;
  const env = (value: string) => Array.from({ length: n }, (_, i) => ({ name: `E${i}`, value: `${value}${i}` }));

  /** JSON.stringify calls while `run` runs: item identities are JSON, so this counts identity work. */
  function stringifyCalls(run: () => void): number {
    const stringify = vi.spyOn(JSON, 'stringify');
    try {
      run();
      return stringify.mock.calls.length;
    } finally {
      stringify.mockRestore();
    }
  }

  it('merges every item of a keyed list by identity lookups, not a scan of the list per patch item', () => {
    const original = containers(c('a', { env: env('old') }));
    // Every other item changed, one deleted, one new: the live order is kept, the new item placed
    // after the last patch item and before the live-only item that follows it.
    const patchEnv = [...env('new').filter((_, i) => i % 2 === 0), { name: 'E1', $patch: 'delete' }, { name: 'NEW', value: 'x' }];
    let result: unknown;
    const calls = stringifyCalls(() => {
      result = applyStrategicMergePatch(original, containers({ name: 'a', env: patchEnv }), PodSchema);
    });
    const merged = (result as { spec: { containers: { env: { name: string; value: string }[] }[] } }).spec.containers[0]!.env;
    expect(merged).toHaveLength(n);
    expect(merged.slice(0, 4)).toEqual([
      { name: 'E0', value: 'new0' },
      { name: 'E2', value: 'new2' },
      { name: 'E3', value: 'old3' },
      { name: 'E4', value: 'new4' },
    ]);
    expect(merged.slice(-2)).toEqual([
      { name: 'NEW', value: 'x' },
      { name: `E${n - 1}`, value: `old${n - 1}` },
    ]);
    // A few identities per item; finding each patch item by a scan made about n * n / 2.
    expect(calls).toBeLessThan(10 * n);
  });

  it('deletes many scalars from a list by set lookups', () => {
    const original = finalizers(...Array.from({ length: n }, (_, i) => `f${i}`));
    const deleted = Array.from({ length: n / 2 }, (_, i) => `f${2 * i}`);
    const result = applyStrategicMergePatch(original, { metadata: { '$deleteFromPrimitiveList/finalizers': deleted } }, PodSchema);
    expect((result as { metadata: { finalizers: string[] } }).metadata.finalizers).toEqual(
      Array.from({ length: n / 2 }, (_, i) => `f${2 * i + 1}`),
    );
  });
});
