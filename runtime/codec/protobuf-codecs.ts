import { isObject } from '../json/index.js';
import type { ObjectSchema } from '../schema/index.js';
import { decodeEnvelope, writeEnvelope } from './envelope.js';
import { ProtobufCodecError } from './protobuf-errors.js';
import { MessageCompiler, type MessagePlan } from './protobuf-message.js';
import { compilePlans } from './protobuf-source.js';
import { type Writer, newReader, newWriter } from './protobuf-wire.js';
import { decodeWatchEvent, encodeWatchFrame } from './watch-frames.js';

/** A kind that has a Protobuf message. */
export interface ProtobufKind {
  apiVersion: string;
  kind: string;
  schema: ObjectSchema;
}

/** Fields of `owner` inlined from the embedded struct `type`, which Protobuf nests at `number`. */
export interface EmbeddedMessage {
  owner: ObjectSchema;
  number: number;
  type: ObjectSchema;
}

/**
 * What generated code declares per group/version (`protobuf.ts`): the Protobuf package, the
 * .proto file it is written to, its kinds and its embedded structs. Everything else (field
 * numbers, wire forms) the runtime reads from the schema descriptors.
 */
export interface ProtobufPackage {
  /** `svc.io.api.core.v1`. */
  package: string;
  /** The .proto file below the generated root: `core/v1/generated.proto`. */
  file: string;
  kinds: readonly ProtobufKind[];
  embedded: readonly EmbeddedMessage[];
}

type JsonObject = Record<string, unknown>;

/** A decoded watch event. */
export interface WatchEventObject {
  type: string;
  object: JsonObject;
}

/**
 * JSON objects <-> Protobuf for every kind of the given packages: the envelope for get, list,
 * create and update bodies, the length-delimited frames for watch. Messages are compiled from
 * the schema descriptors on first use. Custom resource kinds have no package, so `supports` is
 * false for them (the server answers 406 when Protobuf is the only type accepted).
 *
 * What does not read back exactly (empty lists and maps, nulls, nested apiVersion and kind,
 * canonical forms of times, durations, bytes and floats) is listed in docs/decisions.md,
 * "Protobuf codecs".
 */
export class ProtobufCodecs {
  private readonly kinds = new Map<string, ProtobufKind>();
  private readonly embedded = new Map<ObjectSchema, Map<number, ObjectSchema>>();
  private readonly compiler: MessageCompiler;
  private readonly compiled = new Set<MessagePlan>();

  constructor(packages: readonly ProtobufPackage[]) {
    for (const p of packages) {
      for (const k of p.kinds) this.kinds.set(kindKey(k.apiVersion, k.kind), k);
      for (const e of p.embedded) {
        const byNumber = this.embedded.get(e.owner) ?? new Map<number, ObjectSchema>();
        this.embedded.set(e.owner, byNumber.set(e.number, e.type));
      }
    }
    this.compiler = new MessageCompiler((owner, number) => this.embedded.get(owner)?.get(number));
  }

  /** True when the kind has a Protobuf message. */
  supports(apiVersion: string, kind: string): boolean {
    return this.kinds.has(kindKey(apiVersion, kind));
  }

  /** The envelope of an object, typed by its own apiVersion and kind. */
  encode(object: unknown): Uint8Array {
    const { apiVersion, kind } = typeMetaOf(object);
    const plan = this.plan(apiVersion, kind, 'encode');
    const w = newWriter();
    writeEnvelope(w, apiVersion, kind, (inner) => this.writeMessage(inner, plan, object as JsonObject, kind));
    return w.finish();
  }

  /**
   * The object in an envelope, with apiVersion and kind from its typeMeta. Throws
   * ProtobufEnvelopeError (not an envelope) or ProtobufCodecError (not a message of that kind).
   */
  decode(bytes: Uint8Array): JsonObject {
    const envelope = decodeEnvelope(bytes);
    return this.decodeMessage(envelope.apiVersion, envelope.kind, envelope.raw);
  }

  /** The bare message of an object of the given kind (no envelope, no apiVersion or kind). */
  encodeMessage(apiVersion: string, kind: string, object: JsonObject): Uint8Array {
    const plan = this.plan(apiVersion, kind, 'encode');
    const w = newWriter();
    this.writeFields(w, plan, object, kind);
    return w.finish();
  }

  /** An object from its bare message; apiVersion and kind come first. */
  decodeMessage(apiVersion: string, kind: string, bytes: Uint8Array): JsonObject {
    const plan = this.plan(apiVersion, kind, 'decode');
    const r = newReader(bytes);
    try {
      return plan.fastRead(r, r.len, { apiVersion, kind });
    } catch (error) {
      throw forKind(
        preciseError(error, () => plan.read(newReader(bytes), bytes.length, {})),
        kind,
      );
    }
  }

  /** One watch frame (length prefix included) carrying the object's envelope. */
  encodeWatchEvent(type: string, object: unknown): Uint8Array {
    const { apiVersion, kind } = typeMetaOf(object);
    const plan = this.plan(apiVersion, kind, 'encode');
    return encodeWatchFrame(type, (w) =>
      writeEnvelope(w, apiVersion, kind, (inner) => this.writeMessage(inner, plan, object as JsonObject, kind)),
    );
  }

  /** A watch event from one frame's payload (see WatchFrameReader). */
  decodeWatchEvent(payload: Uint8Array): WatchEventObject {
    const event = decodeWatchEvent(payload);
    return { type: event.type, object: this.decode(event.object) };
  }

  private writeMessage(w: Writer, plan: MessagePlan, object: JsonObject, kind: string): void {
    w.fork();
    this.writeFields(w, plan, object, kind);
    w.ldelim();
  }

  private writeFields(w: Writer, plan: MessagePlan, object: JsonObject, kind: string): void {
    try {
      plan.fastWrite(w, object);
    } catch (error) {
      throw forKind(
        preciseError(error, () => plan.write(newWriter(), object)),
        kind,
      );
    }
  }

  private plan(apiVersion: string, kind: string, direction: 'encode' | 'decode'): MessagePlan {
    const k = this.kinds.get(kindKey(apiVersion, kind));
    if (!k)
      throw new ProtobufCodecError(
        direction,
        '',
        `${kind} of ${apiVersion || '(no apiVersion)'} has no Protobuf message`,
        kind || undefined,
      );
    const plan = this.compiler.plan(k.schema);
    if (!this.compiled.has(plan)) {
      compilePlans(plan);
      this.compiled.add(plan);
    }
    return plan;
  }
}

/**
 * The error of the plan's closures (which say where a value did not fit) for an error of its
 * compiled code (which does not), or the error itself when the closures find none.
 */
function preciseError(error: unknown, again: () => unknown): unknown {
  try {
    again();
  } catch (precise) {
    return precise;
  }
  return error;
}

function forKind(error: unknown, kind: string): unknown {
  return error instanceof ProtobufCodecError ? error.forKind(kind) : error;
}

function kindKey(apiVersion: string, kind: string): string {
  return `${apiVersion}\0${kind}`;
}

function typeMetaOf(object: unknown): { apiVersion: string; kind: string } {
  if (!isObject(object)) throw new ProtobufCodecError('encode', '', 'expected an object');
  const { apiVersion, kind } = object;
  if (typeof apiVersion !== 'string' || typeof kind !== 'string' || apiVersion === '' || kind === '') {
    throw new ProtobufCodecError('encode', '', 'the object needs apiVersion and kind to be written in a Protobuf envelope');
  }
  return { apiVersion, kind };
}
