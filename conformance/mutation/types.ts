/**
 * The model of the mutation check: a `Mutation` breaks one spec rule in the answers of a correct
 * server, so that running the suite through it proves some scenario notices. The proxy
 * (`proxy.ts`) applies it; `mutations.ts` holds the catalogue.
 */
import type { JsonObject } from '../types.js';

/** Header values by lower-case name; every value of a repeated header is kept (Warning may repeat). */
export type HeaderMap = Record<string, string[]>;

export interface ProxiedRequest {
  method: string;
  /** The path as sent, still percent-encoded, without the query. */
  path: string;
  query: URLSearchParams;
  headers: HeaderMap;
  /** Read only for exchanges a mutation matches; empty otherwise. */
  body: Buffer;
}

export interface ProxiedResponse {
  status: number;
  headers: HeaderMap;
  /** The body as on the wire (still compressed when content-encoding says so). */
  body: Buffer;
}

/** Which exchanges a mutation applies to; every given condition must hold. */
export interface ExchangeMatcher {
  method?: string | readonly string[];
  /** Tested against the request path (without the query). */
  path?: RegExp;
  query?: (query: URLSearchParams) => boolean;
  /** Each named request header must be present with a value matching the pattern. */
  headers?: Record<string, RegExp>;
  /** true: only watch requests; false: never watch requests. */
  watch?: boolean;
}

export interface ResponseContext {
  request: ProxiedRequest;
  /** Sends another request to the server, for answers a faulty server would have given instead. */
  upstream(request: ProxiedRequest): Promise<ProxiedResponse>;
}

export interface WatchEventDocument {
  type: string;
  object: JsonObject;
}

/** Rewrites one watch stream, event by event; one instance per stream, so it may keep state. */
export interface EventTransform {
  /** The events to send instead of this one, or undefined to send it unchanged. */
  next(event: WatchEventDocument): WatchEventDocument[] | undefined;
  /** Events still held back when the stream ends. */
  end?(): WatchEventDocument[];
}

export interface Mutation {
  /** Short kebab-case name, printed by the check. */
  id: string;
  /** What the faulty server does, in a sentence. */
  description: string;
  /** The rule it breaks, a reference into conformance/rules.yaml. */
  rule: string;
  /** Scenario id globs of which at least one must fail. */
  caughtBy: string[];
  match: ExchangeMatcher;
  /** Changes the request before it is forwarded; returns whether it changed anything. */
  request?(request: ProxiedRequest): boolean;
  /**
   * Replaces a whole (non-streaming) answer; undefined leaves it unchanged. Never called for a
   * watch answered with 200, which is a stream: see `events`.
   */
  response?(response: ProxiedResponse, context: ResponseContext): ProxiedResponse | undefined | Promise<ProxiedResponse | undefined>;
  /** Rewrites the events of a watch answered with 200. */
  events?(): EventTransform;
}
