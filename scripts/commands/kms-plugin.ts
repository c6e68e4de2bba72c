/**
 * `svckit kms-plugin`: a small KMS v2 plugin on a unix socket, for tests and for trying KMS
 * encryption out. The key file holds base64 32-byte keys, one a line; the first encrypts.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseCommandLine } from './parse-command-line.js';
import { startKmsPlugin } from '../../runtime/encryption/index.js';
import { UsageError } from './usage-error.js';

export const KMS_PLUGIN_USAGE = 'svckit kms-plugin --socket <path> --key-file <file>';

export const KMS_PLUGIN_HELP = `usage: ${KMS_PLUGIN_USAGE}

A KMS v2 plugin (gRPC v2.KeyManagementService) on a unix socket. The key file holds base64 keys of
32 bytes, one a line (make one with: head -c 32 /dev/urandom | base64); the first encrypts, every
one decrypts, so a plugin restarted with a new key first and the old one second reads both.
The first line on stdout is "listening on unix://<path>"; SIGTERM or SIGINT stops it.
Point an EncryptionConfiguration at it: kms: {apiVersion: v2, name: <name>, endpoint: unix://<path>}
`;

export async function kmsPluginCommand(args: string[]): Promise<number> {
  const { values } = parseCommandLine({ args, options: { socket: { type: 'string' }, 'key-file': { type: 'string' } }, strict: true });
  if (!values.socket || !values['key-file']) throw new UsageError('svckit kms-plugin needs --socket <path> and --key-file <file>');
  const keys = readKeys(values['key-file']);
  const plugin = await startKmsPlugin({ socket: resolve(values.socket), keys });
  process.stdout.write(`listening on ${plugin.endpoint} (key id ${plugin.keyId})\n`);
  await new Promise<void>((done) => {
    const stop = () => void plugin.close().then(done);
    process.once('SIGTERM', stop);
    process.once('SIGINT', stop);
  });
  return 0;
}

function readKeys(file: string): Buffer[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new UsageError(`--key-file ${file}: ${(e as Error).message}`);
  }
  const lines = text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '');
  if (lines.length === 0) throw new UsageError(`--key-file ${file} holds no key; expected base64 of 32 bytes per line`);
  return lines.map((line, i) => {
    const key = Buffer.from(line, 'base64');
    if (!/^[A-Za-z0-9+/]+={0,2}$/.test(line) || key.length !== 32) {
      throw new UsageError(`--key-file ${file}:${i + 1}: not base64 of 32 bytes (head -c 32 /dev/urandom | base64 makes one)`);
    }
    return key;
  });
}
