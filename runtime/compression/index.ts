/** HTTP response compression: gzip above a size threshold, as the real system's APIResponseCompression. Node only. */
export {
  type CompressedBody,
  type CompressionOptions,
  GZIP_LEVEL,
  GZIP_THRESHOLD_BYTES,
  acceptsGzip,
  compressResponse,
  compressResponseSync,
  shouldCompress,
} from './gzip.js';
