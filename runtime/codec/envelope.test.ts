import { describe, expect, it } from 'vitest';
import { PROTOBUF_MAGIC, type ProtobufEnvelopeError, decodeEnvelope, encodeEnvelope, isProtobufEnvelopeError } from './index.js';

function envelopeError(bytes: Uint8Array): ProtobufEnvelopeError {
  try {
    decodeEnvelope(bytes);
  } catch (error) {
    if (isProtobufEnvelopeError(error)) return error;
    throw error;
  }
  throw new Error('expected a ProtobufEnvelopeError');
}

describe('Protobuf envelope', () => {
  const raw = Uint8Array.of(1, 2, 3);

  it('starts with 6b 38 73 00, then Unknown {typeMeta 1 {apiVersion 1, kind 2}, raw 2, contentEncoding 3, contentType 4}', () => {
    const bytes = encodeEnvelope({ apiVersion: 'v1', kind: 'Pod', raw });
    expect(PROTOBUF_MAGIC).toEqual([0x6b, 0x38, 0x73, 0x00]);
    expect(Buffer.from(bytes).toString('hex')).toBe(['6b387300', '0a09', '0a027631', '1203506f64', '1203010203', '1a00', '2200'].join(''));
    expect(decodeEnvelope(bytes)).toEqual({ apiVersion: 'v1', kind: 'Pod', raw, contentEncoding: '', contentType: '' });
  });

  it('rejects bytes without the prefix, naming what it found (and JSON as JSON)', () => {
    const e = envelopeError(new TextEncoder().encode('{"kind":"Pod"}'));
    expect(e.problem).toBe('missing-prefix');
    expect(e.message).toBe(
      'a Protobuf body must start with the magic bytes 6b 38 73 00, got 7b 22 6b 69 (the body looks like JSON: send it as application/json)',
    );
    expect(envelopeError(Uint8Array.of(0x6b, 0x38)).problem).toBe('missing-prefix');
    expect(envelopeError(new Uint8Array(0)).message).toContain('got no bytes');
  });

  it('rejects a different (future) prefix as a format it does not read', () => {
    const bytes = encodeEnvelope({ apiVersion: 'v1', kind: 'Pod', raw });
    bytes[3] = 0x01;
    const e = envelopeError(bytes);
    expect(e.problem).toBe('unknown-prefix');
    expect(e.message).toBe('the Protobuf envelope starts with 6b 38 73 01, a format this server does not read; expected 6b 38 73 00');
  });

  it('rejects a malformed Unknown and an encoded raw part', () => {
    expect(envelopeError(Uint8Array.of(0x6b, 0x38, 0x73, 0x00, 0x12, 0x05, 0x01)).problem).toBe('malformed');
    const gzipped = encodeEnvelope({ apiVersion: 'v1', kind: 'Pod', raw, contentEncoding: 'gzip' });
    expect(envelopeError(gzipped).problem).toBe('unsupported-encoding');
  });
});
