/**
 * Errors of the Protobuf codec. Both name what was wrong and where, so the server can turn them
 * into a 400 (a bad request body) or a 500 (a stored object it cannot encode) in one place.
 */

/** Why bytes are not a Protobuf envelope. */
export type EnvelopeProblem = 'missing-prefix' | 'unknown-prefix' | 'malformed' | 'unsupported-encoding';

/** Bytes given as the Protobuf media type that are not an envelope this codec reads. */
export class ProtobufEnvelopeError extends Error {
  override readonly name = 'ProtobufEnvelopeError';

  constructor(
    readonly problem: EnvelopeProblem,
    message: string,
  ) {
    super(message);
  }
}

export function isProtobufEnvelopeError(value: unknown): value is ProtobufEnvelopeError {
  return value instanceof ProtobufEnvelopeError;
}

/**
 * A value that does not fit its schema's wire form (encode), or bytes that do not fit the message
 * (decode). `path` is the JSON path of the offending field (`.spec.containers[0].ports`).
 */
export class ProtobufCodecError extends Error {
  override readonly name = 'ProtobufCodecError';

  constructor(
    readonly direction: 'encode' | 'decode',
    readonly path: string,
    readonly detail: string,
    readonly kind?: string,
  ) {
    super(`cannot ${direction} ${kind ?? 'object'} as Protobuf: ${path === '' ? '' : `${path}: `}${detail}`);
  }

  /** The same error one level further out: `segment` is prepended to the path. */
  within(segment: string): ProtobufCodecError {
    return new ProtobufCodecError(this.direction, `${segment}${this.path}`, this.detail, this.kind);
  }

  /** The same error naming the kind being converted. */
  forKind(kind: string): ProtobufCodecError {
    return new ProtobufCodecError(this.direction, this.path, this.detail, kind);
  }
}

export function isProtobufCodecError(value: unknown): value is ProtobufCodecError {
  return value instanceof ProtobufCodecError;
}
