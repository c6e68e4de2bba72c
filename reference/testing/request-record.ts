/**
 * The test server's record of requests: every request that reached the handler chain, as who made
 * it, what it asked (verb, resource, namespace, name), what it was answered (status) and the
 * warnings sent with it, so a test can assert "the controller patched this object twice".
 */
import { isStatusError } from '../../runtime/api/index.js';
import type { RequestContext, Stage } from '../../runtime/server/index.js';
import { type RequestPattern, matches, requestFacts } from './request-pattern.js';

export interface RecordedRequest {
  method: string;
  path: string;
  /** The query string without `?` ('' when none). */
  query: string;
  verb: string;
  /** The API group ('' for the core group and for non-resource requests). */
  group: string;
  resource: string;
  subresource: string;
  namespace: string;
  name: string;
  /** The user after authentication and impersonation. */
  user: string | undefined;
  groups: readonly string[];
  /** The response status (a watch: the status it started with). */
  status: number;
  /** The `Warning` header items sent with the response. */
  warnings: readonly string[];
  /** The server's clock when the request arrived. */
  at: Date;
}

export class RequestRecord {
  #requests: RecordedRequest[] = [];
  /** Requests still being answered (watches stream for long): their status is read once headers are out. */
  readonly #open = new Map<RecordedRequest, RequestContext>();
  readonly #now: () => Date;

  constructor(now: () => Date) {
    this.#now = now;
  }

  /** The recorded requests that match every field of `pattern` (all when none), oldest first. */
  requests(pattern: RequestPattern & { status?: number } = {}): RecordedRequest[] {
    for (const [entry, ctx] of this.#open) {
      if (!ctx.res.headersSent) continue;
      entry.status = ctx.res.statusCode;
      entry.warnings = [...ctx.warnings.items];
    }
    return this.#requests.filter(
      (r) =>
        (pattern.status === undefined || pattern.status === r.status) &&
        matches(pattern, {
          method: r.method,
          path: r.path,
          user: r.user,
          attributes: {
            isResourceRequest: r.resource !== '',
            path: r.path,
            verb: r.verb,
            apiPrefix: '',
            apiGroup: r.group,
            apiVersion: '',
            namespace: r.namespace,
            resource: r.resource,
            subresource: r.subresource,
            name: r.name,
          },
        }),
    );
  }

  /** Every warning sent, in order, with the request it was sent on. */
  warnings(): { warning: string; request: RecordedRequest }[] {
    return this.requests().flatMap((request) => request.warnings.map((warning) => ({ warning, request })));
  }

  clear(): void {
    this.#requests = [];
    this.#open.clear();
  }

  readonly stage: Stage = {
    name: 'request-record',
    handle: async (ctx, next) => {
      const facts = requestFacts(ctx);
      const a = facts.attributes;
      const entry: RecordedRequest = {
        method: ctx.req.method,
        path: ctx.req.path,
        query: ctx.req.query.toString(),
        verb: a.verb,
        group: a.apiGroup,
        resource: a.resource,
        subresource: a.subresource,
        namespace: a.namespace,
        name: a.name,
        user: ctx.user?.username,
        groups: ctx.user?.groups ?? [],
        status: 0,
        warnings: [],
        at: this.#now(),
      };
      this.#requests.push(entry);
      this.#open.set(entry, ctx);
      try {
        const reply = await next();
        entry.status = reply?.status ?? ctx.res.statusCode;
        return reply;
      } catch (e) {
        entry.status = isStatusError(e) ? e.code : 500;
        throw e;
      } finally {
        this.#open.delete(entry);
        entry.warnings = [...ctx.warnings.items];
      }
    },
  };
}
