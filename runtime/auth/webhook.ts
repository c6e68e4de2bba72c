/**
 * The webhook authorizer: asks a remote service by POSTing a SubjectAccessReview, as configured by
 * one Webhook entry of an AuthorizationConfiguration.
 *
 * Order per request, as in the real system: match conditions first (all must be true, else this
 * authorizer has no opinion and the webhook is not called; an evaluation error applies the
 * failure policy), then the decision cache (an allow is reused for authorizedTTL, anything else
 * for unauthorizedTTL), then the call. Calls that fail with a connection error, a 5xx or a 429
 * are retried with exponential backoff; a call that times out is not retried (the client is
 * waiting). A call that still fails, or answers something that is not a SubjectAccessReview,
 * gets the failure policy's decision (Deny or NoOpinion); failures are never cached.
 */
import type { CompiledExpressionProgram } from '../cel/index.js';
import type { RequestAttributes } from './attributes.js';
import type { AuthorizationRequest, Authorizer, AuthorizerResult } from './authorize.js';
import { type HttpsJsonResponse, HttpsTransportError, httpsJson } from './https-client.js';
import {
  parseSubjectAccessReviewStatus,
  type SubjectAccessReviewStatus,
  subjectAccessReview,
  type SubjectAccessReviewSpec,
  subjectAccessReviewSpec,
  type SubjectAccessReviewVersion,
} from './sar.js';
import { TtlCache } from './ttl-cache.js';

export type FailurePolicy = 'Deny' | 'NoOpinion';

/** Where the webhook is and how to trust it (from a client config file, see authorizers.ts). */
export interface WebhookConnection {
  readonly url: string;
  /** PEM CA bundle for the webhook's certificate; system roots when unset. */
  readonly ca?: string;
  /** Client certificate and key (PEM) when the webhook wants mutual TLS. */
  readonly cert?: string;
  readonly key?: string;
  /** A bearer token for the webhook, when its client config names one. */
  readonly token?: string;
}

export interface RetryBackoff {
  /** Attempts in all, the first included. */
  readonly attempts: number;
  readonly initialDelayMs: number;
  readonly factor: number;
  /** Random extra delay, as a fraction of the delay. */
  readonly jitter: number;
}

/** The real system's webhook backoff: 500ms, times 1.5, 5 steps, 20% jitter. */
export const DEFAULT_RETRY_BACKOFF: RetryBackoff = { attempts: 5, initialDelayMs: 500, factor: 1.5, jitter: 0.2 };

export interface WebhookAuthorizerOptions {
  readonly name: string;
  readonly connection: WebhookConnection;
  readonly subjectAccessReviewVersion: SubjectAccessReviewVersion;
  /** The suffix of the server's groups: the review's apiVersion is `authorization.<suffix>/...`. Default svc.io. */
  readonly groupSuffix?: string;
  readonly authorizedTTLms: number;
  readonly unauthorizedTTLms: number;
  readonly timeoutMs: number;
  readonly failurePolicy: FailurePolicy;
  /** Compiled with `request` (the v1 SubjectAccessReviewSpec) declared; see authorizers.ts. */
  readonly matchConditions: readonly CompiledExpressionProgram[];
  readonly retry?: RetryBackoff;
  readonly maxCacheEntries?: number;
  readonly now?: () => number;
  readonly sleep?: (ms: number) => Promise<void>;
  /** Told of every call to the webhook (retries included): its outcome and latency, for metrics. */
  readonly observe?: WebhookCallObserver;
}

/** Upstream's `apiserver_authorization_webhook_duration_seconds` result label: success, a failed call, or a timeout. */
export type WebhookCallObserver = (name: string, result: 'success' | 'failure' | 'timeout', seconds: number) => void;

/**
 * Requests whose requester-controlled attributes are longer than this are not cached: a client
 * could otherwise fill the cache with huge unique keys (upstream's maxControlledAttrCacheSize).
 */
const MAX_CACHEABLE_ATTRIBUTES_LENGTH = 10_000;

const defaultSleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** A failed call: transport, status or body; `retriable` says whether another attempt may help. */
class WebhookCallError extends Error {
  constructor(
    message: string,
    readonly retriable: boolean,
    readonly timedOut = false,
  ) {
    super(message);
  }
}

function controlledLength(a: RequestAttributes): number {
  return (
    a.namespace.length +
    a.verb.length +
    a.apiGroup.length +
    a.apiVersion.length +
    a.resource.length +
    a.subresource.length +
    a.name.length +
    a.path.length
  );
}

export class WebhookAuthorizer implements Authorizer {
  readonly name: string;
  private readonly cache: TtlCache<AuthorizerResult>;
  private readonly retry: RetryBackoff;
  private readonly sleep: (ms: number) => Promise<void>;
  /** Calls made to the webhook, retries included (for metrics and tests). */
  calls = 0;

  constructor(private readonly options: WebhookAuthorizerOptions) {
    this.name = options.name;
    this.retry = options.retry ?? DEFAULT_RETRY_BACKOFF;
    this.sleep = options.sleep ?? defaultSleep;
    this.cache = new TtlCache(options.maxCacheEntries ?? 10_000, options.now ?? Date.now);
  }

  private onFailure(what: string): AuthorizerResult {
    return {
      decision: this.options.failurePolicy,
      reason: `webhook ${JSON.stringify(this.name)} failed, failurePolicy ${this.options.failurePolicy} applies`,
      error: what,
    };
  }

  /** All match conditions true: call; one false: no opinion; an error: the failure policy. */
  private matches(spec: SubjectAccessReviewSpec): { match: true } | { match: false; result: AuthorizerResult } {
    for (const [i, condition] of this.options.matchConditions.entries()) {
      let value: unknown;
      try {
        value = condition.evaluate({ request: spec });
      } catch (e) {
        const summary = (e as { summary?: string }).summary ?? (e instanceof Error ? e.message : String(e));
        return { match: false, result: this.onFailure(`matchConditions[${i}] ${JSON.stringify(condition.expression)}: ${summary}`) };
      }
      if (value !== true) {
        return {
          match: false,
          result: {
            decision: 'NoOpinion',
            reason: `matchConditions[${i}] ${JSON.stringify(condition.expression)} is false; webhook not called`,
          },
        };
      }
    }
    return { match: true };
  }

  async authorize({ user, attributes }: AuthorizationRequest): Promise<AuthorizerResult> {
    const spec = subjectAccessReviewSpec(user, attributes);
    const m = this.matches(spec);
    if (!m.match) return m.result;

    const key = JSON.stringify(spec);
    const cached = this.cache.get(key);
    if (cached) return cached;

    let result: AuthorizerResult;
    try {
      result = await this.callWithRetries(spec);
    } catch (e) {
      return this.onFailure(e instanceof Error ? e.message : String(e));
    }
    if (controlledLength(attributes) < MAX_CACHEABLE_ATTRIBUTES_LENGTH) {
      this.cache.set(key, result, result.decision === 'Allow' ? this.options.authorizedTTLms : this.options.unauthorizedTTLms);
    }
    return result;
  }

  private async callWithRetries(spec: SubjectAccessReviewSpec): Promise<AuthorizerResult> {
    let delay = this.retry.initialDelayMs;
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.call(spec);
      } catch (e) {
        if (!(e instanceof WebhookCallError) || !e.retriable || attempt >= this.retry.attempts) {
          const suffix = attempt > 1 ? ` (after ${attempt} attempts)` : '';
          throw new Error(`${e instanceof Error ? e.message : String(e)}${suffix}`);
        }
        await this.sleep(delay * (1 + Math.random() * this.retry.jitter));
        delay *= this.retry.factor;
      }
    }
  }

  private async call(spec: SubjectAccessReviewSpec): Promise<AuthorizerResult> {
    const observe = this.options.observe;
    if (!observe) return this.callOnce(spec);
    const started = performance.now();
    let result: 'success' | 'failure' | 'timeout' = 'failure';
    try {
      const answer = await this.callOnce(spec);
      result = 'success';
      return answer;
    } catch (e) {
      if (e instanceof WebhookCallError && e.timedOut) result = 'timeout';
      throw e;
    } finally {
      observe(this.name, result, (performance.now() - started) / 1000);
    }
  }

  private async callOnce(spec: SubjectAccessReviewSpec): Promise<AuthorizerResult> {
    const { connection, timeoutMs, subjectAccessReviewVersion } = this.options;
    this.calls++;
    let response: HttpsJsonResponse;
    try {
      response = await httpsJson(connection.url, {
        method: 'POST',
        body: subjectAccessReview(spec, subjectAccessReviewVersion, this.options.groupSuffix),
        timeoutMs,
        ...(connection.ca !== undefined ? { ca: connection.ca } : {}),
        ...(connection.cert !== undefined ? { cert: connection.cert, key: connection.key as string } : {}),
        ...(connection.token !== undefined ? { headers: { authorization: `Bearer ${connection.token}` } } : {}),
      });
    } catch (e) {
      const timedOut = e instanceof HttpsTransportError && e.timedOut;
      throw new WebhookCallError(e instanceof Error ? e.message : String(e), !timedOut, timedOut);
    }
    if (response.status === 429 || response.status >= 500) {
      throw new WebhookCallError(`webhook answered ${response.status}`, true);
    }
    if (response.status < 200 || response.status > 299) throw new WebhookCallError(`webhook answered ${response.status}`, false);
    let status: SubjectAccessReviewStatus;
    try {
      status = parseSubjectAccessReviewStatus(response.json);
    } catch (e) {
      throw new WebhookCallError(`malformed webhook response: ${(e as Error).message}`, false);
    }
    const detail = status.evaluationError ? { error: status.evaluationError } : {};
    // Contradictory answers fail closed, as upstream does.
    if (status.allowed && status.denied) {
      return {
        decision: 'Deny',
        reason: status.reason || `denied by webhook ${JSON.stringify(this.name)}`,
        error: 'the webhook answered both allowed and denied',
      };
    }
    if (status.allowed) return { decision: 'Allow', reason: status.reason || `allowed by webhook ${JSON.stringify(this.name)}`, ...detail };
    if (status.denied) return { decision: 'Deny', reason: status.reason || `denied by webhook ${JSON.stringify(this.name)}`, ...detail };
    return { decision: 'NoOpinion', reason: status.reason || `webhook ${JSON.stringify(this.name)} has no opinion`, ...detail };
  }
}
