import { forbidden } from '../api/index.js';
import type { Stage } from './chain.js';
import type { RequestContext, Target, UserInfo } from './context.js';
import { includeObjectOf, negotiateResponse } from './media.js';
import { route } from './router.js';

/** The user of a request no authenticator recognised, as upstream's anonymous authentication. */
export const ANONYMOUS: UserInfo = { name: 'system:anonymous', groups: ['system:unauthenticated'] };

/** Decides who sent a request; undefined when it cannot tell (the next authenticator, or anonymous). */
export interface Authenticator {
  authenticate(ctx: RequestContext): Promise<UserInfo | undefined>;
}

/** What a request asks to do, as upstream's authorizer attributes. */
export interface RequestAttributes {
  user: UserInfo;
  method: string;
  target: Target | undefined;
  path: string;
}

export interface Decision {
  allowed: boolean;
  reason: string;
}

/** Decides whether a request may proceed; a refusal becomes a 403. */
export interface Authorizer {
  authorize(attributes: RequestAttributes): Promise<Decision>;
}

/** Records requests (upstream's audit backend). */
export interface AuditSink {
  record(attributes: RequestAttributes): void;
}

/** Admits or delays a request (upstream's max-in-flight and priority and fairness); throws a 429 to refuse. */
export interface RateLimiter {
  admit(ctx: RequestContext): Promise<void>;
}

/** The policies of the chain's stages; every one defaults to the reference server's documented policy. */
export interface ChainPolicies {
  /** Default none: every request is anonymous. */
  authenticators?: readonly Authenticator[];
  /** Default: no authorizer configured, so every request is allowed. */
  authorizer?: Authorizer;
  /** Default: no audit policy, nothing is recorded. */
  audit?: AuditSink;
  /** Default: no limit. */
  rateLimiter?: RateLimiter;
}

/** The reference server's authorization policy when none is configured: allow, and say why. */
export const ALLOW_ALL: Authorizer = {
  authorize: async () => ({ allowed: true, reason: 'no authorizer configured: every request is allowed' }),
};

/**
 * Decode and negotiate: routes the path, records the target (with the deprecation warning of its
 * version), and negotiates the response representation; a bad Accept is 406 and a bad
 * includeObject 400 before any work is done. Request bodies are decoded by the verb handlers
 * (`http.ts`), which alone know whether the verb takes one.
 */
export const negotiate: Stage = {
  name: 'negotiate',
  async handle(ctx, next) {
    const r = route(ctx.req.path, ctx.registry);
    ctx.route = r;
    if (r.kind !== 'resource') {
      ctx.response.negotiated = negotiateResponse(ctx.req.headers.accept, { protobuf: false, table: false, watch: false });
      return next();
    }
    if (r.r.deprecationWarning) ctx.warnings.add(r.r.deprecationWarning);
    const t: Target = { r: r.r, namespace: r.namespace, name: r.name, subresource: r.subresource };
    ctx.target = t;
    const { method, query } = ctx.req;
    const reading = method === 'GET' && (t.subresource === undefined || t.subresource === 'status');
    const watching = reading && t.name === undefined && query.has('watch') && query.get('watch') !== 'false' && query.get('watch') !== '0';
    ctx.response = {
      negotiated: negotiateResponse(ctx.req.headers.accept, { protobuf: ctx.codecs?.supports(t.r.apiVersion, t.r.kind) ?? false, table: reading, watch: watching }),
      r: t.r,
      compressible: reading && !watching,
    };
    // A bad includeObject is the client's mistake (400), found before any work is done.
    if (ctx.response.negotiated.representation === 'table') includeObjectOf(query);
    return next();
  },
};

/** Authenticate: the first authenticator that recognises the request names the user; anonymous otherwise. */
export function authenticate(authenticators: readonly Authenticator[]): Stage {
  return {
    name: 'authenticate',
    async handle(ctx, next) {
      let user: UserInfo | undefined;
      for (const a of authenticators) {
        user = await a.authenticate(ctx);
        if (user) break;
      }
      ctx.user = user ?? ANONYMOUS;
      return next();
    },
  };
}

/** Audit: hands the request's attributes to the sink; without a sink nothing is recorded. */
export function audit(sink: AuditSink | undefined): Stage {
  return {
    name: 'audit',
    async handle(ctx, next) {
      sink?.record(attributesOf(ctx));
      return next();
    },
  };
}

/** Authorize: a refusal is 403 with the authorizer's reason. */
export function authorize(authorizer: Authorizer): Stage {
  return {
    name: 'authorize',
    async handle(ctx, next) {
      const decision = await authorizer.authorize(attributesOf(ctx));
      if (!decision.allowed) {
        const t = ctx.target;
        throw forbidden(t ? t.r : { group: '', resource: '' }, t?.name ?? '', decision.reason);
      }
      return next();
    },
  };
}

/** Rate-limit: the limiter may delay or refuse (429); without one every request passes. */
export function rateLimit(limiter: RateLimiter | undefined): Stage {
  return {
    name: 'rate-limit',
    async handle(ctx, next) {
      await limiter?.admit(ctx);
      return next();
    },
  };
}

/** The stages in the order every request passes them. */
export function defaultStages(policies: ChainPolicies): Stage[] {
  return [negotiate, authenticate(policies.authenticators ?? []), audit(policies.audit), authorize(policies.authorizer ?? ALLOW_ALL), rateLimit(policies.rateLimiter)];
}

function attributesOf(ctx: RequestContext): RequestAttributes {
  return { user: ctx.user ?? ANONYMOUS, method: ctx.req.method, target: ctx.target, path: ctx.req.path };
}
