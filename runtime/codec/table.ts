import { isObject } from '../json/index.js';
import type { PrinterColumn } from '../schema/index.js';
import { humanDuration } from './human-duration.js';
import { JsonPath } from './json-path.js';
import { ProtobufCodecError } from './protobuf-errors.js';
import { formatTimestamp, parseTimestamp } from './timestamp.js';

/** What each row carries besides its cells (the `includeObject` query parameter). */
export type IncludeObject = 'None' | 'Metadata' | 'Object';

export interface TableColumnDefinition {
  name: string;
  type: string;
  format: string;
  description: string;
  priority: number;
}

export interface TableRow {
  cells: unknown[];
  /** The object, its PartialObjectMetadata, or absent (`includeObject=None`). */
  object?: Record<string, unknown>;
}

export interface Table {
  kind: 'Table';
  apiVersion: 'meta.svc.io/v1';
  metadata: { resourceVersion?: string; continue?: string; remainingItemCount?: number };
  columnDefinitions: TableColumnDefinition[];
  rows: TableRow[];
}

export interface TableOptions {
  /** Default `Metadata`, as the real system. */
  includeObject?: IncludeObject;
  /** A list's metadata (resourceVersion, continue, remainingItemCount); for one object its own resourceVersion is used. */
  listMeta?: { resourceVersion?: string; continue?: string; remainingItemCount?: number };
  /** Leave out column definitions (watch events after the first, `TableOptions.noHeaders`). */
  noHeaders?: boolean;
  /** The clock for age cells of date columns (tests). */
  now?: () => Date;
}

// The real system's descriptions of the default columns (its ObjectMeta documentation).
const NAME_DESCRIPTION =
  'Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated.';
const CREATED_DESCRIPTION =
  'CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.';

const NAME_COLUMN: TableColumnDefinition = { name: 'Name', type: 'string', format: 'name', description: NAME_DESCRIPTION, priority: 0 };
const CREATED_COLUMN: TableColumnDefinition = {
  name: 'Created At',
  type: 'date',
  format: '',
  description: CREATED_DESCRIPTION,
  priority: 0,
};

/**
 * What makes a kind's Table: its columns (Name first) and each object's cells, in column order.
 * A kind's printer computes cells as upstream's printers.go does; printer columns (JSONPath) are
 * the other way to have one ({@link columnsPrinter}).
 */
export interface TablePrinter {
  columns: readonly TableColumnDefinition[];
  cells(object: Record<string, unknown>, now: Date): unknown[];
}

/** The default Table's Name column, for printers that start with it. */
export const NAME_COLUMN_DEFINITION: TableColumnDefinition = NAME_COLUMN;
/** `Age` as upstream's printers declare it (the creation time's documentation, type string). */
export const AGE_COLUMN_DEFINITION: TableColumnDefinition = { ...CREATED_COLUMN, name: 'Age', type: 'string' };

/**
 * Printer columns as a printer. Without columns: the real system's default Table, `Name` and
 * `Created At` with the creation time as RFC 3339 UTC text. With columns: `Name` first, then each
 * column as the real system's printer-column convertor renders it: the first JSONPath result;
 * `string` cells print it as text (Go's formatting for non-strings); `integer`, `number`, `boolean`
 * cells keep a value of that type; `date` cells show the age (`5m`, `3d`) or `<invalid>`; anything
 * else is null.
 */
export function columnsPrinter(printerColumns: readonly PrinterColumn[]): TablePrinter {
  if (printerColumns.length === 0)
    return {
      columns: [NAME_COLUMN, CREATED_COLUMN],
      cells: (object) => {
        const metadata = isObject(object.metadata) ? object.metadata : {};
        return [objectName(metadata), createdAt(metadata.creationTimestamp)];
      },
    };
  const paths = printerColumns.map((c) => new JsonPath(c.jsonPath));
  return {
    columns: [
      NAME_COLUMN,
      ...printerColumns.map((c) => ({
        name: c.name,
        type: c.type,
        format: c.format ?? '',
        description: c.description ?? '',
        priority: c.priority ?? 0,
      })),
    ],
    cells: (object, now) => [
      objectName(isObject(object.metadata) ? object.metadata : {}),
      ...printerColumns.map((c, i) => cell(c.type, paths[i]!.evaluate(object), now)),
    ],
  };
}

function objectName(metadata: Record<string, unknown>): string {
  return typeof metadata.name === 'string' ? metadata.name : '';
}

/** The Table representation of objects (one for get, many for list or a watch event), by printer columns or a kind's printer. */
export function toTable(
  objects: readonly Record<string, unknown>[],
  printer: readonly PrinterColumn[] | TablePrinter,
  options: TableOptions = {},
): Table {
  const includeObject = options.includeObject ?? 'Metadata';
  const now = (options.now ?? (() => new Date()))();
  const p = 'cells' in printer ? printer : columnsPrinter(printer);
  const rows = objects.map((object): TableRow => {
    const metadata = isObject(object.metadata) ? object.metadata : {};
    const row: TableRow = { cells: p.cells(object, now) };
    if (includeObject === 'Object') row.object = object;
    else if (includeObject === 'Metadata') row.object = { kind: 'PartialObjectMetadata', apiVersion: 'meta.svc.io/v1', metadata };
    return row;
  });
  return {
    kind: 'Table',
    apiVersion: 'meta.svc.io/v1',
    metadata: options.listMeta ? { ...options.listMeta } : singleMeta(objects),
    columnDefinitions: options.noHeaders ? [] : p.columns.map((c) => ({ ...c })),
    rows,
  };
}

function singleMeta(objects: readonly Record<string, unknown>[]): Table['metadata'] {
  const metadata = objects.length === 1 && isObject(objects[0]!.metadata) ? objects[0]!.metadata : undefined;
  return typeof metadata?.resourceVersion === 'string' ? { resourceVersion: metadata.resourceVersion } : {};
}

/** `Created At` of the default Table: RFC 3339 in UTC, seconds precision (Go's zero time when unset). */
function createdAt(value: unknown): string {
  const t = typeof value === 'string' ? tryParse(value) : undefined;
  return formatTimestamp(t?.seconds ?? ZERO_TIME_SECONDS, 0);
}

// 0001-01-01T00:00:00Z: Go's zero time.
const ZERO_TIME_SECONDS = -62135596800;

function cell(type: string, results: unknown[], now: Date): unknown {
  if (results.length === 0) return null;
  const value = results[0];
  if (type === 'string') return goText(value);
  if (value === null || value === undefined) return null;
  switch (type) {
    case 'integer':
      return typeof value === 'number' ? Math.trunc(value) : null;
    case 'number':
      return typeof value === 'number' ? value : null;
    case 'boolean':
      return typeof value === 'boolean' ? value : null;
    case 'date': {
      if (typeof value !== 'string') return null;
      const t = tryParse(value);
      if (!t) return '<invalid>';
      if (t.seconds === ZERO_TIME_SECONDS && t.nanos === 0) return '<unknown>';
      return humanDuration(now.getTime() - (t.seconds * 1000 + t.nanos / 1e6));
    }
    default:
      return null;
  }
}

function tryParse(text: string): { seconds: number; nanos: number } | undefined {
  try {
    return parseTimestamp(text);
  } catch (error) {
    if (error instanceof ProtobufCodecError) return undefined;
    throw error;
  }
}

/** A value as Go's fmt prints it (`%v`): strings as they are, maps as `map[k:v]` with sorted keys. */
function goText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === null || value === undefined) return '<nil>';
  if (typeof value === 'number') return goNumber(value);
  if (Array.isArray(value)) return `[${value.map(goText).join(' ')}]`;
  if (isObject(value))
    return `map[${Object.keys(value)
      .sort()
      .map((k) => `${k}:${goText(value[k])}`)
      .join(' ')}]`;
  return String(value);
}

function goNumber(n: number): string {
  if (Number.isInteger(n) && Math.abs(n) < 2 ** 63) return BigInt(n).toString();
  const [mantissa, exp] = n.toExponential().split('e') as [string, string];
  const e = Number(exp);
  if (e < -4 || e >= 21) return `${mantissa}e${exp[0] === '-' ? '-' : '+'}${String(Math.abs(e)).padStart(2, '0')}`;
  return String(n);
}
