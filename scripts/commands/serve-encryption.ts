/** `svckit serve --encryption-provider-config <file>`: the flag, and the file loaded for the server. */
import { allKinds } from '../../generated/kinds.js';
import { EncryptionAtRest, isEncryptionConfigError } from '../../runtime/encryption/index.js';
import type { ReferenceServerOptions } from '../../reference/index.js';
import { UsageError } from './usage-error.js';

export const ENCRYPTION_SERVE_USAGE = '[--encryption-provider-config <file>]';

/** The parseArgs options of the flag. */
export const encryptionServeOptions = { 'encryption-provider-config': { type: 'string' } } as const;

/** The server's encryption from the parsed flag; a bad file is the user's mistake (exit 2, no stack). */
export async function encryptionFromFlags(values: {
  'encryption-provider-config'?: string;
}): Promise<Pick<ReferenceServerOptions, 'encryption'>> {
  const file = values['encryption-provider-config'];
  return file === undefined ? {} : { encryption: await loadEncryptionConfig(file) };
}

export async function loadEncryptionConfig(file: string): Promise<EncryptionAtRest> {
  try {
    return await EncryptionAtRest.load(file, allKinds);
  } catch (e) {
    if (isEncryptionConfigError(e)) throw new UsageError(`--encryption-provider-config: ${e.message}`);
    throw e;
  }
}
