import { queryBool } from '../../api/index.js';
import type { Stage } from '../chain.js';
import type { Target } from '../context.js';
import { includeObjectOf, negotiateResponse } from '../media.js';
import { route } from '../router.js';

/**
 * Decode and negotiate: routes the path, records the target (with the deprecation warning of its
 * version), and negotiates the response representation; a bad Accept is 406 and a bad
 * includeObject 400 before any work is done. Request bodies are decoded (`http.ts`) by the verb
 * handlers, which alone know whether the verb takes one.
 */
export const negotiate: Stage = {
  name: 'negotiate',
  handle(ctx, next) {
    const r = route(ctx.req, ctx.registry);
    ctx.route = r;
    if (r.kind !== 'resource') {
      ctx.response.negotiated = negotiateResponse(ctx.req.headers.accept, {
        protobuf: false,
        table: false,
        watch: false,
        aggregatedDiscovery: r.kind === 'api-versions' || r.kind === 'api-groups',
        openApiV2Protobuf: r.kind === 'openapi' && r.path === 'v2',
      });
      return next();
    }
    if (r.resource.deprecationWarning) ctx.warnings.add(r.resource.deprecationWarning);
    const { method, query } = ctx.req;
    const reading = method === 'GET' && (r.subresource === undefined || r.subresource === 'status');
    const watching = method === 'GET' && (r.watchPath || (r.name === undefined && (queryBool(query, 'watch') ?? false)));
    const t: Target = { resource: r.resource, namespace: r.namespace, name: r.name, subresource: r.subresource, watch: watching };
    ctx.target = t;
    ctx.response = {
      negotiated: negotiateResponse(ctx.req.headers.accept, {
        protobuf: ctx.codecs?.supports(t.resource.apiVersion, t.resource.kind) ?? false,
        table: reading,
        watch: watching,
      }),
      resource: t.resource,
      compressible: reading && !watching,
    };
    // A bad includeObject is the client's mistake (400), found before any work is done.
    if (ctx.response.negotiated.representation === 'table') includeObjectOf(query);
    return next();
  },
};
