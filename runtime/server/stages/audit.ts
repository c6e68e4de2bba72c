import type { IncomingMessage } from 'node:http';
import { isStatusError } from '../../api/index.js';
import {
  ANNOTATIONS,
  AUDIT_API_VERSION,
  type AuditRequestInfo,
  type AuditResponseStatus,
  type Auditor,
  type RequestRecorder,
} from '../../audit/index.js';
import { isObject } from '../../json/index.js';
import { type Stage, afterNext } from '../chain.js';
import type { RequestContext } from '../context.js';
import { accessRequestOf } from './attributes.js';
import { onHeadersWritten } from './response-started.js';

/**
 * Audit (upstream's WithAuditInit + WithAudit): every request gets an audit ID (the client's
 * `Audit-ID` header or a new one, echoed in the response's `Audit-ID`); with a policy, the
 * request's level is decided once and its events recorded: RequestReceived here, ResponseStarted
 * when a watch's headers go out, ResponseComplete with the reply of the rest of the chain (or the
 * Status of its error), Panic for an unexpected error. The verb handlers add the request object
 * (`ctx.audit.requestObject`); the authorize stage and admission add annotations.
 */
export function audit(auditor: Auditor | undefined): Stage {
  return {
    name: 'audit',
    handle(ctx, next) {
      const auditID = auditIdOf(ctx.req.raw);
      ctx.res.setHeader('Audit-ID', auditID);
      if (!auditor) return next();
      const info = requestInfo(ctx, auditID, true);
      const recorder = auditor.begin(info, countEvents(ctx));
      ctx.metrics?.auditLevels.inc({ level: recorder.level });
      if (recorder.level === 'None') return next();
      ctx.audit = recorder;
      annotateDeprecation(ctx, recorder);
      recorder.requestReceived();
      if (info.attributes.verb === 'watch')
        onHeadersWritten(ctx.res, () => recorder.responseStarted({ metadata: {}, code: ctx.res.statusCode }));
      return afterNext(next, (reply, error) => {
        annotateAdmission(ctx, recorder);
        if (error) {
          const status = isStatusError(error.thrown) ? error.thrown.toStatus() : undefined;
          recorder.complete(status ? responseStatusOf(status, status.code) : panicStatus(error.thrown), status, status === undefined);
        } else if (reply) recorder.complete(responseStatusOf(reply.body, reply.status), reply.body);
        else recorder.complete({ metadata: {}, code: ctx.res.statusCode }, undefined);
      });
    },
  };
}

/**
 * Failed authentication is audited too (upstream's WithFailedAuthenticationAudit): placed before
 * the authenticate stage, it records a 401 that stage answers, with no user, at ResponseStarted
 * as upstream does. A request that got past authentication is the audit stage's.
 */
export function auditFailedAuthentication(auditor: Auditor | undefined): Stage {
  return {
    name: 'audit-failed-authentication',
    handle(ctx, next) {
      if (!auditor) return next();
      return afterNext(next, (_reply, error) => {
        const e = error?.thrown;
        if (ctx.audit === undefined && !ctx.user?.username && isStatusError(e) && e.code === 401) {
          const auditID = auditIdOf(ctx.req.raw);
          if (!ctx.res.headersSent) ctx.res.setHeader('Audit-ID', auditID);
          const recorder = auditor.begin(requestInfo(ctx, auditID, false), countEvents(ctx));
          recorder.responseStarted(responseStatusOf(e.toStatus(), 401));
        }
      });
    },
  };
}

/** `apiserver_audit_event_total`: every event sent to the backend. */
function countEvents(ctx: RequestContext): (() => void) | undefined {
  const metrics = ctx.metrics;
  return metrics && (() => metrics.auditEvents.inc());
}

/** The client's `Audit-ID` (a proxy in front may have set one), else a new UUID. */
function auditIdOf(req: IncomingMessage): string {
  const given = req.headers['audit-id'];
  return typeof given === 'string' && given.trim() !== '' ? given.trim() : crypto.randomUUID();
}

function requestInfo(ctx: RequestContext, auditID: string, authenticated: boolean): AuditRequestInfo {
  const { attributes } = accessRequestOf(ctx);
  const raw = ctx.req.raw;
  return {
    auditID,
    requestURI: raw.url ?? ctx.req.path,
    attributes,
    user: authenticated ? ctx.user : undefined,
    sourceIPs: sourceIPs(raw),
    userAgent: raw.headers['user-agent'],
    eventApiVersion: ctx.registry.servedApiVersion(AUDIT_API_VERSION),
  };
}

/** What admission plugins noted for the audit (webhook annotations, failed-open markers), on the final event. */
function annotateAdmission(ctx: RequestContext, recorder: RequestRecorder): void {
  for (const [key, value] of Object.entries(ctx.auditAnnotations ?? {})) recorder.annotate(key, value);
}

/** The deprecated-endpoint signal of the Versioning section, on the event. */
function annotateDeprecation(ctx: RequestContext, recorder: RequestRecorder): void {
  const r = ctx.target?.resource;
  if (!r?.deprecationWarning) return;
  recorder.annotate(ctx.registry.servedApiVersion(ANNOTATIONS.deprecated), 'true');
  const removed = r.registration.lifecycle?.removed;
  if (removed) recorder.annotate(ctx.registry.servedApiVersion(ANNOTATIONS.removedRelease), removed);
}

/** A Status keeps its bounded fields; any other reply is a success with its code. */
function responseStatusOf(body: unknown, code: number): AuditResponseStatus {
  if (isObject(body) && body.kind === 'Status') {
    const s: AuditResponseStatus = { metadata: {}, code: typeof body.code === 'number' ? body.code : code };
    for (const k of ['status', 'message', 'reason'] as const) if (typeof body[k] === 'string') s[k] = body[k];
    if (body.details !== undefined) s.details = body.details;
    return s;
  }
  return { metadata: {}, status: 'Success', code };
}

function panicStatus(e: unknown): AuditResponseStatus {
  return {
    metadata: {},
    status: 'Failure',
    message: `APIServer panic'd: ${(e as Error)?.message ?? String(e)}`,
    reason: 'InternalError',
    code: 500,
  };
}

/**
 * The origin and proxies, as upstream's SourceIPs: `X-Forwarded-For` entries, then `X-Real-Ip`,
 * then the peer address, each once (IPv4-mapped IPv6 written as IPv4).
 */
function sourceIPs(req: IncomingMessage): string[] {
  const out: string[] = [];
  const add = (ip: string | undefined) => {
    const v = ip?.trim().replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/, '');
    if (v && !out.includes(v)) out.push(v);
  };
  const forwarded = req.headers['x-forwarded-for'];
  for (const ip of (Array.isArray(forwarded) ? forwarded.join(',') : (forwarded ?? '')).split(',')) add(ip);
  const real = req.headers['x-real-ip'];
  add(Array.isArray(real) ? real[0] : real);
  add(req.socket?.remoteAddress);
  return out;
}
