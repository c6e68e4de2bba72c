import { type FieldError, type JsonApiObject, fieldForbidden } from '../api/index.js';
import { isObject } from '../json/index.js';
import type { ConversionRule, KindRegistration } from '../schema/index.js';
import { CONVERTERS } from './converters/index.js';
import { defaulterOf } from '../schema/index.js';

/**
 * Converts objects whose version differs to `to`, all in one call: a CustomResourceDefinition's
 * conversion webhook. It returns one object per input, in order, or throws (the request fails).
 */
export type ExternalConversion = (objects: JsonApiObject[], to: string) => Promise<JsonApiObject[]>;

/**
 * Converts the objects of one resource between its versions, hub and spoke as upstream's internal
 * version: each version declares how it differs from the hub (the version declared `storage: true`),
 * so any version reaches any other through it. It knows every version of the schemas, served or
 * not, because an object keeps the version it was stored in (rule 4b: persisted versions stay
 * decodable after serving stops). A custom resource may convert through a webhook instead.
 */
export class ResourceConverter {
  readonly #rules = new Map<string, readonly ConversionRule[]>();

  constructor(
    versions: readonly KindRegistration[],
    private readonly external?: ExternalConversion,
  ) {
    for (const k of versions) {
      const rules = k.resource?.conversion ?? [];
      for (const rule of rules) {
        if ('converter' in rule && !CONVERTERS[rule.converter])
          throw new Error(`${k.apiVersion} ${k.kind} names the converter "${rule.converter}", which the server does not have`);
      }
      this.#rules.set(k.apiVersion, rules);
    }
  }

  /** Converts one object to `to` (see {@link convertAll}). */
  async convert(obj: JsonApiObject, to: string): Promise<JsonApiObject> {
    return (await this.convertAll([obj], to))[0]!;
  }

  /**
   * Converts each object to `to` from the apiVersion it carries; objects already there are kept as
   * they are. Declared conversions work in place; a webhook is called once for all the objects
   * that differ, as upstream converts a list. An apiVersion no schema knows is taken as the hub's shape.
   */
  async convertAll(objects: JsonApiObject[], to: string): Promise<JsonApiObject[]> {
    const differing = objects.filter((o) => typeof o.apiVersion === 'string' && o.apiVersion !== to);
    if (differing.length === 0) return objects;
    if (!this.external) {
      for (const obj of differing) this.convertDeclared(obj, obj.apiVersion!, to);
      return objects;
    }
    const converted = await this.external(differing, to);
    const byInput = new Map(differing.map((o, i) => [o, converted[i]!]));
    return objects.map((o) => byInput.get(o) ?? o);
  }

  private convertDeclared(obj: JsonApiObject, from: string, to: string): void {
    for (const rule of this.#rules.get(from) ?? []) towardsHub(obj, rule);
    const target = this.#rules.get(to) ?? [];
    for (let i = target.length - 1; i >= 0; i--) awayFromHub(obj, target[i]!);
    obj.apiVersion = to;
  }

  /** The round-trip annotations that other versions of the resource declare and `apiVersion` does not. */
  roundTripAnnotations(apiVersion: string): string[] {
    const own = new Set(annotationsOf(this.#rules.get(apiVersion) ?? []));
    return [...new Set([...this.#rules.values()].flatMap(annotationsOf))].filter((a) => !own.has(a));
  }

  /**
   * Applies `apiVersion`'s schema defaults to an object written through it, with the version's
   * write rules: a zero its round-trip annotation marks stays zero; a read-only field is dropped
   * (create) or keeps its stored value (update).
   */
  setDefaults(registration: KindRegistration, obj: JsonApiObject, old: JsonApiObject | undefined): void {
    const rules = this.#rules.get(registration.apiVersion) ?? [];
    const zeros: string[] = [];
    for (const rule of rules) {
      if ('readOnly' in rule) keepReadOnly(obj, old, rule.path);
      if ('preserveZeroAnnotation' in rule && annotations(obj)?.[rule.preserveZeroAnnotation] !== undefined) zeros.push(rule.path);
    }
    // Absent is zero too: the field is a plain integer in that version (Go's int32), as its defaults read it.
    const marked = zeros.flatMap((path) => [...holders(obj, path)].filter((h) => h.holder[h.leaf] === 0 || h.holder[h.leaf] === undefined));
    defaulterOf(registration.schema)(obj);
    for (const { holder, leaf } of marked) holder[leaf] = 0;
  }
}

/**
 * A round-trip annotation belongs to the version that declares it: on a write through any other
 * version it is an error, as upstream validates the converted object, where it never remains.
 */
export function roundTripAnnotationErrors(converter: ResourceConverter, apiVersion: string, obj: JsonApiObject): FieldError[] {
  const present = annotations(obj);
  if (!present) return [];
  return converter
    .roundTripAnnotations(apiVersion)
    .filter((key) => key in present)
    .map((key) => fieldForbidden('metadata.annotations', `annotation '${key}' is forbidden`));
}

function towardsHub(obj: JsonApiObject, rule: ConversionRule): void {
  if ('converter' in rule) return CONVERTERS[rule.converter]!.toHub(obj);
  if ('readOnly' in rule) return;
  if ('preserveZeroAnnotation' in rule) {
    const a = annotations(obj);
    if (a && rule.preserveZeroAnnotation in a) {
      delete a[rule.preserveZeroAnnotation];
      if (Object.keys(a).length === 0) delete obj.metadata?.annotations;
    }
    return;
  }
  if (!rule.keys) return move(obj, rule.path, rule.storagePath);
  const { leaf: mapField } = split(rule.path);
  const { leaf: field } = split(rule.storagePath);
  for (const { holder } of holders(obj, rule.path)) {
    const map = holder[mapField];
    if (!isObject(map)) continue;
    const key = rule.keys.find((k) => k in map);
    if (key === undefined) continue;
    if (!rule.mirror) holder[field] = map[key];
    if (!rule.mirror || map[key] === holder[field]) delete map[key];
    if (Object.keys(map).length === 0) delete holder[mapField];
  }
}

function awayFromHub(obj: JsonApiObject, rule: ConversionRule): void {
  if ('converter' in rule) return CONVERTERS[rule.converter]!.fromHub(obj);
  if ('readOnly' in rule) return;
  if ('preserveZeroAnnotation' in rule) {
    if ([...holders(obj, rule.path)].some((h) => h.holder[h.leaf] === 0)) {
      obj.metadata ??= {};
      obj.metadata.annotations = { ...obj.metadata.annotations, [rule.preserveZeroAnnotation]: '' };
    }
    return;
  }
  if (!rule.keys) return move(obj, rule.storagePath, rule.path);
  const { leaf: mapField } = split(rule.path);
  const { leaf: field } = split(rule.storagePath);
  for (const { holder } of holders(obj, rule.storagePath)) {
    const value = holder[field];
    if (value === undefined || value === null) continue;
    const map = isObject(holder[mapField]) ? (holder[mapField] as Record<string, unknown>) : {};
    const present = rule.keys.find((k) => k in map);
    if (!rule.mirror) {
      map[present ?? rule.keys[0]!] = value;
      delete holder[field];
    } else if (present === undefined) {
      map[rule.keys[0]!] = value;
    }
    holder[mapField] = map;
  }
}

/** Moves the value at dotted path `from` to `to` (same parent), through lists element by element. */
function move(obj: unknown, from: string, to: string): void {
  const a = split(from);
  const b = split(to);
  if (a.parent !== b.parent) throw new Error(`conversion ${from} -> ${to}: only renames within one parent are supported`);
  for (const { holder } of holders(obj, from)) {
    if (a.leaf in holder) {
      holder[b.leaf] = holder[a.leaf];
      delete holder[a.leaf];
    }
  }
}

/**
 * A read-only field of a write: dropped on create; on update the stored values come back when
 * nothing else in the field's top-level member changed, and are dropped otherwise (the member is
 * then a new value, so the old per-element values no longer belong to it).
 */
function keepReadOnly(obj: JsonApiObject, old: JsonApiObject | undefined, path: string): void {
  const top = path.split('.')[0]!;
  const rec = obj as Record<string, unknown>;
  if (old !== undefined) {
    const before = structuredClone((old as Record<string, unknown>)[top]);
    const after = structuredClone(rec[top]);
    drop({ [top]: before }, path);
    drop({ [top]: after }, path);
    if (JSON.stringify(before) === JSON.stringify(after)) {
      rec[top] = structuredClone((old as Record<string, unknown>)[top]);
      return;
    }
  }
  drop(rec, path);
}

function drop(obj: unknown, path: string): void {
  for (const { holder, leaf } of holders(obj, path)) delete holder[leaf];
}

function annotationsOf(rules: readonly ConversionRule[]): string[] {
  return rules.flatMap((r) => ('preserveZeroAnnotation' in r ? [r.preserveZeroAnnotation] : []));
}

function annotations(obj: JsonApiObject): Record<string, string> | undefined {
  const a = obj.metadata?.annotations;
  return isObject(a) ? (a as Record<string, string>) : undefined;
}

function split(path: string): { parent: string; leaf: string } {
  const at = path.lastIndexOf('.');
  return { parent: at < 0 ? '' : path.slice(0, at), leaf: path.slice(at + 1) };
}

/** Every object holding the last segment of `path` (its parent), through lists element by element. */
function* holders(obj: unknown, path: string): Generator<{ holder: Record<string, unknown>; leaf: string }> {
  const { parent, leaf } = split(path);
  for (const holder of walk(obj, parent === '' ? [] : parent.split('.'))) yield { holder, leaf };
}

function* walk(value: unknown, segments: readonly string[]): Generator<Record<string, unknown>> {
  if (Array.isArray(value)) {
    for (const item of value) yield* walk(item, segments);
    return;
  }
  if (!isObject(value)) return;
  if (segments.length === 0) {
    yield value;
    return;
  }
  yield* walk(value[segments[0]!], segments.slice(1));
}
