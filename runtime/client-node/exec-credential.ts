import type { CredentialSource, Credentials } from '../client/index.js';

/** The environment variable that carries the ExecCredential request to a plugin of the spec's versions (the real system's `KUBERNETES_EXEC_INFO`, with the product word written `svc`). */
export const EXEC_INFO_ENV = 'SVC_EXEC_INFO';
/** The same for a plugin of the real system's versions (`client.authentication.k8s.io/*`: aws, gke-gcloud-auth-plugin, kubelogin). */
export const KUBERNETES_EXEC_INFO_ENV = 'KUBERNETES_EXEC_INFO';

/** The spec's versions, then the real system's: a kubeconfig of a real cluster names the latter. */
export const EXEC_API_VERSIONS = [
  'client.authentication.svc.io/v1',
  'client.authentication.svc.io/v1beta1',
  'client.authentication.k8s.io/v1',
  'client.authentication.k8s.io/v1beta1',
] as const;

/** True for the real system's ExecCredential versions. */
export function isKubernetesExecVersion(apiVersion: string): boolean {
  return apiVersion.startsWith('client.authentication.k8s.io/');
}

/** The variable a plugin of `apiVersion` reads its request from. */
export function execInfoEnv(apiVersion: string): string {
  return isKubernetesExecVersion(apiVersion) ? KUBERNETES_EXEC_INFO_ENV : EXEC_INFO_ENV;
}

/** A client config file's `users[].user.exec` section. */
export interface ExecConfig {
  apiVersion: (typeof EXEC_API_VERSIONS)[number];
  /** Program to run; a relative path with a slash is resolved against the config file's folder. */
  command: string;
  args?: string[];
  /** Added to the plugin's environment. */
  env?: { name: string; value: string }[];
  /** Shown when the command is not found. */
  installHint?: string;
  /** Pass the cluster's connection details in `spec.cluster`. */
  provideClusterInfo?: boolean;
  /** Whether the plugin may use standard input; required in v1, default IfAvailable in v1beta1. */
  interactiveMode?: 'Never' | 'IfAvailable' | 'Always';
}

/** `spec.cluster` of the request: the cluster entry, kebab-case as in the client config file. */
export interface ExecClusterInfo {
  server: string;
  'tls-server-name'?: string;
  'insecure-skip-tls-verify'?: boolean;
  /** Base64 of the PEM CA bundle. */
  'certificate-authority-data'?: string;
  'proxy-url'?: string;
  'disable-compression'?: boolean;
  /** The cluster entry's `client.authentication.svc.io/exec` extension (`client.authentication.k8s.io/exec` for the real system's versions). */
  config?: unknown;
}

export interface ExecCredentialOptions {
  /** Sent as `spec.cluster` when the config's provideClusterInfo is true. */
  cluster?: ExecClusterInfo;
  /** Folder relative commands are resolved against (the client config file's). */
  baseDir?: string;
  /** Whether standard input is a terminal; default `process.stdin.isTTY`. */
  stdinIsTerminal?: boolean;
  /** The plugin's standard error: passed through (default, as client-go) or dropped. */
  stderr?: 'inherit' | 'ignore';
  now?: () => number;
}

/**
 * Credentials from an exec plugin: the command runs with the ExecCredential request in
 * `SVC_EXEC_INFO` (`KUBERNETES_EXEC_INFO` for `client.authentication.k8s.io` versions), and its standard output is an ExecCredential whose status holds a token or a
 * client certificate and key. The result is cached until `expirationTimestamp` and the plugin is
 * run again after a 401. Concurrent requests share one run. What the plugin prints never appears
 * in an error (it holds secrets). Node only.
 */
export function execCredential(config: ExecConfig, options: ExecCredentialOptions = {}): CredentialSource {
  return new ExecPlugin(config, options);
}

class ExecPlugin implements CredentialSource {
  #cached: { credentials: Credentials; expiresAt: number | undefined } | undefined;
  #pending: Promise<Credentials> | undefined;

  constructor(
    private readonly config: ExecConfig,
    private readonly options: ExecCredentialOptions,
  ) {
    if (!EXEC_API_VERSIONS.includes(config.apiVersion)) {
      throw new Error(
        `exec plugin ${JSON.stringify(config.command)}: apiVersion ${JSON.stringify(config.apiVersion)} is not supported; expected one of ${EXEC_API_VERSIONS.join(', ')}`,
      );
    }
    if (config.apiVersion.endsWith('/v1') && config.interactiveMode === undefined) {
      throw new Error(
        `exec plugin ${JSON.stringify(config.command)}: interactiveMode must be set for ${config.apiVersion} (Never, IfAvailable or Always)`,
      );
    }
  }

  credentials(): Promise<Credentials> {
    const now = (this.options.now ?? Date.now)();
    const cached = this.#cached;
    if (cached && (cached.expiresAt === undefined || now < cached.expiresAt)) return Promise.resolve(cached.credentials);
    this.#pending ??= this.run().finally(() => (this.#pending = undefined));
    return this.#pending;
  }

  async refresh(): Promise<boolean> {
    this.#cached = undefined;
    return true;
  }

  private async run(): Promise<Credentials> {
    const { spawn } = await import('node:child_process');
    const { isAbsolute, resolve } = await import('node:path');
    const { config, options } = this;
    const name = JSON.stringify(config.command);
    const mode = config.interactiveMode ?? 'IfAvailable';
    const terminal = options.stdinIsTerminal ?? process.stdin.isTTY === true;
    if (mode === 'Always' && !terminal)
      throw new Error(`exec plugin ${name} needs an interactive terminal (interactiveMode Always), but standard input is not one`);
    const interactive = mode !== 'Never' && terminal;

    const request = {
      apiVersion: config.apiVersion,
      kind: 'ExecCredential',
      spec: { interactive, ...(config.provideClusterInfo && options.cluster ? { cluster: options.cluster } : {}) },
    };
    const env: Record<string, string | undefined> = { ...process.env };
    for (const e of config.env ?? []) env[e.name] = e.value;
    env[execInfoEnv(config.apiVersion)] = JSON.stringify(request);
    const command =
      options.baseDir && !isAbsolute(config.command) && /[\\/]/.test(config.command)
        ? resolve(options.baseDir, config.command)
        : config.command;

    const stdout = await new Promise<string>((done, fail) => {
      const child = spawn(command, config.args ?? [], {
        env,
        stdio: [interactive ? 'inherit' : 'ignore', 'pipe', options.stderr ?? 'inherit'],
      });
      const chunks: Buffer[] = [];
      child.stdout!.on('data', (c: Buffer) => chunks.push(c));
      child.on('error', (e: NodeJS.ErrnoException) => {
        const hint = config.installHint ? `\n${config.installHint}` : '';
        fail(new Error(`exec plugin ${name} could not be started: ${e.code ?? e.message}${hint}`));
      });
      child.on('close', (code, signal) => {
        if (code === 0) done(Buffer.concat(chunks).toString('utf8'));
        else fail(new Error(`exec plugin ${name} failed: ${signal ? `killed by ${signal}` : `exit code ${code}`}`));
      });
    });
    const credentials = this.parse(stdout, name);
    return credentials;
  }

  /** Reads the plugin's answer; errors describe the shape, never the content. */
  private parse(stdout: string, name: string): Credentials {
    let answer: unknown;
    try {
      answer = JSON.parse(stdout);
    } catch {
      throw new Error(`exec plugin ${name} did not print a JSON ExecCredential on standard output`);
    }
    const a = (answer ?? {}) as { apiVersion?: unknown; kind?: unknown; status?: Record<string, unknown> };
    if (a.kind !== 'ExecCredential') throw new Error(`exec plugin ${name} printed kind ${JSON.stringify(a.kind)}; expected ExecCredential`);
    if (a.apiVersion !== this.config.apiVersion)
      throw new Error(
        `exec plugin ${name} answered in ${JSON.stringify(a.apiVersion)}; expected ${this.config.apiVersion}, the version it was asked in`,
      );
    const s = a.status;
    if (!s || typeof s !== 'object') throw new Error(`exec plugin ${name} returned no status`);
    const text = (v: unknown) => (typeof v === 'string' && v !== '' ? v : undefined);
    const token = text(s.token);
    const cert = text(s.clientCertificateData);
    const key = text(s.clientKeyData);
    if ((cert === undefined) !== (key === undefined))
      throw new Error(
        `exec plugin ${name} returned ${cert ? 'clientCertificateData without clientKeyData' : 'clientKeyData without clientCertificateData'}`,
      );
    if (!token && !cert) throw new Error(`exec plugin ${name} returned neither a token nor a client certificate and key`);
    let expiresAt: number | undefined;
    if (s.expirationTimestamp !== undefined) {
      expiresAt = typeof s.expirationTimestamp === 'string' ? Date.parse(s.expirationTimestamp) : Number.NaN;
      if (Number.isNaN(expiresAt)) throw new Error(`exec plugin ${name} returned an expirationTimestamp that is not an RFC 3339 time`);
    }
    const credentials: Credentials = { ...(token ? { token } : {}), ...(cert && key ? { clientCertificate: { cert, key } } : {}) };
    this.#cached = { credentials, expiresAt };
    return credentials;
  }
}
