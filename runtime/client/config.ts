import type { Codec } from './codec.js';
import type { CredentialSource } from './credentials.js';
import type { TlsOptions } from './node-http.js';
import type { FetchLike } from './transport.js';

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
  credentials?: CredentialSource;
  /** CA bundle, tls-server-name, insecure-skip-tls-verify (Node). */
  tls?: TlsOptions;
  /** `http://proxy:3128`: requests go through this proxy (Node). */
  proxyUrl?: string;
  /** Ask for uncompressed responses (gzip is requested and decoded by default). */
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
