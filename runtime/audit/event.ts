/**
 * Audit events (`audit.svc.io/v1` Event, the shape of upstream's audit.k8s.io/v1) and the
 * per-request recorder that builds them stage by stage. The server's audit stage owns one
 * recorder per request; handlers reach it only through {@link RequestAudit}'s small surface
 * (the request object, annotations), so no verb handler knows about levels or backends.
 */
import { randomUUID } from 'node:crypto';
import { type JsonValue, cloneJson, isObject } from '../json/index.js';
import type { RequestAttributes, UserInfo } from '../auth/index.js';
import { type AuditDecision, type Level, type Stage, levelAtLeast } from './policy.js';

export const AUDIT_API_VERSION = 'audit.svc.io/v1';

/** The user as an event records it (upstream's authentication.k8s.io UserInfo). */
export interface AuditUser {
  username?: string;
  uid?: string;
  groups?: string[];
  extra?: Record<string, string[]>;
}

export interface AuditObjectReference {
  resource?: string;
  namespace?: string;
  name?: string;
  uid?: string;
  apiGroup?: string;
  apiVersion?: string;
  resourceVersion?: string;
  subresource?: string;
}

/** The bounded part of a Status an event keeps. */
export interface AuditResponseStatus {
  metadata: Record<string, never>;
  status?: string;
  message?: string;
  reason?: string;
  details?: unknown;
  code: number;
}

export interface AuditEvent {
  kind: 'Event';
  /** {@link AUDIT_API_VERSION}, or its name under the server's group suffix (`audit.k8s.io/v1`). */
  apiVersion: string;
  level: Exclude<Level, 'None'>;
  auditID: string;
  stage: Stage;
  requestURI: string;
  verb: string;
  user: AuditUser;
  impersonatedUser?: AuditUser;
  sourceIPs?: string[];
  userAgent?: string;
  objectRef?: AuditObjectReference;
  responseStatus?: AuditResponseStatus;
  requestObject?: unknown;
  responseObject?: unknown;
  requestReceivedTimestamp: string;
  stageTimestamp: string;
  annotations?: Record<string, string>;
}

/** Where events go (upstream's audit backend): a log file, memory, or both. */
export interface AuditBackend {
  process(event: AuditEvent): void;
  close?(): void;
}

/** The request as the recorder needs it, read once by the server's audit stage. */
export interface AuditRequestInfo {
  auditID?: string;
  requestURI: string;
  attributes: RequestAttributes;
  /** Undefined when authentication failed. */
  user: UserInfo | undefined;
  impersonatedUser?: UserInfo;
  sourceIPs: string[];
  userAgent: string | undefined;
  /** The events' apiVersion as the server names it (`audit.k8s.io/v1` under `--group-suffix k8s.io`); default {@link AUDIT_API_VERSION}. */
  eventApiVersion?: string;
}

/** What handlers may tell the audit of their request. */
export interface RequestAudit {
  readonly auditID: string;
  /** The level the policy chose (None: nothing is recorded, and nothing need be prepared). */
  readonly level: Level;
  /** The decoded request body, before defaulting and admission (also fills objectRef's name, uid, resourceVersion). */
  requestObject(object: unknown): void;
  /** An annotation of the event (`authorization.svc.io/decision`, a webhook's audit annotation). */
  annotate(key: string, value: string): void;
  /** The user the request acts as (impersonation headers): the events after RequestReceived carry it. */
  impersonated(user: UserInfo): void;
}

/** A clock in milliseconds since the epoch, fractions allowed (the default has microseconds). */
export type AuditClock = () => number;

const defaultClock: AuditClock = () => performance.timeOrigin + performance.now();

/** `2026-11-24T09:36:58.123456Z`: the microsecond time events carry. */
export function microTime(ms: number): string {
  const whole = Math.floor(ms);
  const micros = Math.floor((ms - whole) * 1000);
  return new Date(whole).toISOString().replace(/Z$/, `${String(micros).padStart(3, '0')}Z`);
}

/** Records one request's events: RequestReceived, ResponseStarted (long-running), ResponseComplete or Panic. */
export class RequestRecorder implements RequestAudit {
  readonly auditID: string;
  readonly level: Level;
  private readonly receivedAt: string;
  private readonly objectRef: AuditObjectReference | undefined;
  private readonly annotations: Record<string, string> = {};
  private request: unknown;
  private finished = false;

  constructor(
    private info: AuditRequestInfo,
    private readonly decision: AuditDecision,
    private readonly backend: AuditBackend,
    private readonly clock: AuditClock = defaultClock,
  ) {
    this.auditID = info.auditID ?? randomUUID();
    this.level = decision.level;
    this.receivedAt = microTime(clock());
    this.objectRef = objectRefOf(info.attributes);
  }

  requestObject(object: unknown): void {
    if (this.level === 'None') return;
    const meta = isObject(object) && isObject(object.metadata) ? object.metadata : undefined;
    const ref = this.objectRef;
    if (ref && meta) {
      if (ref.name === undefined && typeof meta.name === 'string') ref.name = meta.name;
      if (ref.namespace === undefined && typeof meta.namespace === 'string') ref.namespace = meta.namespace;
      if (typeof meta.uid === 'string') ref.uid = meta.uid;
      if (typeof meta.resourceVersion === 'string' && meta.resourceVersion !== '') ref.resourceVersion = meta.resourceVersion;
    }
    // A snapshot: the handler goes on to default and admit the same object in place.
    if (levelAtLeast(this.level, 'Request') && this.info.attributes.isResourceRequest)
      this.request = this.trim(cloneJson(object as JsonValue));
  }

  annotate(key: string, value: string): void {
    if (this.level !== 'None') this.annotations[key] = value;
  }

  impersonated(user: UserInfo): void {
    this.info = { ...this.info, impersonatedUser: user };
  }

  /** RequestReceived: the request is authenticated and about to be authorized. */
  requestReceived(): void {
    this.emit('RequestReceived', undefined, undefined);
  }

  /** ResponseStarted: the headers of a long-running response (a watch) are written. */
  responseStarted(status: AuditResponseStatus): void {
    if (!this.finished) this.emit('ResponseStarted', status, undefined);
  }

  /** ResponseComplete (or Panic for an unexpected error): the response, at most once. */
  complete(status: AuditResponseStatus, responseObject: unknown, panic = false): void {
    if (this.finished) return;
    this.finished = true;
    const response =
      this.level === 'RequestResponse' && this.info.attributes.isResourceRequest && responseObject !== undefined
        ? this.trim(responseObject)
        : undefined;
    this.emit(panic ? 'Panic' : 'ResponseComplete', status, response);
  }

  private emit(stage: Stage, status: AuditResponseStatus | undefined, response: unknown): void {
    if (this.level === 'None' || this.decision.omitStages.has(stage)) return;
    const { info } = this;
    const event: AuditEvent = {
      kind: 'Event',
      apiVersion: info.eventApiVersion ?? AUDIT_API_VERSION,
      level: this.level,
      auditID: this.auditID,
      stage,
      requestURI: info.requestURI,
      verb: info.attributes.verb,
      user: auditUser(info.user),
      ...(info.impersonatedUser ? { impersonatedUser: auditUser(info.impersonatedUser) } : {}),
      sourceIPs: info.sourceIPs,
      ...(info.userAgent !== undefined ? { userAgent: info.userAgent } : {}),
      ...(this.objectRef ? { objectRef: { ...this.objectRef } } : {}),
      ...(status ? { responseStatus: status } : {}),
      ...(this.request !== undefined ? { requestObject: this.request } : {}),
      ...(response !== undefined ? { responseObject: response } : {}),
      requestReceivedTimestamp: this.receivedAt,
      stageTimestamp: stage === 'RequestReceived' ? this.receivedAt : microTime(this.clock()),
      ...(Object.keys(this.annotations).length > 0 ? { annotations: { ...this.annotations } } : {}),
    };
    this.backend.process(event);
  }

  /** omitManagedFields: the object (or every item of a list) without metadata.managedFields, copied only when there are some. */
  private trim(object: unknown): unknown {
    if (!this.decision.omitManagedFields || !isObject(object)) return object;
    const items = object.items;
    if (Array.isArray(items) && items.some(hasManagedFields)) return { ...object, items: items.map(withoutManagedFields) };
    return withoutManagedFields(object);
  }
}

function hasManagedFields(o: unknown): boolean {
  return isObject(o) && isObject(o.metadata) && o.metadata.managedFields !== undefined;
}

function withoutManagedFields(o: unknown): unknown {
  if (!hasManagedFields(o)) return o;
  const object = o as Record<string, unknown>;
  const { managedFields: _, ...metadata } = object.metadata as Record<string, unknown>;
  return { ...object, metadata };
}

/** Lists and watches address no one object: no objectRef (the spec's Event), nor for non-resource requests. */
function objectRefOf(a: RequestAttributes): AuditObjectReference | undefined {
  if (!a.isResourceRequest || a.verb === 'list' || a.verb === 'watch') return undefined;
  const ref: AuditObjectReference = { resource: a.resource };
  if (a.namespace !== '') ref.namespace = a.namespace;
  if (a.name !== '') ref.name = a.name;
  ref.apiGroup = a.apiGroup;
  ref.apiVersion = a.apiVersion;
  if (a.subresource !== '') ref.subresource = a.subresource;
  return ref;
}

function auditUser(u: UserInfo | undefined): AuditUser {
  if (!u) return {};
  const out: AuditUser = { username: u.username };
  if (u.uid) out.uid = u.uid;
  if (u.groups.length > 0) out.groups = [...u.groups];
  if (Object.keys(u.extra).length > 0) out.extra = Object.fromEntries(Object.entries(u.extra).map(([k, v]) => [k, [...v]]));
  return out;
}
