/** The cell formats of upstream's printers.go: ages, `<none>`, label sets, containers of a template. */
import { AGE_COLUMN_DEFINITION, NAME_COLUMN_DEFINITION, type TableColumnDefinition, humanDuration } from '../../codec/index.js';
import { canonicalQuantity, isQuantity } from '../../api/index.js';
import { isObject } from '../../json/index.js';

export type Obj = Record<string, unknown>;

/** The object at `path` (`spec.template.spec`), `{}` where anything on the way is not an object. */
export function at(object: unknown, path: string): Obj {
  let here: unknown = object;
  for (const key of path.split('.')) here = isObject(here) ? here[key] : undefined;
  return isObject(here) ? here : {};
}

export function list(value: unknown): Obj[] {
  return Array.isArray(value) ? value.filter(isObject) : [];
}

export function text(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

export function int(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) ? Math.trunc(value) : 0;
}

/** upstream's translateTimestampSince: the age of a time, `<unknown>` when unset. */
export function since(timestamp: unknown, now: Date): string {
  const ms = typeof timestamp === 'string' ? Date.parse(timestamp) : Number.NaN;
  if (Number.isNaN(ms)) return '<unknown>';
  return humanDuration(now.getTime() - ms);
}

/** A resource.Quantity as its String() prints it (the canonical form); '0' when unset, as Go's zero Quantity. */
export function quantity(value: unknown): string {
  return (typeof value === 'string' || typeof value === 'number') && isQuantity(value) ? canonicalQuantity(value) : '0';
}

/** `<none>` for empty text, as the printers write missing values. */
export function orNone(value: string): string {
  return value === '' ? '<none>' : value;
}

/** labels.FormatLabels: `a=b,c=d` sorted by key, `<none>` when empty. */
export function formatLabels(value: unknown): string {
  const map = isObject(value) ? value : {};
  const keys = Object.keys(map).sort();
  return keys.length === 0 ? '<none>' : keys.map((k) => `${k}=${text(map[k])}`).join(',');
}

/** A label selector as metav1.FormatLabelSelector prints it (`app=web,tier in (a,b)`), `<none>` when empty. */
export function formatSelector(value: unknown): string {
  if (!isObject(value)) return '<none>';
  const parts = Object.keys(isObject(value.matchLabels) ? value.matchLabels : {})
    .sort()
    .map((k) => `${k}=${text((value.matchLabels as Obj)[k])}`);
  for (const e of list(value.matchExpressions)) {
    const op = text(e.operator);
    const values = Array.isArray(e.values) ? e.values.map(text) : [];
    if (op === 'In') parts.push(`${text(e.key)} in (${values.join(',')})`);
    else if (op === 'NotIn') parts.push(`${text(e.key)} notin (${values.join(',')})`);
    else if (op === 'Exists') parts.push(text(e.key));
    else if (op === 'DoesNotExist') parts.push(`!${text(e.key)}`);
  }
  const s = parts.join(',');
  return s === '' ? '<none>' : s;
}

/** The Containers and Images cells of a pod template (layoutContainerCells). */
export function containerCells(podSpec: Obj): [string, string] {
  const containers = list(podSpec.containers);
  return [containers.map((c) => text(c.name)).join(','), containers.map((c) => text(c.image)).join(',')];
}

export const NAME = NAME_COLUMN_DEFINITION;
export const AGE = AGE_COLUMN_DEFINITION;

/** A column of upstream's printers: type string unless said, priority 1 for `-o wide` columns. */
export function column(name: string, description: string, extra: Partial<TableColumnDefinition> = {}): TableColumnDefinition {
  return { name, type: 'string', format: '', description, priority: 0, ...extra };
}

export const WIDE = { priority: 1 };
export const INTEGER = { type: 'integer' };

export const TEMPLATE_COLUMNS = [
  column('Containers', 'Names of each container in the template.', WIDE),
  column('Images', 'Images referenced by each container in the template.', WIDE),
];
