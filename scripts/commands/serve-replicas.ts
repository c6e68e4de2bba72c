/**
 * `svckit serve` flags for several replicas on one store. Continue tokens must verify on every
 * replica: by default they are signed with a key kept in the store (the first replica creates it);
 * `--continue-token-key-file` gives the key instead, as an operator who keeps secrets outside the
 * store (or rotates them) would.
 */
import { readFileSync } from 'node:fs';
import type { ReferenceServerOptions } from '../../reference/index.js';
import { UsageError } from './usage-error.js';

export const REPLICA_USAGE = '[--continue-token-key-file <file>]';

/** The parseArgs options of these flags. */
export const replicaOptions = {
  'continue-token-key-file': { type: 'string' },
} as const;

/** The shortest key accepted: HMAC-SHA256 is as strong as its key up to 32 bytes. */
const MIN_KEY_BYTES = 32;

export function replicaServerOptions(values: { 'continue-token-key-file'?: string }): Pick<ReferenceServerOptions, 'continueSecret'> {
  const file = values['continue-token-key-file'];
  if (file === undefined) return {};
  let key: Buffer;
  try {
    key = readFileSync(file);
  } catch (e) {
    throw new UsageError(
      `--continue-token-key-file ${file}: ${(e as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (e as Error).message}`,
    );
  }
  // A trailing newline from `openssl rand -base64 48 > key` is not part of the key.
  const trimmed = Buffer.from(key.toString('latin1').replace(/\r?\n$/, ''), 'latin1');
  if (trimmed.length < MIN_KEY_BYTES) {
    throw new UsageError(
      `--continue-token-key-file ${file}: the key has ${trimmed.length} bytes; give at least ${MIN_KEY_BYTES} (for example: openssl rand -base64 48 > ${file})`,
    );
  }
  return { continueSecret: trimmed };
}
