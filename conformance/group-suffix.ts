/**
 * `--group-suffix`: the spec names groups `<name>.svc.io`; a server whose groups end in another
 * suffix (for example `k8s.io`) is judged by rewriting every group name, the meta group of the Table
 * media type, label and annotation prefixes and the Protobuf media type before requests are sent and
 * expectations compared.
 */

export const SPEC_GROUP_SUFFIX = 'svc.io';

/** The product word in the Protobuf media type: `vnd.svc.protobuf` becomes `vnd.kubernetes.protobuf` for `k8s.io`. */
export function protobufWord(suffix: string): string {
  if (suffix === 'k8s.io') return 'kubernetes';
  return suffix.split('.')[0] ?? suffix;
}

export function rewriteGroupSuffix(text: string, suffix: string): string {
  if (suffix === SPEC_GROUP_SUFFIX) return text;
  // Expectations may be regular expressions, where the names are escaped (`apiserver\.svc\.io`).
  const escaped = suffix.replace(/\./g, '\\.');
  return text
    .replace(/vnd\.svc\.protobuf/g, `vnd.${protobufWord(suffix)}.protobuf`)
    .replace(/vnd\\\.svc\\\.protobuf/g, `vnd\\.${protobufWord(suffix)}\\.protobuf`)
    .replace(/\\\.svc\\\.io\b/g, `\\.${escaped}`)
    .replace(/\.svc\.io\b/g, `.${suffix}`)
    .replace(/(^|[^\w.-])svc\.io\//g, `$1${suffix}/`);
}

/** Rewrites every string (and object key) inside plain data; functions and buffers pass through. */
export function rewriteDeep<T>(value: T, suffix: string): T {
  if (suffix === SPEC_GROUP_SUFFIX) return value;
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') return rewriteGroupSuffix(v, suffix);
    if (Array.isArray(v)) return v.map(walk);
    if (v && typeof v === 'object' && !Buffer.isBuffer(v)) {
      const out: Record<string, unknown> = {};
      for (const [k, inner] of Object.entries(v)) out[rewriteGroupSuffix(k, suffix)] = walk(inner);
      return out;
    }
    return v;
  };
  return walk(value) as T;
}
