/**
 * The access-control flags of `svckit serve`: HTTPS (`--tls-cert-file`, `--tls-private-key-file`,
 * `--client-ca-file`, or `--secure` with generated files), authentication (`--token-auth-file`,
 * `--authentication-config`, `--anonymous-auth`) and authorization (`--authorization-mode`,
 * `--authorization-config`). Every mistake in a flag or a file it names is a UsageError naming the
 * file and the field.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { ParseArgsConfig } from 'node:util';
import { allKinds } from '../../generated/kinds.js';
import { writeClientConfigFile } from '../../runtime/client-node/index.js';
import { AuthConfigError, parseTokenFile, TokenFileError } from '../../runtime/auth/index.js';
import { DocumentValidator } from '../../runtime/documents/index.js';
import {
  accessControl,
  type AccessControlOptions,
  authenticates,
  AUTHORIZATION_MODES,
  type AuthorizationMode,
  prepareSecureServing,
  refusesAnonymous,
  type SecureServing,
  writeAdminClientConfig,
} from '../../reference/index.js';
import { UsageError } from './usage-error.js';

export const SERVE_ACCESS_USAGE = `             [--secure [--cert-dir <dir>]] [--tls-cert-file <pem> --tls-private-key-file <pem>] [--client-ca-file <pem>]
             [--token-auth-file <csv>] [--authentication-config <file>] [--anonymous-auth=false]
             [--authorization-mode RBAC,Webhook,AlwaysAllow,AlwaysDeny | --authorization-config <file>]
             [--allow-insecure-non-loopback] [--write-kubeconfig <file>]`;

/** The option fragment for parseArgs. */
export const SERVE_ACCESS_OPTIONS = {
  secure: { type: 'boolean', default: false },
  'cert-dir': { type: 'string' },
  'tls-cert-file': { type: 'string' },
  'tls-private-key-file': { type: 'string' },
  'client-ca-file': { type: 'string' },
  'token-auth-file': { type: 'string' },
  'authentication-config': { type: 'string' },
  'anonymous-auth': { type: 'string', default: 'true' },
  'authorization-mode': { type: 'string' },
  'authorization-config': { type: 'string' },
  'allow-insecure-non-loopback': { type: 'boolean', default: false },
  'write-kubeconfig': { type: 'string' },
} as const satisfies ParseArgsConfig['options'];

type Values = { [K in keyof typeof SERVE_ACCESS_OPTIONS]?: (typeof SERVE_ACCESS_OPTIONS)[K]['type'] extends 'boolean' ? boolean : string };

export interface ServeAccess {
  /** For `startReferenceServer({ access })`; undefined: plain HTTP, no access control (the default). */
  access: AccessControlOptions | undefined;
  /**
   * After listening: writes the client config files (`--secure`'s admin config, `--write-kubeconfig`)
   * and returns the lines that say how to connect.
   */
  announce(url: string): string[];
}

function readFlagFile(flag: string, path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (e) {
    throw new UsageError(`${flag} ${path}: ${(e as Error).message}`);
  }
}

/** A configuration file of `kind`, defaulted and validated with the generated validators; findings are usage errors. */
function configurationFile(flag: string, path: string, kind: string): Record<string, unknown> {
  const text = readFlagFile(flag, path);
  const results = new DocumentValidator(allKinds).validateText(path, text, { strict: true, strictKinds: true, keepDocuments: true });
  if (results.length !== 1) throw new UsageError(`${flag} ${path}: expected one ${kind} document, found ${results.length}`);
  const r = results[0]!;
  const errors = r.findings.filter((f) => f.severity === 'error');
  if (r.status !== 'valid' || errors.length > 0) {
    const lines = (errors.length > 0 ? errors : r.findings).map((f) => `${path}:${f.position.line}:${f.position.column}: ${f.message}`);
    throw new UsageError(`${flag}: the ${kind} is invalid:\n${lines.join('\n')}`);
  }
  if (r.kind !== kind) throw new UsageError(`${flag} ${path}: expected kind ${kind}, found ${r.kind ?? 'no kind'}`);
  return r.document as Record<string, unknown>;
}

function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || host === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(host);
}

/** The certificate directory of `--secure`: `--cert-dir`, else beside the SQLite file, else `.svckit`. */
function certDir(values: Values, store: string): string {
  if (values['cert-dir']) return values['cert-dir'];
  if (store.startsWith('sqlite:') && !store.includes(':memory:')) return join(dirname(store.slice('sqlite:'.length)), 'pki');
  return join('.svckit', 'pki');
}

/** Parsed flag values to the server's access options; `host` and `store` are the serve command's. */
export function serveAccess(values: Values, host: string, store: string): ServeAccess {
  const o: { -readonly [K in keyof AccessControlOptions]: AccessControlOptions[K] } = {};
  let secure: SecureServing | undefined;
  const certFile = values['tls-cert-file'];
  const keyFile = values['tls-private-key-file'];
  if (values.secure && (certFile || keyFile))
    throw new UsageError('--secure makes its own certificates; do not combine it with --tls-cert-file');
  if (Boolean(certFile) !== Boolean(keyFile)) throw new UsageError('--tls-cert-file and --tls-private-key-file go together');
  const kubeconfig = values['write-kubeconfig'];
  if (kubeconfig !== undefined && certFile)
    throw new UsageError(
      '--write-kubeconfig cannot name the CA of your own --tls-cert-file; use --secure (its CA and admin are written), or write the client config yourself',
    );
  if (values.secure) {
    secure = prepareSecureServing(certDir(values, store), host);
    o.tls = { ...secure.tls };
  } else if (certFile && keyFile) {
    o.tls = { cert: readFlagFile('--tls-cert-file', certFile), key: readFlagFile('--tls-private-key-file', keyFile) };
  }
  if (values['client-ca-file']) {
    if (!o.tls) throw new UsageError('--client-ca-file needs HTTPS (--tls-cert-file and --tls-private-key-file, or --secure)');
    o.tls = { ...o.tls, clientCa: readFlagFile('--client-ca-file', values['client-ca-file']) };
  }
  if (values['token-auth-file']) {
    const path = values['token-auth-file'];
    try {
      o.tokens = parseTokenFile(readFlagFile('--token-auth-file', path), path);
    } catch (e) {
      if (e instanceof TokenFileError) throw new UsageError(`--token-auth-file: ${e.message}`);
      throw e;
    }
  }
  if (values['authentication-config']) {
    o.authenticationConfig = configurationFile(
      '--authentication-config',
      values['authentication-config'],
      'AuthenticationConfiguration',
    ) as unknown as AccessControlOptions['authenticationConfig'];
  }
  const anonymous = values['anonymous-auth'] ?? 'true';
  if (anonymous !== 'true' && anonymous !== 'false') throw new UsageError(`--anonymous-auth must be true or false, not ${anonymous}`);
  o.anonymous = anonymous === 'true';
  if (values['authorization-config'] && values['authorization-mode'])
    throw new UsageError('--authorization-mode and --authorization-config are exclusive (as upstream)');
  if (values['authorization-config']) {
    o.authorizationConfig = configurationFile(
      '--authorization-config',
      values['authorization-config'],
      'AuthorizationConfiguration',
    ) as unknown as AccessControlOptions['authorizationConfig'];
  } else if (values['authorization-mode']) {
    o.authorizationModes = values['authorization-mode'].split(',').map((m) => {
      const mode = m.trim();
      if (!(AUTHORIZATION_MODES as readonly string[]).includes(mode))
        throw new UsageError(`--authorization-mode: unknown mode ${JSON.stringify(mode)} (${AUTHORIZATION_MODES.join(', ')})`);
      return mode as AuthorizationMode;
    });
  } else if (values.secure) {
    // --secure is the "like a real cluster" switch: permissions come from RBAC.
    o.authorizationModes = ['RBAC'];
  }
  const configured = Object.keys(o).some((k) => k !== 'anonymous') || !o.anonymous;
  if (!isLoopback(host) && !refusesAnonymous(o) && !values['allow-insecure-non-loopback']) {
    const why = authenticates(o)
      ? 'anonymous requests are allowed everything (authorization AlwaysAllow)'
      : 'no authentication or authorization is configured';
    throw new UsageError(
      `--host ${host} is not a loopback address and ${why}: anyone who can reach it could do anything, bind itself cluster-admin included. Use --secure (RBAC), or --authorization-mode RBAC (or a webhook in --authorization-config), or --anonymous-auth=false with authentication configured; or --allow-insecure-non-loopback to serve it anyway`,
    );
  }
  if (configured) {
    // Builds the chains now, so that a configuration problem (a CEL expression, a webhook's
    // client config file) is a usage error before anything listens.
    try {
      accessControl(o, () => {
        throw new Error('not started');
      });
    } catch (e) {
      if (e instanceof AuthConfigError) {
        const flag = values['authorization-config'] && /^authorizers/.test(e.path) ? '--authorization-config' : '--authentication-config';
        throw new UsageError(`${flag}: ${e.message}`);
      }
      throw new UsageError((e as Error).message);
    }
  }
  return {
    access: configured ? o : undefined,
    announce(url) {
      // A wildcard address is not a name a client can verify or reach: the client config names loopback.
      const reachable = url.replace(/\/\/(0\.0\.0\.0|\[::\])(?=:)/, '//127.0.0.1');
      const lines: string[] = [];
      if (secure) {
        writeAdminClientConfig(secure, reachable);
        lines.push(`client config (admin, system:masters): ${secure.configFile}`);
      }
      if (kubeconfig !== undefined) {
        if (secure) writeAdminClientConfig(secure, reachable, kubeconfig);
        else writeClientConfigFile(kubeconfig, { server: reachable });
        const who = secure ? 'admin, system:masters' : configured ? 'no credentials: requests are anonymous' : 'no credentials needed';
        lines.push(
          `client config (${who}): ${kubeconfig}`,
          `connect: SVCCONFIG=${kubeconfig} for loadClientConfig(), KUBECONFIG=${kubeconfig} for kubectl`,
        );
      } else if (!secure) {
        lines.push(
          `connect: createClient({ server: '${reachable}' }), or serve with --write-kubeconfig <file> and set SVCCONFIG=<file> for loadClientConfig(), KUBECONFIG=<file> for kubectl`,
        );
      } else {
        lines.push(`connect: SVCCONFIG=${secure.configFile} for loadClientConfig(), KUBECONFIG=${secure.configFile} for kubectl`);
      }
      return lines;
    },
  };
}
