/**
 * The server's handler chain, in one visible order (kube-apiserver's `DefaultBuildHandlerChain`,
 * hono's `compose`): each stage sees the request, may answer or throw, and otherwise passes it on.
 *
 *   metrics -> kubectl-names -> audit-failed-authentication -> authenticate -> negotiate -> audit
 *     -> impersonate -> [a test server's: request-record -> fault-injection] -> authorize -> explain
 *     -> issuer-discovery
 *     -> rate-limit -> verb handler
 *
 * The verb handlers then run, for writes: mutating admission -> defaulting and validation ->
 * validating admission (`admission.ts`) -> storage; the response is rendered in one place
 * (`ApiServer.send`). A new policy is a new implementation of one stage's interface
 * (`RequestAuthenticator`, `RequestAuthorizer`, `Auditor`, `RateLimiter`, `AdmissionPlugin`), passed in
 * `ApiServerOptions`, never an edit of a verb handler.
 */
import type { RequestContext } from './context.js';
import type { Reply } from './http.js';

/**
 * What a stage or the rest of the chain answers: a reply to render, or undefined when the stage
 * streamed it (watch); given at once when nothing on the way waited, a promise otherwise. A stage
 * that waits for nothing answers synchronously: every async stage costs a promise per request.
 */
export type Outcome = Reply | undefined | Promise<Reply | undefined>;

/** Runs the rest of the chain. */
export type Next = () => Outcome;

/** One stage of the chain. */
export interface Stage {
  readonly name: string;
  handle(ctx: RequestContext, next: Next): Outcome;
}

/** Runs `stages` in order, then `end`; each stage calls `next` at most once. */
export function compose(stages: readonly Stage[], end: (ctx: RequestContext) => Outcome): (ctx: RequestContext) => Outcome {
  return (ctx) => {
    const run = (i: number): Outcome => {
      const stage = stages[i];
      return stage ? stage.handle(ctx, () => run(i + 1)) : end(ctx);
    };
    return run(0);
  };
}

/**
 * Runs the rest of the chain and tells `settled` how it ended (the reply, or the error it threw),
 * synchronously when the rest answered synchronously: the stages that act after the rest (metrics,
 * audit) stay synchronous with it. The outcome is passed on as it is.
 */
export function afterNext(next: Next, settled: (reply: Reply | undefined, error?: { thrown: unknown }) => void): Outcome {
  let outcome: Outcome;
  try {
    outcome = next();
  } catch (e) {
    settled(undefined, { thrown: e });
    throw e;
  }
  if (!isPromise(outcome)) {
    settled(outcome);
    return outcome;
  }
  return outcome.then(
    (reply) => {
      settled(reply);
      return reply;
    },
    (e: unknown) => {
      settled(undefined, { thrown: e });
      throw e;
    },
  );
}

export function isPromise<T>(value: T | Promise<T>): value is Promise<T> {
  return value instanceof Promise;
}
