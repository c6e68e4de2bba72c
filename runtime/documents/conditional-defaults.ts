/**
 * Defaults that depend on another field's value, which the schema format cannot express; applied
 * after the schema's defaults, as the component that reads the document applies them.
 *
 * - EncryptionConfiguration: a KMS provider's `cachesize` defaults to 1000 for v1 providers only
 *   (`apiVersion` itself defaults to v1); v2 providers take no cache size.
 */
import { isObject } from '../json/index.js';

type Json = Record<string, unknown>;
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

const KMS_V1_CACHE_SIZE = 1000;

const DEFAULTERS: Record<string, (doc: Json) => void> = {
  'apiserver.config.svc.io/v1 EncryptionConfiguration': (doc) => {
    for (const r of list(doc.resources)) {
      if (!isObject(r)) continue;
      for (const p of list(r.providers)) {
        const kms = isObject(p) && isObject(p.kms) ? p.kms : undefined;
        if (kms && (kms.apiVersion ?? 'v1') === 'v1' && kms.cachesize === undefined) kms.cachesize = KMS_V1_CACHE_SIZE;
      }
    }
  },
};

/** Applies the conditional defaults of `apiVersion kind` to `doc`, in place. */
export function setConditionalDefaults(apiVersion: string, kind: string, doc: unknown): void {
  const set = DEFAULTERS[`${apiVersion} ${kind}`];
  if (set && isObject(doc)) set(doc);
}
