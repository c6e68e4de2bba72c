import { describe, expect, it } from 'vitest';
import type { PrinterColumn } from '../schema/index.js';
import { humanDuration, toTable } from './index.js';

const now = (): Date => new Date('2024-01-10T00:00:00Z');
const pod = (name: string, extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace: 'default', resourceVersion: '5', creationTimestamp: '2024-01-09T23:55:00Z' },
  ...extra,
});

describe('toTable', () => {
  it('without printer columns: Name (string) and Created At (date, RFC 3339 UTC), rows with PartialObjectMetadata', () => {
    const table = toTable([pod('a')], [], { now });
    expect(table).toEqual({
      kind: 'Table',
      apiVersion: 'meta.svc.io/v1',
      metadata: { resourceVersion: '5' },
      columnDefinitions: [
        { name: 'Name', type: 'string', format: 'name', description: expect.stringContaining('Name must be unique'), priority: 0 },
        { name: 'Created At', type: 'date', format: '', description: expect.stringContaining('CreationTimestamp'), priority: 0 },
      ],
      rows: [
        {
          cells: ['a', '2024-01-09T23:55:00Z'],
          object: { kind: 'PartialObjectMetadata', apiVersion: 'meta.svc.io/v1', metadata: pod('a').metadata },
        },
      ],
    });
  });

  it('includeObject: None leaves the object out, Object carries it whole; list metadata is kept', () => {
    const listMeta = { resourceVersion: '9', continue: 'tok', remainingItemCount: 3 };
    const none = toTable([pod('a'), pod('b')], [], { includeObject: 'None', listMeta, now });
    expect(none.rows).toEqual([{ cells: ['a', '2024-01-09T23:55:00Z'] }, { cells: ['b', '2024-01-09T23:55:00Z'] }]);
    expect(none.metadata).toEqual(listMeta);
    expect(toTable([pod('a')], [], { includeObject: 'Object', now }).rows[0]!.object).toEqual(pod('a'));
    expect(toTable([pod('a')], [], { noHeaders: true, now }).columnDefinitions).toEqual([]);
  });

  it('with printer columns: Name first, then each column rendered by its type', () => {
    const columns: PrinterColumn[] = [
      { name: 'Status', type: 'string', jsonPath: '.status.conditions[?(@.type=="Ready")].status' },
      { name: 'Restarts', type: 'integer', jsonPath: '.status.containerStatuses[0].restartCount' },
      { name: 'Images', type: 'string', jsonPath: '.spec.containers[*].image', priority: 1, description: 'images' },
      { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
      { name: 'Ports', type: 'string', jsonPath: '.spec.ports' },
      { name: 'Ratio', type: 'number', jsonPath: '.status.ratio' },
      { name: 'Ready', type: 'boolean', jsonPath: '.status.ready' },
      { name: 'Missing', type: 'string', jsonPath: '.status.nothing' },
    ];
    const object = pod('a', {
      spec: { containers: [{ image: 'nginx' }, { image: 'envoy' }], ports: [80, { name: 'x', port: 1.5 }] },
      status: { conditions: [{ type: 'Ready', status: 'True' }], containerStatuses: [{ restartCount: 2 }], ratio: 0.5, ready: 'yes' },
    });
    const table = toTable([object], columns, { now });
    expect(table.columnDefinitions.map((c) => [c.name, c.type, c.format, c.description, c.priority])).toEqual([
      ['Name', 'string', 'name', expect.any(String), 0],
      ['Status', 'string', '', '', 0],
      ['Restarts', 'integer', '', '', 0],
      ['Images', 'string', '', 'images', 1],
      ['Age', 'date', '', '', 0],
      ['Ports', 'string', '', '', 0],
      ['Ratio', 'number', '', '', 0],
      ['Ready', 'boolean', '', '', 0],
      ['Missing', 'string', '', '', 0],
    ]);
    // As the real printer-column convertor: the first result only; age for dates; a value of the
    // wrong type is null; Go's %v for a non-string in a string column.
    expect(table.rows[0]!.cells).toEqual(['a', 'True', 2, 'nginx', '5m', '[80 map[name:x port:1.5]]', 0.5, null, null]);
  });

  it('renders dates that do not parse as <invalid>', () => {
    const table = toTable(
      [pod('a', { status: { startTime: 'soon' } })],
      [{ name: 'Started', type: 'date', jsonPath: '.status.startTime' }],
      { now },
    );
    expect(table.rows[0]!.cells).toEqual(['a', '<invalid>']);
  });
});

describe('humanDuration (age cells)', () => {
  it('keeps two significant units, as the real system', () => {
    const s = 1000;
    const cases: [number, string][] = [
      [-3 * s, '<invalid>'],
      [-1.5 * s, '0s'],
      [0, '0s'],
      [119 * s, '119s'],
      [150 * s, '2m30s'],
      [600 * s, '10m'],
      [179 * 60 * s, '179m'],
      [3 * 3600 * s, '3h'],
      [(7 * 60 + 59) * 60 * s, '7h59m'],
      [47 * 3600 * s, '47h'],
      [(2 * 24 + 5) * 3600 * s, '2d5h'],
      [8 * 24 * 3600 * s, '8d'],
      [(2 * 365 + 3) * 24 * 3600 * s, '2y3d'],
      [9 * 365 * 24 * 3600 * s, '9y'],
    ];
    for (const [ms, text] of cases) expect(humanDuration(ms), String(ms)).toBe(text);
  });
});
