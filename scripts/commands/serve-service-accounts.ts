/**
 * The service-account token flags of `svckit serve`, as kube-apiserver names them:
 * `--service-account-issuer` (repeatable; the first issues), `--service-account-signing-key-file`,
 * `--service-account-key-file` (repeatable), `--api-audiences`,
 * `--service-account-max-token-expiration` and `--service-account-jwks-uri`. Every mistake, and
 * every key file that holds no usable key, is a UsageError naming the flag.
 */
import { readFileSync } from 'node:fs';
import type { ParseArgsConfig } from 'node:util';
import { parseDuration } from '../../runtime/api/index.js';
import { publicKeysFromPem, ServiceAccountKeyError, signingKeyFromPem } from '../../runtime/auth/index.js';
import type { ServiceAccountOptions } from '../../reference/index.js';
import { UsageError } from './usage-error.js';

export const SERVICE_ACCOUNT_USAGE = `[--service-account-issuer <url> ...] [--service-account-signing-key-file <pem>]
             [--service-account-key-file <pem> ...] [--api-audiences <a,b>] [--service-account-max-token-expiration <duration>]
             [--service-account-jwks-uri <https url>]`;

export const SERVICE_ACCOUNT_OPTIONS = {
  'service-account-issuer': { type: 'string', multiple: true },
  'service-account-signing-key-file': { type: 'string' },
  'service-account-key-file': { type: 'string', multiple: true },
  'api-audiences': { type: 'string', multiple: true },
  'service-account-max-token-expiration': { type: 'string' },
  'service-account-jwks-uri': { type: 'string' },
} as const satisfies ParseArgsConfig['options'];

interface Values {
  'service-account-issuer'?: string[];
  'service-account-signing-key-file'?: string;
  'service-account-key-file'?: string[];
  'api-audiences'?: string[];
  'service-account-max-token-expiration'?: string;
  'service-account-jwks-uri'?: string;
}

/** Upstream's bounds of `--service-account-max-token-expiration`. */
const MAX_EXPIRATION_BOUNDS = { low: 3600, high: 2 ** 32 };

function readKeyFile(flag: string, path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (e) {
    throw new UsageError(`${flag} ${path}: ${(e as Error).message}`);
  }
}

function keyUsage<T>(flag: string, read: () => T): T {
  try {
    return read();
  } catch (e) {
    if (e instanceof ServiceAccountKeyError) throw new UsageError(`${flag} ${e.message}`);
    throw e;
  }
}

/** Parsed flag values to the reference server's `serviceAccounts` option. */
export function serviceAccountsFromFlags(values: Values): { serviceAccounts?: ServiceAccountOptions } {
  const o: ServiceAccountOptions & { -readonly [K in keyof ServiceAccountOptions]: ServiceAccountOptions[K] } = {};
  const issuers = values['service-account-issuer'];
  if (issuers) {
    const seen = new Set<string>();
    for (const issuer of issuers) {
      if (issuer === '') throw new UsageError('--service-account-issuer may not be empty');
      if (issuer.includes(':') && !URL.canParse(issuer))
        throw new UsageError(`--service-account-issuer ${JSON.stringify(issuer)} contained a ':' but was not a valid URL`);
      if (seen.has(issuer)) throw new UsageError(`--service-account-issuer ${JSON.stringify(issuer)} is already specified`);
      seen.add(issuer);
    }
    o.issuers = issuers;
  }
  const signing = values['service-account-signing-key-file'];
  if (signing) {
    const flag = '--service-account-signing-key-file';
    o.signingKey = keyUsage(flag, () => signingKeyFromPem(readKeyFile(flag, signing), signing));
  }
  const keyFiles = values['service-account-key-file'];
  if (keyFiles) {
    const flag = '--service-account-key-file';
    o.verificationKeys = keyFiles.flatMap((file) => keyUsage(flag, () => publicKeysFromPem(readKeyFile(flag, file), file)));
  }
  const audiences = values['api-audiences']
    ?.flatMap((a) => a.split(','))
    .map((a) => a.trim())
    .filter((a) => a !== '');
  if (audiences && audiences.length > 0) o.apiAudiences = audiences;
  const max = values['service-account-max-token-expiration'];
  if (max !== undefined) {
    let seconds: number;
    try {
      seconds = parseDuration(max).milliseconds / 1000;
    } catch (e) {
      throw new UsageError(`--service-account-max-token-expiration ${max}: ${(e as Error).message} (a duration such as 24h)`);
    }
    if (seconds !== 0 && (seconds < MAX_EXPIRATION_BOUNDS.low || seconds > MAX_EXPIRATION_BOUNDS.high))
      throw new UsageError('--service-account-max-token-expiration must be between 1 hour and 2^32 seconds');
    if (seconds !== 0) o.maxExpirationSeconds = Math.floor(seconds);
  }
  const jwksUri = values['service-account-jwks-uri'];
  if (jwksUri !== undefined) {
    if (!URL.canParse(jwksUri) || new URL(jwksUri).protocol !== 'https:')
      throw new UsageError(`--service-account-jwks-uri requires an https URL, not ${JSON.stringify(jwksUri)}`);
    o.jwksUri = jwksUri;
  }
  return Object.keys(o).length > 0 ? { serviceAccounts: o } : {};
}
