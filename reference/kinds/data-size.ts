import { type JsonApiObject, fieldTooLong, invalid } from '../../runtime/api/index.js';
import { isObject } from '../../runtime/json/index.js';
import type { HookHost, KindHook } from '../../runtime/server/index.js';

/** core.MaxSecretSize: the most a ConfigMap's or a Secret's data may hold, in bytes. */
const MAX_DATA_BYTES = 1024 * 1024;

/**
 * The size limit of upstream's ValidateConfigMap and ValidateSecret: the bytes of every value
 * together (a ConfigMap's `data` as UTF-8 and its `binaryData` decoded, a Secret's `data` decoded)
 * at most 1 MiB. Upstream names the whole object (`[]`) for a ConfigMap and `data` for a Secret.
 */
export function dataSizeLimit(host: HookHost): KindHook {
  const { kind, group } = host.declaring;
  const field = kind === 'Secret' ? 'data' : '[]';
  return {
    prepareWrite(object: JsonApiObject) {
      const size = sum(object.data, kind === 'Secret' ? 'base64' : 'utf8') + sum(object.binaryData, 'base64');
      if (size > MAX_DATA_BYTES) throw invalid({ group, kind }, object.metadata?.name ?? '', [fieldTooLong(field, '', MAX_DATA_BYTES)]);
    },
  };
}

function sum(values: unknown, encoding: 'utf8' | 'base64'): number {
  if (!isObject(values)) return 0;
  let total = 0;
  for (const v of Object.values(values)) if (typeof v === 'string') total += Buffer.byteLength(v, encoding);
  return total;
}
