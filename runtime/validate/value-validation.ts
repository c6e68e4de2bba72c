import { type FieldError, isDuration } from '../api/index.js';
import { isObject } from '../json/index.js';
import { Collector, FieldPath, type PathLike, charLength } from './collector.js';
import { isDate, isDateTime } from './formats.js';
import { type Regex, compileRegex } from '../regex/index.js';

/**
 * A CRD's inline `allOf`/`anyOf`/`oneOf`/`not` as generated validators hand it over (the model's
 * ValueValidation, written out as data): value checks on a node whose structure the generated
 * code has already checked.
 */
export interface ValueValidation {
  allOf?: readonly Branch[];
  anyOf?: readonly Branch[];
  oneOf?: readonly Branch[];
  not?: Branch;
}

/** One branch: constraints of the value, required keys, and branches of its properties and items. */
export interface Branch extends ValueValidation {
  constraints?: ValueConstraints;
  format?: string;
  required?: readonly string[];
  properties?: Readonly<Record<string, Branch>>;
  items?: Branch;
}

/** The value constraints OpenAPI gives a schema node (and a branch of a junctor). */
export interface ValueConstraints {
  enum?: readonly unknown[];
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: boolean;
  exclusiveMaximum?: boolean;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  minItems?: number;
  maxItems?: number;
  minProperties?: number;
  maxProperties?: number;
}

/**
 * Checks `v` against the junctors as kube-openapi's schemaPropsValidator does: anyOf needs one
 * branch to pass, oneOf exactly one, allOf every one, not none. A failed junctor is reported as
 * upstream reports it (a composite error, `"spec" must validate one and only one schema (oneOf).
 * Found none valid`), followed by the errors of the branch upstream shows: every failing branch of
 * allOf, the first failing one of anyOf, and of oneOf when none passed.
 */
export function checkValueValidation(v: unknown, p: PathLike, vv: ValueValidation, e: Collector): void {
  if (vv.anyOf) {
    let best: Collector | undefined;
    let passed = false;
    for (const b of vv.anyOf) {
      const r = branchResult(v, p, b);
      if (r.ok) {
        passed = true;
        break;
      }
      best ??= r;
    }
    if (!passed) {
      e.openAPI('composite', p, 'must validate at least one schema (anyOf)');
      if (best) e.errors.push(...inBranch(best));
    }
  }
  if (vv.oneOf) {
    let best: Collector | undefined;
    let valid = 0;
    for (const b of vv.oneOf) {
      const r = branchResult(v, p, b);
      if (r.ok) valid++;
      else best ??= r;
    }
    if (valid !== 1) {
      e.openAPI(
        'composite',
        p,
        `must validate one and only one schema (oneOf). ${valid === 0 ? 'Found none valid' : `Found ${valid} valid alternatives`}`,
      );
      if (valid === 0 && best) e.errors.push(...inBranch(best));
    }
  }
  if (vv.allOf) {
    let valid = 0;
    for (const b of vv.allOf) {
      const r = branchResult(v, p, b);
      if (r.ok) valid++;
      else e.errors.push(...inBranch(r));
    }
    if (valid !== vv.allOf.length)
      e.openAPI('composite', p, `must validate all the schemas (allOf)${valid === 0 ? '. None validated' : ''}`);
  }
  if (vv.not && branchResult(v, p, vv.not).ok) e.openAPI('composite', p, 'must not validate the schema (not)');
}

/** A branch's errors as the value's: a missing key or a wrong type there is no decoding error. */
function inBranch(r: Collector): FieldError[] {
  return r.errors.map((error) => ({ ...error, inBranch: true }));
}

function branchResult(v: unknown, p: PathLike, b: Branch): Collector {
  const r = new Collector();
  checkBranch(v, p, b, r);
  return r;
}

/** A branch's checks apply to values of their type only (the structure's own checks report the type). */
function checkBranch(v: unknown, p: PathLike, b: Branch, e: Collector): void {
  checkValueValidation(v, p, b, e);
  const c = b.constraints;
  if (c) openAPIChecks(v, p, c, e);
  const format = b.format === undefined ? undefined : FORMATS[b.format];
  if (format && typeof v === 'string' && !format(v)) e.openAPI('format', p, v, b.format!);
  if (isObject(v)) {
    if (b.required) for (const k of b.required) if (v[k] === undefined) e.required(new FieldPath(p, k));
    if (b.properties) {
      for (const [k, child] of Object.entries(b.properties)) if (v[k] !== undefined) checkBranch(v[k], new FieldPath(p, k), child, e);
    }
  } else if (Array.isArray(v) && b.items) {
    for (let i = 0; i < v.length; i++) checkBranch(v[i], new FieldPath(p, '', i), b.items, e);
  }
}

/**
 * A branch's constraints, in kube-openapi's order (string, number, list, enum, object checks),
 * each on values of its type only.
 */
function openAPIChecks(v: unknown, p: PathLike, c: ValueConstraints, e: Collector): void {
  if (typeof v === 'string') {
    const n = c.maxLength !== undefined || c.minLength !== undefined ? charLength(v) : 0;
    if (c.maxLength !== undefined && n > c.maxLength) e.openAPI('maxLength', p, v, c.maxLength);
    if (c.minLength !== undefined && n < c.minLength) e.openAPI('minLength', p, v, c.minLength);
    if (c.pattern !== undefined && !patternOf(c.pattern).test(v)) e.openAPI('pattern', p, v, c.pattern);
  }
  if (typeof v === 'number') {
    if (c.maximum !== undefined && (c.exclusiveMaximum ? v >= c.maximum : v > c.maximum))
      e.openAPI('maximum', p, v, c.maximum, c.exclusiveMaximum === true);
    if (c.minimum !== undefined && (c.exclusiveMinimum ? v <= c.minimum : v < c.minimum))
      e.openAPI('minimum', p, v, c.minimum, c.exclusiveMinimum === true);
  }
  if (Array.isArray(v)) {
    if (c.minItems !== undefined && v.length < c.minItems) e.openAPI('minItems', p, v.length, c.minItems);
    if (c.maxItems !== undefined && v.length > c.maxItems) e.openAPI('maxItems', p, v.length, c.maxItems);
  }
  if (c.enum && !c.enum.some((a) => sameJSON(a, v))) e.openAPI('enum', p, v, c.enum);
  if (isObject(v)) {
    const n = Object.keys(v).length;
    if (c.maxProperties !== undefined && n > c.maxProperties) e.openAPI('maxProperties', p, n, c.maxProperties);
    if (c.minProperties !== undefined && n < c.minProperties) e.openAPI('minProperties', p, n, c.minProperties);
  }
}

/** The formats a branch checks: those the structure's own checks know. */
const FORMATS: Readonly<Record<string, (s: string) => boolean>> = { date: isDate, 'date-time': isDateTime, duration: isDuration };

const patterns = new Map<string, Regex>();

/** Branch patterns are RE2 as the structure's, compiled once when first checked (the loader has already refused bad ones). */
function patternOf(pattern: string): Regex {
  let re = patterns.get(pattern);
  if (!re) {
    re = compileRegex(pattern);
    patterns.set(pattern, re);
  }
  return re;
}

function sameJSON(a: unknown, b: unknown): boolean {
  return a === b || (typeof a === 'object' && typeof b === 'object' && JSON.stringify(a) === JSON.stringify(b));
}
