import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { GZIP_THRESHOLD_BYTES, acceptsGzip, compressResponse, compressResponseSync } from './index.js';

describe('response compression', () => {
  const big = 'x'.repeat(GZIP_THRESHOLD_BYTES + 1);

  it('compresses bodies above 128 KiB when the client accepts gzip', async () => {
    expect(GZIP_THRESHOLD_BYTES).toBe(131072);
    const result = await compressResponse(big, { acceptEncoding: 'gzip, deflate' });
    expect(result.headers).toEqual({ 'Content-Encoding': 'gzip', Vary: 'Accept-Encoding' });
    expect(gunzipSync(result.body).toString()).toBe(big);
  });

  it('sends a body of exactly the threshold, or any body the client did not ask to compress, as it is', () => {
    const exact = 'x'.repeat(GZIP_THRESHOLD_BYTES);
    expect(compressResponseSync(exact, { acceptEncoding: 'gzip' }).headers).toEqual({});
    expect(compressResponseSync(big, { acceptEncoding: undefined }).headers).toEqual({});
    expect(compressResponseSync(big, { acceptEncoding: 'gzip;q=0' }).headers).toEqual({});
    expect(compressResponseSync(big, { acceptEncoding: 'br' }).headers).toEqual({});
  });

  it('is switched off when not enabled (APIResponseCompression=false)', () => {
    expect(compressResponseSync(big, { acceptEncoding: 'gzip', enabled: false }).headers).toEqual({});
  });

  it('reads Accept-Encoding codings and q-values', () => {
    expect(acceptsGzip('gzip')).toBe(true);
    expect(acceptsGzip('deflate, x-gzip;q=0.5')).toBe(true);
    expect(acceptsGzip('*')).toBe(true);
    expect(acceptsGzip('*, gzip;q=0')).toBe(false);
    expect(acceptsGzip('identity')).toBe(false);
  });
});
