/**
 * A small JSONPath subset, enough for protocol checks: `$`, `.name`, `['name']`, `[2]`, `[-1]`,
 * `[*]`, `.*`, `.length` on a list (its size) and filters `[?(@.type=='Ready')]` / `[?(@.a.b)]`.
 * `select` returns every value the path reaches; an empty list means nothing matched.
 */
import type { Json } from './types.js';
import { isObject } from './json.js';

export class JsonPathError extends Error {
  override readonly name = 'JsonPathError';
}

type Segment =
  | { kind: 'key'; key: string }
  | { kind: 'index'; index: number }
  | { kind: 'all' }
  | { kind: 'filter'; path: string[]; op?: '==' | '!='; value?: string | number | boolean };

export function parsePath(path: string): Segment[] {
  if (!path.startsWith('$')) throw new JsonPathError(`JSONPath "${path}" must start with $`);
  const segments: Segment[] = [];
  let i = 1;
  while (i < path.length) {
    const c = path[i];
    if (c === '.') {
      const m = /^\.(\*|[^.[\]]+)/.exec(path.slice(i));
      if (!m) throw new JsonPathError(`JSONPath "${path}": expected a name after "." at ${i}`);
      segments.push(m[1] === '*' ? { kind: 'all' } : { kind: 'key', key: m[1] ?? '' });
      i += m[0].length;
    } else if (c === '[') {
      const rest = path.slice(i);
      const quoted = /^\[\s*(['"])(.*?)\1\s*\]/.exec(rest);
      const index = /^\[\s*(-?\d+)\s*\]/.exec(rest);
      const star = /^\[\s*\*\s*\]/.exec(rest);
      const filter = /^\[\?\(@((?:\.[\w-]+)+)\s*(?:(==|!=)\s*('[^']*'|"[^"]*"|-?\d+(?:\.\d+)?|true|false))?\)\]/.exec(rest);
      if (quoted) {
        segments.push({ kind: 'key', key: quoted[2] ?? '' });
        i += quoted[0].length;
      } else if (index) {
        segments.push({ kind: 'index', index: Number(index[1]) });
        i += index[0].length;
      } else if (star) {
        segments.push({ kind: 'all' });
        i += star[0].length;
      } else if (filter) {
        const field = (filter[1] ?? '').slice(1).split('.');
        const raw = filter[3];
        let value: string | number | boolean | undefined;
        if (raw !== undefined) {
          if (raw.startsWith("'") || raw.startsWith('"')) value = raw.slice(1, -1);
          else if (raw === 'true' || raw === 'false') value = raw === 'true';
          else value = Number(raw);
        }
        const op = filter[2] === '==' || filter[2] === '!=' ? filter[2] : undefined;
        segments.push(op ? { kind: 'filter', path: field, op, value } : { kind: 'filter', path: field });
        i += filter[0].length;
      } else {
        throw new JsonPathError(`JSONPath "${path}": cannot read "${rest}"`);
      }
    } else {
      throw new JsonPathError(`JSONPath "${path}": unexpected "${c}" at ${i}`);
    }
  }
  return segments;
}

function field(v: Json, keys: string[]): Json | undefined {
  let cur: Json | undefined = v;
  for (const k of keys) {
    if (!isObject(cur)) return undefined;
    cur = cur[k];
  }
  return cur;
}

export function select(root: Json | undefined, path: string): Json[] {
  if (root === undefined) return [];
  let current: Json[] = [root];
  for (const seg of parsePath(path)) {
    const next: Json[] = [];
    for (const v of current) {
      if (seg.kind === 'key') {
        if (isObject(v) && seg.key in v) next.push(v[seg.key] as Json);
        else if (Array.isArray(v) && seg.key === 'length') next.push(v.length);
      } else if (seg.kind === 'index') {
        if (Array.isArray(v)) {
          const item = v[seg.index < 0 ? v.length + seg.index : seg.index];
          if (item !== undefined) next.push(item);
        }
      } else if (seg.kind === 'all') {
        if (Array.isArray(v)) next.push(...v);
        else if (isObject(v)) next.push(...Object.values(v));
      } else {
        const items = Array.isArray(v) ? v : isObject(v) ? Object.values(v) : [];
        for (const item of items) {
          const got = field(item, seg.path);
          const keep = seg.op === undefined ? got !== undefined : seg.op === '==' ? got === seg.value : got !== seg.value;
          if (keep) next.push(item);
        }
      }
    }
    current = next;
  }
  return current;
}

/** True when the path ends in a wildcard or filter, so a check reads all selected values as a list. */
export function selectsMany(path: string): boolean {
  return parsePath(path).some((s) => s.kind === 'all' || s.kind === 'filter');
}
