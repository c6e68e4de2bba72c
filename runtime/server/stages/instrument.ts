import { isStatusError } from '../../api/index.js';
import type { RequestAttributes } from '../../auth/index.js';
import type { RequestLabels } from '../../metrics/index.js';
import { type Stage, afterNext } from '../chain.js';
import type { RequestContext } from '../context.js';
import { attributesOf } from './attributes.js';
import { onHeadersWritten } from './response-started.js';

const APPLY_PATCH = 'application/apply-patch+yaml';
const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);
const VERBS: Readonly<Record<string, string>> = {
  get: 'GET',
  list: 'LIST',
  watch: 'WATCH',
  create: 'POST',
  update: 'PUT',
  patch: 'PATCH',
  delete: 'DELETE',
  deletecollection: 'DELETECOLLECTION',
};

/**
 * Metrics (upstream's MonitorRequest around the whole chain): counts every request by verb,
 * resource and code, observes its latency, tracks long-running ones (watches) while they run, and
 * sets `apiserver_requested_deprecated_apis` for a deprecated version with the same group,
 * version, resource and subresource labels as the counter, so the two join. Resource labels come
 * from the routed target only, so an unknown path cannot grow the label sets.
 */
export const instrument: Stage = {
  name: 'metrics',
  handle(ctx, next) {
    const metrics = ctx.metrics;
    if (!metrics) return next();
    const started = performance.now();
    const a = attributesOf(ctx);
    const verb = reportedVerb(a, ctx);
    // A watch runs from when its response starts (its target is routed by then) until it ends.
    let longRunning: Record<string, string> | undefined;
    if (a.verb === 'watch')
      onHeadersWritten(ctx.res, () => {
        longRunning = { verb, ...resourceLabels(ctx, a), component: 'apiserver' };
        metrics.longRunningRequests.inc(longRunning);
      });
    return afterNext(next, (reply, error) => {
      const code = error ? (isStatusError(error.thrown) ? error.thrown.code : 500) : reply ? reply.status : ctx.res.statusCode;
      if (longRunning) metrics.longRunningRequests.dec(longRunning);
      const labels = requestLabels(ctx, a, verb);
      metrics.recordRequest(labels, String(code), (performance.now() - started) / 1000);
      const r = ctx.target?.resource;
      if (r?.deprecationWarning) {
        const removed = r.registration.lifecycle?.removed ?? '';
        metrics.requestedDeprecatedApis.set(
          {
            group: r.group,
            version: r.version,
            resource: r.resource,
            subresource: ctx.target?.subresource ?? '',
            removed_release: removed,
          },
          1,
        );
      }
    });
  },
};

/** Upstream's reported verb: LIST and WATCH for collection reads, APPLY for a server-side apply, else the method. */
function reportedVerb(a: RequestAttributes, ctx: RequestContext): string {
  if (!a.isResourceRequest) return METHODS.has(ctx.req.method) ? ctx.req.method : 'OTHER';
  if (a.verb === 'patch' && ctx.req.headers['content-type']?.split(';')[0]?.trim() === APPLY_PATCH) return 'APPLY';
  return VERBS[a.verb] ?? (METHODS.has(ctx.req.method) ? ctx.req.method : 'OTHER');
}

/** The labels of the request counter and latency (the counter adds the code). */
function requestLabels(ctx: RequestContext, a: RequestAttributes, verb: string): RequestLabels {
  const r = resourceLabels(ctx, a);
  return {
    verb,
    dry_run: dryRun(ctx.req.query),
    group: r.group,
    version: r.version,
    resource: r.resource,
    subresource: r.subresource,
    scope: r.scope,
    component: 'apiserver',
  };
}

function resourceLabels(ctx: RequestContext, a: RequestAttributes) {
  const t = ctx.target;
  if (!t) return { group: '', version: '', resource: '', subresource: '', scope: a.isResourceRequest ? scopeOf(a) : '' };
  return {
    group: t.resource.group,
    version: t.resource.version,
    resource: t.resource.resource,
    subresource: t.subresource ?? '',
    scope: scopeOf(a),
  };
}

/** Upstream's CleanScope: one object (or a create), a namespace, or the cluster. */
function scopeOf(a: RequestAttributes): string {
  if (a.name !== '' || a.verb === 'create') return 'resource';
  if (a.namespace !== '') return 'namespace';
  return a.isResourceRequest ? 'cluster' : '';
}

/** The dryRun values, sorted and unique (`All`), as upstream's cleanDryRun; empty when none. */
function dryRun(query: URLSearchParams): string {
  if (!query.has('dryRun')) return '';
  return [...new Set(query.getAll('dryRun').filter((v) => v === 'All'))].sort().join(',');
}
