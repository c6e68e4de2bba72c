/**
 * Loading an EncryptionConfiguration (`--encryption-provider-config`): the file is checked against
 * its kind as `svckit validate` checks it (structure, key sizes, overlapping wildcards; errors name
 * file:line:column and the field), then what the schema cannot see (duplicate names, KMS v1,
 * an endpoint that is not a unix socket), then every KMS plugin is
 * reached. The result answers which providers hold each resource.
 */
import { readFileSync } from 'node:fs';
import { parseDuration } from '../api/index.js';
import { DocumentValidator } from '../documents/index.js';
import type { KindRegistration } from '../schema/index.js';
import { aesCbc, aesGcm } from './aes.js';
import type { KmsV2Transformer } from './kms-v2.js';
import { secretbox } from './secretbox.js';
import { type KeyTransformer, ProviderList, identity } from './transformer.js';

/** A configuration file that cannot be used: the CLI reports it as a usage error. */
export class EncryptionConfigError extends Error {
  override readonly name = 'EncryptionConfigError';
}

export function isEncryptionConfigError(e: unknown): e is EncryptionConfigError {
  return e instanceof EncryptionConfigError;
}

/** The input shape: structurally the generated `EncryptionConfiguration`. */
interface Config {
  resources: { resources: string[]; providers: Provider[] }[];
}
interface Provider {
  aesgcm?: { keys: KeyConfig[] };
  aescbc?: { keys: KeyConfig[] };
  secretbox?: { keys: KeyConfig[] };
  identity?: Record<string, never>;
  kms?: { apiVersion?: string; name: string; endpoint: string; timeout?: string };
}
interface KeyConfig {
  name: string;
  secret: string;
}

const API_VERSION = 'apiserver.config.svc.io/v1';
const KIND = 'EncryptionConfiguration';
const KMS_TIMEOUT_MS = 3000;

/** Which providers hold each resource, from one configuration file. */
export class EncryptionAtRest {
  /** Resources no entry names: written plain, and encrypted data is refused, as upstream. */
  static readonly unconfigured = new ProviderList([identity]);

  private constructor(
    private readonly entries: readonly { resources: readonly string[]; providers: ProviderList }[],
    private readonly plugins: readonly KmsV2Transformer[],
  ) {}

  /** Reads, checks and loads `file`; `kinds` must include apiserver.config.svc.io/v1's. */
  static async load(file: string, kinds: readonly KindRegistration[]): Promise<EncryptionAtRest> {
    const config = readChecked(file, kinds);
    const plugins: KmsV2Transformer[] = [];
    try {
      const entries = [];
      for (const [i, entry] of config.resources.entries()) {
        const keys: KeyTransformer[] = [];
        for (const [j, p] of entry.providers.entries()) {
          const at = `resources[${i}].providers[${j}]`;
          if (p.kms) {
            const plugin = await connect(file, `${at}.kms`, p.kms);
            plugins.push(plugin);
            keys.push(plugin);
          } else if (p.identity) keys.push(identity);
          else keys.push(...keyTransformers(p));
        }
        entries.push({ resources: entry.resources, providers: new ProviderList(keys) });
      }
      return new EncryptionAtRest(entries, plugins);
    } catch (e) {
      for (const plugin of plugins) plugin.close();
      throw e;
    }
  }

  /** The providers of a resource (`group` empty for the core group): the first entry naming it, as upstream. */
  providersFor(group: string, resource: string): ProviderList {
    return this.entries.find((e) => e.resources.some((name) => matches(name, group, resource)))?.providers ?? EncryptionAtRest.unconfigured;
  }

  /** True when an entry names the resource (the rewrite command visits only those). */
  covers(group: string, resource: string): boolean {
    return this.providersFor(group, resource) !== EncryptionAtRest.unconfigured;
  }

  /** Closes the connections to KMS plugins. */
  close(): void {
    for (const plugin of this.plugins) plugin.close();
  }
}

/** `secrets`, `<resource>.<group>`, `*.<group>`, `*.` (core) or `*.*`. */
function matches(name: string, group: string, resource: string): boolean {
  if (name === '*.*') return true;
  const dot = name.indexOf('.');
  const [res, grp] = dot < 0 ? [name, ''] : [name.slice(0, dot), name.slice(dot + 1)];
  return grp === group && (res === '*' || res === resource);
}

function keyTransformers(p: Provider): KeyTransformer[] {
  if (p.aesgcm) return p.aesgcm.keys.map((k) => aesGcm(k.name, Buffer.from(k.secret, 'base64')));
  if (p.aescbc) return p.aescbc.keys.map((k) => aesCbc(k.name, Buffer.from(k.secret, 'base64')));
  return p.secretbox!.keys.map((k) => secretbox(k.name, Buffer.from(k.secret, 'base64')));
}

async function connect(file: string, at: string, kms: NonNullable<Provider['kms']>): Promise<KmsV2Transformer> {
  const timeoutMs = kms.timeout ? parseDuration(kms.timeout).milliseconds : KMS_TIMEOUT_MS;
  try {
    // gRPC is loaded only for a configuration that names a plugin.
    const { kmsV2 } = await import('./kms-v2.js');
    return await kmsV2({ name: kms.name, endpoint: kms.endpoint, timeoutMs });
  } catch (e) {
    throw new EncryptionConfigError(`${file}: ${at}: KMS plugin ${kms.name} at ${kms.endpoint}: ${(e as Error).message}`);
  }
}

function readChecked(file: string, kinds: readonly KindRegistration[]): Config {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new EncryptionConfigError(`cannot read the encryption provider configuration ${file}: ${(e as Error).message}`);
  }
  const results = new DocumentValidator(kinds).validateText(file, text, { keepDocuments: true, strict: true, strictKinds: true });
  if (results.length !== 1) {
    throw new EncryptionConfigError(`${file}: expected one ${KIND} document, found ${results.length}`);
  }
  const [r] = results as [(typeof results)[number]];
  const errors = r.findings.filter((f) => f.severity === 'error');
  if (r.status === 'valid' && (r.apiVersion !== API_VERSION || r.kind !== KIND)) {
    throw new EncryptionConfigError(`${file}: expected apiVersion ${API_VERSION} and kind ${KIND}, not ${r.apiVersion} ${r.kind}`);
  }
  if (r.status !== 'valid' || errors.length > 0) {
    // The message names the field already; a key's secret is never printed, even a malformed one.
    const text = secretsIn(r.document).reduce(
      (all: string, secret) => all.replaceAll(JSON.stringify(secret), '"REDACTED"'),
      errors.map((f) => `${file}:${f.position.line}:${f.position.column}: ${f.message}`).join('\n'),
    );
    throw new EncryptionConfigError(`invalid encryption provider configuration:\n${text}`);
  }
  const config = r.document as Config;
  const problems = semanticProblems(config);
  if (problems.length > 0) {
    throw new EncryptionConfigError(`invalid encryption provider configuration:\n${problems.map((p) => `${file}: ${p}`).join('\n')}`);
  }
  return config;
}

/** Every `secret` string of the document's provider keys, whatever shape the rest has. */
function secretsIn(document: unknown): string[] {
  const out: string[] = [];
  const walk = (v: unknown): void => {
    if (Array.isArray(v)) v.forEach(walk);
    else if (v !== null && typeof v === 'object') {
      for (const [k, x] of Object.entries(v)) {
        if (k === 'secret' && typeof x === 'string' && x !== '') out.push(x);
        else walk(x);
      }
    }
  };
  walk(document);
  return out;
}

/** What the schema cannot check: unique names, KMS v2 over a unix socket, a timeout that parses. */
function semanticProblems(config: Config): string[] {
  const out: string[] = [];
  const kmsNames = new Map<string, string>();
  for (const [i, entry] of config.resources.entries()) {
    for (const [j, p] of entry.providers.entries()) {
      const at = `resources[${i}].providers[${j}]`;
      for (const type of ['aesgcm', 'aescbc', 'secretbox'] as const) {
        const seen = new Set<string>();
        for (const [k, key] of (p[type]?.keys ?? []).entries()) {
          if (seen.has(key.name)) out.push(`${at}.${type}.keys[${k}].name: Duplicate value: ${JSON.stringify(key.name)}`);
          seen.add(key.name);
        }
      }
      if (p.kms) {
        const kms = p.kms;
        if (kms.apiVersion !== 'v2') {
          out.push(
            `${at}.kms.apiVersion: Invalid value: ${JSON.stringify(kms.apiVersion ?? 'v1')}: KMS v1 is deprecated and not served; use apiVersion: v2`,
          );
        }
        const before = kmsNames.get(kms.name);
        if (before !== undefined) out.push(`${at}.kms.name: Duplicate value: ${JSON.stringify(kms.name)} (also at ${before})`);
        kmsNames.set(kms.name, `${at}.kms.name`);
        if (!/^unix:\/\/\/./.test(kms.endpoint)) {
          out.push(`${at}.kms.endpoint: Invalid value: ${JSON.stringify(kms.endpoint)}: must be a unix socket, unix:///path/to/socket`);
        }
        if (kms.timeout !== undefined) {
          try {
            if (parseDuration(kms.timeout).milliseconds <= 0) throw new Error('must be positive');
          } catch (e) {
            out.push(`${at}.kms.timeout: Invalid value: ${JSON.stringify(kms.timeout)}: ${(e as Error).message}`);
          }
        }
      }
    }
  }
  return out;
}
