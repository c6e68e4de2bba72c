import { isObject } from '../json/index.js';
import { IDENTIFIER, sourceFunction } from '../schema/index.js';
import {
  EmbeddedField,
  type FieldPlan,
  ListField,
  MapField,
  MessageCodec,
  type MessagePlan,
  SingleField,
  WrapperCodec,
  setOwn,
} from './protobuf-message.js';
import { type ValueCodec, boolCodec, int32Codec, int64Codec, stringCodec } from './protobuf-values.js';
import { type Reader, type Writer, fieldKey, readInt64, skipField } from './protobuf-wire.js';

/** Thrown by compiled code for any value that does not fit: the caller reruns the plan's closures for the precise error. */
const MISFIT = new Error('the value does not fit its Protobuf field');

/** What compiled code calls, passed in as `rt`. */
const RUNTIME = { MISFIT, isObject, readInt64, setOwn, skipField };

type JsonObject = Record<string, unknown>;
type Write = (w: Writer, source: JsonObject) => void;
type Read = (r: Reader, end: number, target: JsonObject) => JsonObject;

/**
 * Compiles `root` and every message it reaches into straight-line JavaScript: per message one
 * write and one read function whose property accesses name the fields (`o.metadata`), so each
 * keeps its own inline caches, as protobufjs' generated code does. The closures of MessagePlan
 * reach every field through one shared `source[name]`, which the engine cannot cache (a third of
 * the time of encoding a PodList). Schema content never becomes source text (as in
 * runtime/schema/validator-source.ts): field names that are identifiers are written as property
 * names, field keys as integers; any other name is an element of the constants array `k`.
 * Where the platform refuses to compile code, the plans keep their closures.
 */
export function compilePlans(root: MessagePlan): void {
  const seen = new Set<MessagePlan>();
  const pending = [root];
  for (let plan = pending.pop(); plan !== undefined; plan = pending.pop()) {
    if (seen.has(plan)) continue;
    seen.add(plan);
    for (const f of plan.fields) pending.push(...reachable(f));
    const compiled = compilePlan(plan);
    if (!compiled) return;
    plan.fastWrite = compiled.write;
    plan.fastRead = compiled.read;
    plan.create = compiled.create;
  }
}

function reachable(field: FieldPlan): MessagePlan[] {
  if (field instanceof EmbeddedField) return [field.plan];
  if (field instanceof SingleField || field instanceof ListField || field instanceof MapField) return codecPlans(field.codec);
  return [];
}

function codecPlans(codec: ValueCodec): MessagePlan[] {
  if (codec instanceof MessageCodec) return [codec.plan];
  if (codec instanceof WrapperCodec) return codecPlans(codec.field.codec);
  return [];
}

/** The source of one message's write and read, with the constants it reads by index. */
class PlanSource {
  readonly constants: unknown[] = [];
  readonly writes: string[] = [];
  readonly cases: string[] = [];

  constructor(readonly plan: MessagePlan) {}

  /** An expression for constant `value` (`k[3]`). */
  constant(value: unknown): string {
    let i = this.constants.indexOf(value);
    if (i < 0) i = this.constants.push(value) - 1;
    return `k[${i}]`;
  }

  /** `o.name`, or `o[k[i]]` for a name that is not an identifier. */
  property(object: string, name: string): string {
    return IDENTIFIER.test(name) && name !== '__proto__' ? `${object}.${name}` : `${object}[${this.constant(name)}]`;
  }
}

function compilePlan(plan: MessagePlan): { write: Write; read: Read; create: () => JsonObject } | undefined {
  const s = new PlanSource(plan);
  for (const f of plan.fields) addField(s, f);
  const self = s.constant(plan);
  // Objects read are made by a constructor of their own: the engine then sizes them for the fields
  // this message has (slack tracking) instead of growing a property store field by field. Its
  // prototype is Object.prototype, so they are plain objects.
  const source = `"use strict";
function Message() {}
Message.prototype = Object.prototype;
return [function write(w, o) {
  let v;
${s.writes.join('\n')}
}, function read(r, end, t) {
  while (r.pos < end) {
    const key = r.uint32();
    switch (key) {
${s.cases.join('\n')}
      default: ${self}.readField(r, key, t);
    }
  }
  if (r.pos !== end) throw rt.MISFIT;
  return t;
}, () => new Message()];`;
  const make = sourceFunction(['k', 'rt'], source);
  if (!make) return undefined;
  const [write, read, create] = make(s.constants, RUNTIME) as [Write, Read, () => JsonObject];
  return { write, read, create };
}

function addField(s: PlanSource, f: FieldPlan): void {
  if (f instanceof EmbeddedField) {
    const plan = s.constant(f.plan);
    s.writes.push(`  w.uint32(${fieldKey(f.number, 2)}).fork(); ${plan}.fastWrite(w, o); w.ldelim();`);
    s.cases.push(`      case ${fieldKey(f.number, 2)}: ${plan}.fastRead(r, r.delimitedEnd(), t); break;`);
    return;
  }
  if (!(f instanceof SingleField || f instanceof ListField || f instanceof MapField)) throw new Error('unknown field plan');
  const get = s.property('o', f.name);
  const set = s.property('t', f.name);
  if (f instanceof SingleField) {
    const key = fieldKey(f.number, f.codec.wireType);
    s.writes.push(`  v = ${get};
  if (v !== undefined && v !== null) { ${checkValue(s, f.codec, 'v')} w.uint32(${key}); ${writeValue(s, f.codec, 'v')} }`);
    s.cases.push(`      case ${key}: ${set} = ${readValue(s, f.codec)}; break;`);
  } else if (f instanceof ListField) {
    const key = fieldKey(f.number, f.codec.wireType);
    const nullItem = f.codec.acceptsNull ? '' : ' || x === null';
    s.writes.push(`  v = ${get};
  if (v !== undefined && v !== null) {
    if (!Array.isArray(v)) throw rt.MISFIT;
    for (let i = 0; i < v.length; i++) {
      const x = v[i];
      if (x === undefined${nullItem}) throw rt.MISFIT;
      ${checkValue(s, f.codec, 'x')} w.uint32(${key}); ${writeValue(s, f.codec, 'x')}
    }
  }`);
    // A list starts as a literal of its first item: an empty one gets room for 17 on its first push.
    s.cases.push(
      `      case ${key}: { const l = ${set}; const x = ${readValue(s, f.codec)}; if (l === undefined) ${set} = [x]; else l.push(x); break; }`,
    );
  } else {
    const key = fieldKey(f.number, 2);
    const nullValue = f.codec.acceptsNull ? '' : ' || x === null';
    const zero = s.constant(f.codec);
    s.writes.push(`  v = ${get};
  if (v !== undefined && v !== null) {
    if (!rt.isObject(v)) throw rt.MISFIT;
    for (const n of Object.keys(v)) {
      const x = v[n];
      if (x === undefined${nullValue}) throw rt.MISFIT;
      ${checkValue(s, f.codec, 'x')} w.uint32(${key}).fork().uint32(10).string(n).uint32(${f.valueKey}); ${writeValue(s, f.codec, 'x')} w.ldelim();
    }
  }`);
    s.cases.push(`      case ${key}: {
        let m = ${set};
        if (m === undefined) ${set} = m = {};
        const e = r.delimitedEnd();
        let n = '';
        let x;
        while (r.pos < e) {
          const kk = r.uint32();
          if (kk === 10) n = r.string();
          else if (kk === ${f.valueKey}) x = ${readValue(s, f.codec)};
          else rt.skipField(r, kk & 7);
        }
        if (x === undefined) x = ${zero}.zero();
        if (n === '__proto__') rt.setOwn(m, n, x);
        else m[n] = x;
        break;
      }`);
  }
}

/** A statement that throws when `v` is not of the codec's JSON type (for the codecs written inline). */
function checkValue(s: PlanSource, codec: ValueCodec, v: string): string {
  if (codec === stringCodec) return `if (typeof ${v} !== 'string') throw rt.MISFIT;`;
  if (codec === boolCodec) return `if (typeof ${v} !== 'boolean') throw rt.MISFIT;`;
  if (codec === int32Codec) return `if (typeof ${v} !== 'number' || (${v} | 0) !== ${v}) throw rt.MISFIT;`;
  if (codec === int64Codec) return `if (!Number.isInteger(${v}) || Math.abs(${v}) >= 9223372036854775808) throw rt.MISFIT;`;
  if (codec instanceof MessageCodec) return `if (!rt.isObject(${v})) throw rt.MISFIT;`;
  s.constant(codec);
  return '';
}

function writeValue(s: PlanSource, codec: ValueCodec, v: string): string {
  if (codec === stringCodec) return `w.string(${v});`;
  if (codec === boolCodec) return `w.bool(${v});`;
  if (codec === int32Codec) return `w.int32(${v});`;
  if (codec === int64Codec) return `w.int64(${v});`;
  if (codec instanceof MessageCodec) return `w.fork(); ${s.constant(codec.plan)}.fastWrite(w, ${v}); w.ldelim();`;
  return `${s.constant(codec)}.write(w, ${v});`;
}

function readValue(s: PlanSource, codec: ValueCodec): string {
  if (codec === stringCodec) return 'r.string()';
  if (codec === boolCodec) return 'r.bool()';
  if (codec === int32Codec) return 'r.int32()';
  if (codec === int64Codec) return 'rt.readInt64(r)';
  if (codec instanceof MessageCodec) {
    const plan = s.constant(codec.plan);
    return `${plan}.fastRead(r, r.delimitedEnd(), ${plan}.create())`;
  }
  return `${s.constant(codec)}.read(r)`;
}
