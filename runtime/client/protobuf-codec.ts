import { MEDIA_PROTOBUF, type ProtobufPackage, ProtobufCodecs, WatchFrameReader } from '../codec/index.js';
import type { Codec } from './codec.js';

/**
 * The Protobuf codec for built-in kinds (`ClientConfig.codec`): bodies in the envelope, watches
 * as length-delimited frames. Custom resources and anything the server answers 406 for go as JSON.
 */
export function protobufCodec(packages: readonly ProtobufPackage[]): Codec {
  const codecs = new ProtobufCodecs(packages);
  return {
    mediaType: MEDIA_PROTOBUF,
    binary: true,
    encode: (value) => new Uint8Array(codecs.encode(value)),
    decode: (body) => codecs.decode(typeof body === 'string' ? new TextEncoder().encode(body) : body),
    async *events(chunks) {
      const reader = new WatchFrameReader();
      for await (const chunk of chunks) {
        for (const frame of reader.push(chunk)) yield codecs.decodeWatchEvent(frame);
      }
    },
    supports: (info) => !info.custom && codecs.supports(info.group === '' ? info.version : `${info.group}/${info.version}`, info.kind),
  };
}
