/**
 * One suite for every engine: inputs are never mutated, `__proto__` is plain data, input that is
 * not JSON is a PatchError, and so is nesting too deep to recurse into.
 */
import { describe, expect, it } from 'vitest';
import { applyJsonPatch, applyMergePatch, applyStrategicMergePatch, isPatchError, type PatchType } from './index.js';
import { PodSchema } from './pod-schema.testing.js';

/** Each engine, seen as "set top-level member `key` of `doc` to `value`". */
interface Engine {
  type: PatchType;
  setMember(doc: unknown, key: string, value: unknown): unknown;
}

const ENGINES: Engine[] = [
  {
    type: 'json-patch',
    setMember: (doc, key, value) => applyJsonPatch(doc, [{ op: 'add', path: `/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`, value }]),
  },
  { type: 'merge-patch', setMember: (doc, key, value) => applyMergePatch(doc, patchSetting(key, value)) },
  { type: 'strategic-merge-patch', setMember: (doc, key, value) => applyStrategicMergePatch(doc, patchSetting(key, value), PodSchema) },
];

/** `{ [key]: value }` that stays data even for `__proto__`. */
function patchSetting(key: string, value: unknown): Record<string, unknown> {
  const patch: Record<string, unknown> = {};
  Object.defineProperty(patch, key, { value, enumerable: true, writable: true, configurable: true });
  return patch;
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const child of Object.values(value)) deepFreeze(child);
    Object.freeze(value);
  }
  return value;
}

function nested(depth: number): unknown {
  let value: unknown = 'leaf';
  for (let i = 0; i < depth; i++) value = { v: value };
  return value;
}

function errorOf(run: () => unknown): unknown {
  try {
    run();
  } catch (e) {
    return e;
  }
  return undefined;
}

describe.each(ENGINES)('$type input safety', (engine) => {
  it('never mutates its inputs (they are frozen here) nor shares structure with them', () => {
    const doc = deepFreeze({ metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'a' }] } });
    const value = deepFreeze({ b: [1, { c: 2 }] });
    const result = engine.setMember(doc, 'extensions', value) as { extensions: { b: unknown[] }; metadata: object };
    expect(result).toEqual({ ...doc, extensions: { b: [1, { c: 2 }] } });
    expect(result.extensions).not.toBe(value);
    expect(result.metadata).not.toBe(doc.metadata);
  });

  it('keeps a __proto__ member set by the patch as plain data', () => {
    const result = engine.setMember({}, '__proto__', { polluted: true }) as object;
    expect(Object.keys(result)).toEqual(['__proto__']);
    expect(Object.getPrototypeOf(result)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('copies a __proto__ member of the document as plain data', () => {
    const doc: unknown = JSON.parse('{"__proto__":{"x":1}}');
    const result = engine.setMember(doc, 'a', 1) as object;
    expect(Object.keys(result)).toEqual(['__proto__', 'a']);
    expect(Object.getOwnPropertyDescriptor(result, '__proto__')?.value).toEqual({ x: 1 });
    expect(Object.getPrototypeOf(result)).toBe(Object.prototype);
  });

  it('refuses values that are not JSON with a PatchError', () => {
    for (const bad of [Number.NaN, Infinity, new Map(), new Date(0), () => 1, Symbol('s'), 10n]) {
      const error = errorOf(() => engine.setMember({}, 'a', bad));
      expect(isPatchError(error), String(bad)).toBe(true);
      expect(error).toMatchObject({ patchType: engine.type, reason: 'malformed' });
    }
  });

  it('refuses a document that is not JSON with a PatchError', () => {
    const error = errorOf(() => engine.setMember({ when: new Date(0) }, 'a', 1));
    expect(error).toMatchObject({ patchType: engine.type, reason: 'not-applicable', path: '/when' });
  });

  it('refuses nesting too deep to recurse into with a PatchError, not a stack overflow', () => {
    const error = errorOf(() => engine.setMember({}, 'a', nested(20_000)));
    expect(isPatchError(error)).toBe(true);
  });
});
