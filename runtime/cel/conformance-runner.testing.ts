/**
 * Runs cases of the CEL conformance suite (data from @bufbuild/cel-spec, passed in by the caller so
 * the runtime does not depend on it) through this environment. Shared by conformance.test.ts and
 * scripts/checks/cel-conformance.ts. Not part of the public face: it is test tooling.
 */
import { isObject } from '../json/index.js';
import { compileExpression, type VariableType } from './compile.js';
import { CelCompileError, CelEvaluationError } from './errors.js';
import { Duration, Optional, UnsignedInt, celEquals, durationFromNanos, parseGoDuration } from './values.js';

/** The JSON form of cel.expr.Value (and of the suite's test cases), as the package ships it. */
type Json = unknown;
interface JsonObject {
  readonly [key: string]: Json;
}

export interface SuiteTest {
  readonly original: JsonObject & { readonly name?: string; readonly expr: string };
}

export interface Suite {
  readonly name: string;
  readonly suites?: readonly Suite[];
  readonly tests?: readonly SuiteTest[];
}

export type CaseStatus = 'pass' | 'fail' | 'skip';

export interface CaseResult {
  readonly file: string;
  readonly section: string;
  readonly name: string;
  readonly expr: string;
  readonly status: CaseStatus;
  /** Why it failed or was skipped. */
  readonly reason?: string;
}

const field = (v: Json, k: string): Json => (isObject(v) ? v[k] : undefined);

/** Raised for inputs this environment cannot represent (protobuf messages); the case is skipped. */
class Unsupported extends Error {}

const PRIMITIVES: Record<string, string> = {
  BOOL: 'bool',
  INT64: 'int',
  UINT64: 'uint',
  DOUBLE: 'double',
  STRING: 'string',
  BYTES: 'bytes',
};
const WELL_KNOWN: Record<string, string> = {
  TIMESTAMP: 'google.protobuf.Timestamp',
  DURATION: 'google.protobuf.Duration',
  ANY: 'dyn',
};

/** A cel.expr.Type (JSON) as a CEL type name. */
function typeName(t: Json): string {
  if (!isObject(t)) throw new Unsupported('unknown type declaration');
  const primitive = field(t, 'primitive');
  if (typeof primitive === 'string' && PRIMITIVES[primitive]) return PRIMITIVES[primitive];
  const wellKnown = field(t, 'wellKnown');
  if (typeof wellKnown === 'string' && WELL_KNOWN[wellKnown]) return WELL_KNOWN[wellKnown];
  if ('dyn' in t) return 'dyn';
  if ('null' in t) return 'null';
  if ('listType' in t) return `list<${typeName(field(field(t, 'listType'), 'elemType'))}>`;
  if ('mapType' in t) {
    const m = field(t, 'mapType');
    return `map<${typeName(field(m, 'keyType'))}, ${typeName(field(m, 'valueType'))}>`;
  }
  if ('messageType' in t) throw new Unsupported(`declares a protobuf message type (${String(field(t, 'messageType'))})`);
  if ('wrapper' in t) throw new Unsupported('declares a protobuf wrapper type');
  if ('abstractType' in t) throw new Unsupported('declares an abstract type');
  if ('type' in t) throw new Unsupported('declares a type-of-type variable');
  throw new Unsupported(`unsupported type declaration ${JSON.stringify(t)}`);
}

function bytesOf(v: Json): Uint8Array {
  return new Uint8Array(Buffer.from(typeof v === 'string' ? v : '', 'base64'));
}

function doubleOf(v: Json): number {
  if (typeof v === 'number') return v;
  if (v === 'NaN') return Number.NaN;
  if (v === 'Infinity') return Number.POSITIVE_INFINITY;
  if (v === '-Infinity') return Number.NEGATIVE_INFINITY;
  return Number(v);
}

/** A cel.expr.Value (JSON) as a CEL value of this environment. */
function suiteValueOf(v: Json): unknown {
  if (!isObject(v)) throw new Unsupported('malformed value');
  if ('int64Value' in v) return BigInt(String(v.int64Value));
  if ('uint64Value' in v) return new UnsignedInt(BigInt(String(v.uint64Value)));
  if ('doubleValue' in v) return doubleOf(v.doubleValue);
  if ('stringValue' in v) return String(v.stringValue);
  if ('boolValue' in v) return v.boolValue === true;
  if ('bytesValue' in v) return bytesOf(v.bytesValue);
  if ('nullValue' in v) return null;
  if ('listValue' in v) {
    const values = field(v.listValue, 'values');
    return Array.isArray(values) ? values.map(suiteValueOf) : [];
  }
  if ('mapValue' in v) {
    const entries = field(v.mapValue, 'entries');
    const out = new Map<unknown, unknown>();
    for (const e of Array.isArray(entries) ? entries : []) {
      const key = suiteValueOf(field(e, 'key'));
      out.set(key instanceof UnsignedInt ? key.valueOf() : key, suiteValueOf(field(e, 'value')));
    }
    return out;
  }
  if ('typeValue' in v) return { typeName: String(v.typeValue) };
  if ('objectValue' in v) return wellKnownObject(v.objectValue);
  throw new Unsupported(`unsupported value ${JSON.stringify(v)}`);
}

function wellKnownObject(o: Json): unknown {
  const type = String(field(o, '@type'));
  const value = field(o, 'value');
  if (type.endsWith('google.protobuf.Duration') && typeof value === 'string') {
    return parseGoDuration(value) ?? durationFromNanos(0n);
  }
  if (type.endsWith('google.protobuf.Timestamp') && typeof value === 'string') return new Date(value);
  throw new Unsupported(`uses a protobuf message value (${type})`);
}

const LIBRARY_TYPE_NAMES: Record<string, string> = { null: 'null_type' };

/** Strict equality for checking results: an int is not a double, NaN matches NaN. */
function sameResult(expected: unknown, actual: unknown): boolean {
  if (isObject(expected as Json) && 'typeName' in (expected as JsonObject)) {
    const name = (actual as { name?: unknown } | null)?.name;
    const expectedName = String((expected as JsonObject).typeName);
    return typeof name === 'string' && (LIBRARY_TYPE_NAMES[name] ?? name) === expectedName;
  }
  if (typeof expected === 'number' && typeof actual === 'number') {
    return Number.isNaN(expected) ? Number.isNaN(actual) : Object.is(expected, actual) || expected === actual;
  }
  if (typeof expected !== typeof actual) return false;
  if (expected instanceof UnsignedInt) return actual instanceof UnsignedInt && expected.valueOf() === actual.valueOf();
  if (Array.isArray(expected)) {
    return Array.isArray(actual) && expected.length === actual.length && expected.every((e, i) => sameResult(e, actual[i]));
  }
  if (expected instanceof Map) {
    const entries =
      actual instanceof Map ? [...actual.entries()] : isObject(actual as Json) ? Object.entries(actual as JsonObject) : undefined;
    if (!entries || entries.length !== expected.size) return false;
    return [...expected.entries()].every(([k, v]) => {
      const hit = entries.find(([ak]) => celEquals(ak instanceof UnsignedInt ? ak.valueOf() : ak, k));
      return hit !== undefined && sameResult(v, hit[1]);
    });
  }
  if (expected instanceof Duration || expected instanceof Date || expected instanceof Uint8Array) return celEquals(expected, actual);
  return celEquals(expected, actual) && !(actual instanceof Optional);
}

const describe = (v: unknown): string => {
  if (typeof v === 'bigint') return `${v} (int)`;
  if (v instanceof UnsignedInt) return `${v.valueOf()}u`;
  if (typeof v === 'number') return `${v} (double)`;
  if (v instanceof Map) return `{${[...v.entries()].map(([k, x]) => `${describe(k)}: ${describe(x)}`).join(', ')}}`;
  if (Array.isArray(v)) return `[${v.map(describe).join(', ')}]`;
  if (typeof v === 'string') return JSON.stringify(v);
  if (v instanceof Uint8Array) return `b${JSON.stringify(Buffer.from(v).toString('latin1'))}`;
  if (v instanceof Date) return `timestamp(${v.toISOString()})`;
  if (v instanceof Duration) return `duration(${v.toString()})`;
  if (isObject(v as Json) && 'typeName' in (v as JsonObject)) return `type ${String((v as JsonObject).typeName)}`;
  return String(v);
};

const HETEROGENEOUS = /List elements must have the same type|Map (key|value) uses wrong type/;

const NO_LIMITS = { perExpression: Infinity, perObject: Infinity, estimated: Infinity };

function runCase(original: SuiteTest['original']): { status: CaseStatus; reason?: string } {
  const expr = original.expr;
  const variables: Record<string, VariableType> = {};
  for (const decl of Array.isArray(original.typeEnv) ? original.typeEnv : []) {
    const ident = field(decl, 'ident');
    if (ident === undefined) throw new Unsupported('declares a custom function');
    variables[String(field(decl, 'name'))] = typeName(field(ident, 'type'));
  }
  const inputs: Record<string, unknown> = {};
  const bindings = field(original, 'bindings');
  for (const [name, b] of isObject(bindings) ? Object.entries(bindings) : []) {
    inputs[name] = suiteValueOf(field(b, 'value'));
    variables[name] ??= 'dyn';
  }
  const expectsError = original.evalError !== undefined;
  const typed = field(original, 'typedResult');
  const typedResult = field(typed, 'result');
  const checkOnly = original.checkOnly === true || (typed !== undefined && typedResult === undefined);
  const expected =
    original.value !== undefined ? suiteValueOf(original.value) : typedResult !== undefined ? suiteValueOf(typedResult) : true;

  let program: ReturnType<typeof compileExpression>;
  try {
    program = compileExpression(expr, { variables, costLimits: NO_LIMITS });
  } catch (e) {
    if (!(e instanceof CelCompileError)) throw e;
    if (expectsError) return { status: 'pass', reason: 'rejected at compile time' };
    if (HETEROGENEOUS.test(e.summary)) {
      return { status: 'skip', reason: 'mixes types in a list or map literal; the spec enables homogeneous aggregate literals' };
    }
    if (original.disableCheck === true) {
      return { status: 'skip', reason: 'needs evaluation without type checking; this environment always type-checks' };
    }
    return { status: 'fail', reason: `compile error: ${e.summary}` };
  }
  if (checkOnly) return { status: 'pass' };
  let actual: unknown;
  try {
    actual = program.evaluate(inputs);
  } catch (e) {
    if (expectsError) return { status: 'pass' };
    const msg = e instanceof CelEvaluationError ? e.summary : e instanceof Error ? e.message : String(e);
    return { status: 'fail', reason: `evaluation error: ${msg}` };
  }
  if (expectsError) return { status: 'fail', reason: `expected an error, got ${describe(actual)}` };
  if (sameResult(expected, actual)) return { status: 'pass' };
  return { status: 'fail', reason: `expected ${describe(expected)}, got ${describe(actual)}` };
}

const MESSAGE_NAMES = /\b(TestAllTypes|NestedTestAllTypes|NestedMessage|NestedEnum|GlobalEnum|google\.protobuf\.[A-Z]\w+\s*\{)/;

/** Parts of the suite that do not apply to this environment, with the reason. */
export interface Exclusion {
  readonly file: string;
  readonly section?: string;
  readonly reason: string;
}

/** Runs every case of the named files of the suite. */
export function runConformance(suite: Suite, files: readonly string[], exclusions: readonly Exclusion[] = []): CaseResult[] {
  const out: CaseResult[] = [];
  for (const file of suite.suites ?? []) {
    if (!files.includes(file.name)) continue;
    for (const section of file.suites ?? []) {
      for (const t of section.tests ?? []) {
        const o = t.original;
        const base = { file: file.name, section: section.name, name: o.name ?? o.expr, expr: o.expr };
        const excluded = exclusions.find((x) => x.file === file.name && (x.section === undefined || x.section === section.name));
        if (excluded) {
          out.push({ ...base, status: 'skip', reason: excluded.reason });
          continue;
        }
        if (MESSAGE_NAMES.test(o.expr) || (typeof o.container === 'string' && /[A-Z]/.test(o.expr))) {
          out.push({ ...base, status: 'skip', reason: 'uses protobuf message types' });
          continue;
        }
        try {
          out.push({ ...base, ...runCase(o) });
        } catch (e) {
          if (e instanceof Unsupported) out.push({ ...base, status: 'skip', reason: e.message });
          else out.push({ ...base, status: 'fail', reason: `runner error: ${e instanceof Error ? e.message : String(e)}` });
        }
      }
    }
  }
  return out;
}

/** Per file: cases, passed, failed, skipped, and the pass rate over the cases that ran. */
export interface FileSummary {
  readonly file: string;
  readonly total: number;
  readonly passed: number;
  readonly failed: number;
  readonly skipped: number;
  readonly passRate: number;
}

export function summarize(results: readonly CaseResult[]): FileSummary[] {
  const byFile = new Map<string, CaseResult[]>();
  for (const r of results) byFile.set(r.file, [...(byFile.get(r.file) ?? []), r]);
  return [...byFile.entries()].map(([file, rs]) => {
    const passed = rs.filter((r) => r.status === 'pass').length;
    const failed = rs.filter((r) => r.status === 'fail').length;
    const skipped = rs.length - passed - failed;
    return { file, total: rs.length, passed, failed, skipped, passRate: passed + failed === 0 ? 1 : passed / (passed + failed) };
  });
}

/** The suite files for the features the specification enables. */
export const CONFORMANCE_FILES: readonly string[] = [
  'basic',
  'bindings_ext',
  'comparisons',
  'conversions',
  'fields',
  'fp_math',
  'integer_math',
  'lists',
  'logic',
  'macros',
  'namespace',
  'optionals',
  'parse',
  'plumbing',
  'string',
  'string_ext',
  'timestamps',
  'type_deductions',
];

/** Suite files not run, and why. */
export const FILES_NOT_RUN: readonly Exclusion[] = [
  { file: 'proto2', reason: 'protobuf message literals and fields; rules see schema objects, not protobuf messages' },
  { file: 'proto3', reason: 'protobuf message literals and fields; rules see schema objects, not protobuf messages' },
  { file: 'proto2_ext', reason: 'protobuf extensions' },
  { file: 'wrappers', reason: 'protobuf wrapper types (google.protobuf.Int32Value, ...)' },
  { file: 'enums', reason: 'protobuf enums' },
  { file: 'dynamic', reason: 'protobuf Any/Struct/Value messages' },
  { file: 'math_ext', reason: "the math extension is not in the specification's library list" },
  { file: 'encoders_ext', reason: "the encoders extension is not in the specification's library list" },
  { file: 'block_ext', reason: 'cel.block is an internal optimizer form, not in the specification' },
  { file: 'macros2', reason: "two-variable comprehensions are not in the specification's library list" },
  { file: 'unknowns', reason: 'no cases' },
];

/** Sections of run files that do not apply, and why. */
export const SECTIONS_NOT_RUN: readonly Exclusion[] = [
  { file: 'string_ext', section: 'format', reason: "string.format is not part of the specification's strings extension (charAt ... trim)" },
  {
    file: 'string_ext',
    section: 'format_errors',
    reason: "string.format is not part of the specification's strings extension (charAt ... trim)",
  },
  {
    file: 'fields',
    section: 'quoted_map_fields',
    reason: 'backtick-quoted field names came with cel-go 0.22; Kubernetes 1.30 (cel-go 0.17) does not parse them either',
  },
];

/** Known causes of the remaining failures: gaps of @marcbachmann/cel-js that this module does not paper over. */
const KNOWN_GAPS: readonly { readonly match: (r: CaseResult) => boolean; readonly why: string }[] = [
  {
    match: (r) => r.file === 'namespace' || (r.section === 'qualified_identifier_resolution' && /Unknown variable/.test(r.reason ?? '')),
    why: 'dotted variable names and containers are not supported (rules declare plain variables)',
  },
  { match: (r) => /nanos|999999999/.test(r.name + r.expr), why: 'timestamps are JavaScript Dates with millisecond precision' },
  { match: (r) => r.name === 'add_time_to_duration', why: 'the library types duration + timestamp as a duration' },
  {
    match: (r) => /big.*double|lossy/.test(r.name),
    why: 'int/double comparison near 2^63 is exact in JavaScript; cel-go compares after converting to double',
  },
  {
    match: (r) => r.file === 'lists' && /u\b|u\)/.test(r.expr),
    why: 'a uint behind dyn does not index a list in the library',
  },
  {
    match: (r) => /overlaps with/.test(r.reason ?? ''),
    why: 'the library finds an ambiguous overload for the element type of an empty list literal',
  },
  {
    match: (r) => r.section === 'exists_one' && r.expr.includes('{'),
    why: 'exists_one over a map literal binds the variable with the wrong type in the library',
  },
  {
    match: (r) => /Cannot index type 'undefined'/.test(r.reason ?? ''),
    why: 'selecting from optional.none() or an untyped empty literal fails to type-check in the library',
  },
  {
    match: (r) => /expected an error, got false/.test(r.reason ?? '') && r.file === 'optionals',
    why: 'selecting a field of a non-map value through an optional yields none instead of an error',
  },
  { match: (r) => r.name === 'type' && r.file === 'optionals', why: 'optional_type is not exposed as a type constant' },
];

/** Why a case failed: a known gap's explanation, or the observed difference. */
export function explainFailure(r: CaseResult): string {
  return KNOWN_GAPS.find((g) => g.match(r))?.why ?? 'not yet analysed';
}
