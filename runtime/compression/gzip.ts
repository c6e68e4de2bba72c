import { promisify } from 'node:util';
import { gzip, gzipSync } from 'node:zlib';

/**
 * Response compression as the real system does it: on get and list, only when the client sends
 * `Accept-Encoding: gzip` and the body is larger than 128 KiB (its `defaultGzipThresholdBytes`,
 * compared with `>`), at compression level 1 (its `defaultGzipContentEncodingLevel`: least CPU
 * for a similar ratio), answered with `Content-Encoding: gzip` and `Vary: Accept-Encoding`.
 * The feature gate `APIResponseCompression=false` turns it off.
 */
export const GZIP_THRESHOLD_BYTES = 128 * 1024;
export const GZIP_LEVEL = 1;

export interface CompressionOptions {
  /** The request's Accept-Encoding header. */
  acceptEncoding: string | undefined | null;
  /** False when the server runs with APIResponseCompression=false. Default true. */
  enabled?: boolean;
  /** Bodies up to this size are sent as they are. Default GZIP_THRESHOLD_BYTES. */
  thresholdBytes?: number;
}

export interface CompressedBody {
  body: Uint8Array;
  /** `Content-Encoding` and `Vary` when compressed; empty otherwise. */
  headers: Record<string, string>;
}

/** True when the Accept-Encoding header accepts gzip (`gzip`, `x-gzip` or `*`, with q > 0). */
export function acceptsGzip(acceptEncoding: string | undefined | null): boolean {
  if (!acceptEncoding) return false;
  let star: boolean | undefined;
  for (const part of acceptEncoding.split(',')) {
    const [coding = '', ...params] = part.split(';').map((s) => s.trim().toLowerCase());
    const q = params.find((p) => p.startsWith('q='));
    const accepted = q === undefined || Number(q.slice(2)) > 0;
    if (coding === 'gzip' || coding === 'x-gzip') return accepted;
    if (coding === '*') star = accepted;
  }
  return star ?? false;
}

/**
 * Whether this body is to be compressed. Its UTF-8 length is computed only when the client
 * accepts gzip: for a list of 500 objects that count was a sixth of the server's CPU, spent
 * for clients (most on loopback) that never ask for gzip.
 */
export function shouldCompress(body: string | Uint8Array, options: CompressionOptions): boolean {
  if (!(options.enabled ?? true) || !acceptsGzip(options.acceptEncoding)) return false;
  const bytes = typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength;
  return bytes > (options.thresholdBytes ?? GZIP_THRESHOLD_BYTES);
}

/** Compresses the body when the rules above say so (off the event loop). */
export async function compressResponse(body: Uint8Array | string, options: CompressionOptions): Promise<CompressedBody> {
  const bytes = typeof body === 'string' ? Buffer.from(body) : body;
  if (!shouldCompress(bytes, options)) return { body: bytes, headers: {} };
  return { body: await gzipAsync(bytes, { level: GZIP_LEVEL }), headers: GZIP_HEADERS };
}

/** compressResponse, synchronously (tests, small tools). */
export function compressResponseSync(body: Uint8Array | string, options: CompressionOptions): CompressedBody {
  const bytes = typeof body === 'string' ? Buffer.from(body) : body;
  if (!shouldCompress(bytes, options)) return { body: bytes, headers: {} };
  return { body: gzipSync(bytes, { level: GZIP_LEVEL }), headers: GZIP_HEADERS };
}

const GZIP_HEADERS: Readonly<Record<string, string>> = Object.freeze({ 'Content-Encoding': 'gzip', Vary: 'Accept-Encoding' });
const gzipAsync = promisify(gzip);
