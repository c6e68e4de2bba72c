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

/** What the rest of the chain answers: a reply to render, or undefined when the stage streamed it (watch). */
export type Next = () => Promise<Reply | undefined>;

/** One stage of the chain. */
export interface Stage {
  readonly name: string;
  handle(ctx: RequestContext, next: Next): Promise<Reply | undefined>;
}

/** Runs `stages` in order, then `end`; each stage calls `next` at most once. */
export function compose(
  stages: readonly Stage[],
  end: (ctx: RequestContext) => Promise<Reply | undefined>,
): (ctx: RequestContext) => Promise<Reply | undefined> {
  return (ctx) => {
    const run = (i: number): Promise<Reply | undefined> => {
      const stage = stages[i];
      return stage ? stage.handle(ctx, () => run(i + 1)) : end(ctx);
    };
    return run(0);
  };
}
