/**
 * The manager a write is recorded under. Apply names it explicitly (`fieldManager`); other writes
 * without one are recorded under their User-Agent's product name, as the real system does:
 * `kubectl/v1.30.0 (linux/amd64)` is recorded as `kubectl`.
 */

/** The longest manager name the real system accepts, in UTF-8 bytes. */
export const FIELD_MANAGER_MAX_LENGTH = 128;

/** The name a write with neither `fieldManager` nor User-Agent is recorded under. */
export const UNKNOWN_MANAGER = 'unknown';

const PRINTABLE = /^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u;

/**
 * The User-Agent up to its first `/`, without unprintable characters, cut to the length limit.
 * Empty when there is no User-Agent.
 */
export function managerFromUserAgent(userAgent: string | undefined): string {
  const product = (userAgent ?? '').split('/')[0] ?? '';
  let out = '';
  let bytes = 0;
  for (const ch of product) {
    if (!PRINTABLE.test(ch)) continue;
    const size = Buffer.byteLength(ch, 'utf8');
    if (bytes + size > FIELD_MANAGER_MAX_LENGTH) break;
    out += ch;
    bytes += size;
  }
  return out;
}

/**
 * The manager of a non-apply write: `fieldManager` when given, else the User-Agent's product
 * name, else `unknown`.
 */
export function managerForWrite(fieldManager: string | undefined, userAgent: string | undefined): string {
  if (fieldManager !== undefined && fieldManager !== '') return fieldManager;
  const inferred = managerFromUserAgent(userAgent);
  return inferred === '' ? UNKNOWN_MANAGER : inferred;
}
