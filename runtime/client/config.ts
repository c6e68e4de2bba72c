import type { Codec } from './codec.js';
import type { CredentialSource } from './credentials.js';

/** The part of a response body stream the transport reads (the platform's and undici's both fit). */
export interface ByteStream {
  getReader(): { read(): Promise<{ done: boolean; value?: Uint8Array }>; cancel(): Promise<void> };
}

/** The part of a fetch Response the transport reads (the platform's and undici's both fit). */
export interface FetchResponse {
  readonly status: number;
  readonly headers: { get(name: string): string | null };
  readonly body: ByteStream | null;
  text(): Promise<string>;
  arrayBuffer(): Promise<ArrayBuffer>;
}

export interface FetchInit {
  method: string;
  headers: Record<string, string>;
  body?: string | Uint8Array<ArrayBuffer>;
  signal?: AbortSignal;
}

export type FetchLike = (url: string, init: FetchInit) => Promise<FetchResponse>;

/** TLS settings of a connection: the client config file's cluster fields. */
export interface TlsOptions {
  /** PEM certificate authorities; absent means the system roots. */
  ca?: string;
  /** Name for SNI and the certificate check (`tls-server-name`); default the URL's host. */
  serverName?: string;
  /** Skip the server certificate check (`insecure-skip-tls-verify`): insecure, for tests. */
  insecureSkipTlsVerify?: boolean;
}

/**
 * Makes a fetch that carries TLS settings, a client certificate or a proxy: what the platform's
 * fetch cannot be told. `svckit/client/node` supplies one (`nodeConnector`), and its config
 * loaders set it; in a browser the page's own TLS applies and none is needed.
 */
export type Connector = (
  tls: TlsOptions,
  proxyUrl: string | undefined,
  certificate: { cert: string; key: string } | undefined,
) => Promise<{ fetch: FetchLike; close(): Promise<void> }>;

/** Where a warning came from, for a handler that wants to say so. */
export interface WarningContext {
  method: string;
  path: string;
}

/** Receives every item of every `Warning` response header. */
export type WarningHandler = (warning: string, context: WarningContext) => void;

export interface RetryOptions {
  /** Retries of a 429 or 504 that carries Retry-After; default 5. */
  maxRetries?: number;
  /** Upper bound of one wait; default 30 s. */
  maxDelayMs?: number;
}

/** Everything a client needs to reach a server: address, credentials, TLS and behaviour. */
export interface ClientConfig {
  /** Base URL of the server (`https://host:port`, optionally with a path prefix). */
  server: string;
  /** The namespace namespaced accessors use when called without one; default `default`. */
  namespace?: string;
  /**
   * The suffix the server's groups end in where the spec writes `.svc.io`: `k8s.io` for a real
   * cluster (`rbac.authorization.k8s.io`) or a server started with `--group-suffix k8s.io`;
   * default `svc.io`. Objects keep the spec's apiVersions in the program (what the generated types
   * say); the client renames them at the wire.
   */
  groupSuffix?: string;
  credentials?: CredentialSource;
  /** CA bundle, tls-server-name, insecure-skip-tls-verify (needs a connector). */
  tls?: TlsOptions;
  /** `http://proxy:3128`: requests go through this proxy (needs a connector). */
  proxyUrl?: string;
  /**
   * Opens the client's connections (`nodeConnector` in Node, which the config loaders set): needed
   * for `tls`, `proxyUrl` or a client certificate; when set it carries every request.
   */
  connector?: Connector;
  /**
   * Ask for uncompressed responses. Default: true for a loopback server (`localhost`,
   * 127.0.0.0/8, [::1]), where gzip costs CPU on both ends and saves no bandwidth, false (gzip
   * asked and decoded) for any other; false asks for gzip on loopback too (a tunnel to a remote).
   */
  disableCompression?: boolean;
  /** Body encoding; default JSON. A codec the server does not accept (406) falls back to JSON. */
  codec?: Codec;
  userAgent?: string;
  /** Default: each distinct warning once, to console.warn. */
  onWarning?: WarningHandler;
  retry?: RetryOptions;
  /** A fetch implementation to use instead of the platform's (tests, instrumentation). */
  fetch?: FetchLike;
}
