import { aggregateFieldErrors, type FieldError, GoLiteral, fieldErrorBody, fieldErrorMessage } from './field-errors.js';
import { goQuote } from './go-quote.js';
import { type GroupKind, type GroupResource, groupKindString, groupResourceString } from './gvk.js';

/** The reasons the real system uses; a Status read from another server may carry others. */
export type KnownStatusReason =
  | 'Unauthorized'
  | 'Forbidden'
  | 'NotFound'
  | 'AlreadyExists'
  | 'Conflict'
  | 'Gone'
  | 'Invalid'
  | 'ServerTimeout'
  | 'StoreReadError'
  | 'Timeout'
  | 'TooManyRequests'
  | 'BadRequest'
  | 'MethodNotAllowed'
  | 'NotAcceptable'
  | 'RequestEntityTooLarge'
  | 'UnsupportedMediaType'
  | 'InternalError'
  | 'Expired'
  | 'ServiceUnavailable';

/** A Status reason; the empty string is the real system's "Unknown". */
export type StatusReason = KnownStatusReason | '' | (string & {});

/** Cause types beyond the field error types: apply conflicts, a too-large resource version, an unparsable response. */
export type CauseType =
  | FieldError['type']
  | 'FieldManagerConflict'
  | 'ResourceVersionTooLarge'
  | 'UnexpectedServerResponse'
  | (string & {});

export interface StatusCause {
  readonly type?: CauseType;
  readonly message?: string;
  readonly field?: string;
}

export interface StatusDetails {
  readonly name?: string;
  readonly group?: string;
  /** The kind for Invalid; the resource for most other reasons, as in the real system. */
  readonly kind?: string;
  readonly uid?: string;
  readonly causes?: readonly StatusCause[];
  readonly retryAfterSeconds?: number;
}

/** A cause on the wire: the real system serializes the cause type under the key `reason`. */
export interface WireStatusCause {
  reason?: string;
  message?: string;
  field?: string;
}

/** Details on the wire: empty fields omitted, causes with `reason` keys. */
export interface WireStatusDetails {
  name?: string;
  group?: string;
  kind?: string;
  uid?: string;
  causes?: WireStatusCause[];
  retryAfterSeconds?: number;
}

/** The wire form of an error response, keys in the real system's order. */
export interface StatusObject {
  kind: 'Status';
  apiVersion: 'v1';
  metadata: Record<string, never>;
  status: 'Failure';
  message?: string;
  reason?: string;
  details?: WireStatusDetails;
  code: number;
}

export interface StatusErrorInit {
  code: number;
  reason: StatusReason;
  message: string;
  details?: StatusDetails;
}

/** An error that becomes a Status response: HTTP code, machine-readable reason, message and details. */
export class StatusError extends Error {
  override readonly name = 'StatusError';
  readonly code: number;
  readonly reason: StatusReason;
  readonly details: StatusDetails | undefined;

  constructor(init: StatusErrorInit) {
    super(init.message);
    this.code = init.code;
    this.reason = init.reason;
    this.details = init.details;
  }

  /** The Status object; empty fields are omitted as the real system's JSON omits them. */
  toStatus(): StatusObject {
    const details = this.details && wireDetails(this.details);
    return {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      ...(this.message !== '' ? { message: this.message } : {}),
      ...(this.reason !== '' ? { reason: this.reason } : {}),
      ...(details ? { details } : {}),
      code: this.code,
    };
  }

  /** The first cause of the given type, if any. */
  findCause(type: CauseType): StatusCause | undefined {
    return this.details?.causes?.find((c) => c.type === type);
  }
}

export function isStatusError(value: unknown): value is StatusError {
  return value instanceof StatusError;
}

/**
 * Reads a Status object received from a server back into a StatusError; undefined when the value
 * is not a failure Status (kind Status, apiVersion v1 or meta.svc.io/v1).
 */
export function statusErrorFromObject(value: unknown): StatusError | undefined {
  if (value === null || typeof value !== 'object') return undefined;
  const v = value as Record<string, unknown>;
  if (v.kind !== 'Status' || (v.apiVersion !== 'v1' && v.apiVersion !== 'meta.svc.io/v1')) return undefined;
  if (v.status === 'Success') return undefined;
  const code = typeof v.code === 'number' ? v.code : 0;
  const reason = typeof v.reason === 'string' ? v.reason : '';
  const message = typeof v.message === 'string' ? v.message : '';
  const details = v.details !== null && typeof v.details === 'object' ? detailsFromWire(v.details as Record<string, unknown>) : undefined;
  return new StatusError({ code, reason, message, ...(details ? { details } : {}) });
}

function detailsFromWire(d: Record<string, unknown>): StatusDetails {
  const text = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
  const causes = Array.isArray(d.causes)
    ? d.causes
        .filter((c): c is Record<string, unknown> => c !== null && typeof c === 'object')
        .map((c) => ({ type: text(c.reason), message: text(c.message), field: text(c.field) }))
    : undefined;
  return {
    name: text(d.name),
    group: text(d.group),
    kind: text(d.kind),
    uid: text(d.uid),
    causes,
    retryAfterSeconds: typeof d.retryAfterSeconds === 'number' ? d.retryAfterSeconds : undefined,
  };
}

/** Any thrown value as a StatusError: itself when it is one, a 500 InternalError otherwise. */
export function asStatusError(error: unknown): StatusError {
  return isStatusError(error) ? error : internalError(error);
}

// Empty fields are dropped, as the real system's `omitempty` JSON tags drop them; details that
// were set stay present (possibly `{}`), as the real system's non-nil details pointer does.
function wireDetails(d: StatusDetails): WireStatusDetails {
  const out: WireStatusDetails = {};
  if (d.name) out.name = d.name;
  if (d.group) out.group = d.group;
  if (d.kind) out.kind = d.kind;
  if (d.uid) out.uid = d.uid;
  if (d.causes && d.causes.length > 0) out.causes = d.causes.map(wireCause);
  if (d.retryAfterSeconds) out.retryAfterSeconds = d.retryAfterSeconds;
  return out;
}

function wireCause(c: StatusCause): WireStatusCause {
  return {
    ...(c.type ? { reason: c.type } : {}),
    ...(c.message ? { message: c.message } : {}),
    ...(c.field ? { field: c.field } : {}),
  };
}

function messageOf(why: string | Error): string {
  return typeof why === 'string' ? why : why.message;
}

function resourceDetails(gr: GroupResource, name = ''): StatusDetails {
  return { group: gr.group, kind: gr.resource, name };
}

// Constructors named after the real system's apimachinery errors (NewNotFound, ...), with its messages.

/** 404: `pods "web" not found`. */
export function notFound(resource: GroupResource, name: string): StatusError {
  return new StatusError({
    code: 404,
    reason: 'NotFound',
    message: `${groupResourceString(resource)} ${goQuote(name)} not found`,
    details: resourceDetails(resource, name),
  });
}

/** 409 AlreadyExists: `pods "web" already exists`. */
export function alreadyExists(resource: GroupResource, name: string): StatusError {
  return new StatusError({
    code: 409,
    reason: 'AlreadyExists',
    message: `${groupResourceString(resource)} ${goQuote(name)} already exists`,
    details: resourceDetails(resource, name),
  });
}

/** 409 AlreadyExists after generateName produced a taken name; the client may retry. */
export function generateNameConflict(resource: GroupResource, name: string, retryAfterSeconds: number): StatusError {
  return new StatusError({
    code: 409,
    reason: 'AlreadyExists',
    message: `${groupResourceString(resource)} ${goQuote(name)} already exists, the server was not able to generate a unique name for the object`,
    details: { ...resourceDetails(resource, name), retryAfterSeconds },
  });
}

/** Why a write with a stale resourceVersion (or one that lost a race) is refused. */
export const OBJECT_MODIFIED = 'the object has been modified; please apply your changes to the latest version and try again';

/** 409 Conflict for a write against a resourceVersion that is no longer current. */
export function objectModified(resource: GroupResource, name: string): StatusError {
  return conflict(resource, name, OBJECT_MODIFIED);
}

/** 409 Conflict: `Operation cannot be fulfilled on pods "web": <why>` (a stale resourceVersion). */
export function conflict(resource: GroupResource, name: string, why: string | Error): StatusError {
  return new StatusError({
    code: 409,
    reason: 'Conflict',
    message: `Operation cannot be fulfilled on ${groupResourceString(resource)} ${goQuote(name)}: ${messageOf(why)}`,
    details: resourceDetails(resource, name),
  });
}

/** One field owned by another manager, as server-side apply reports it. */
export interface ApplyConflict {
  /** The other manager's name. */
  readonly manager: string;
  /** `Update` entries name the version and time of the write, as the real system prints them. */
  readonly operation?: 'Apply' | 'Update';
  readonly apiVersion?: string;
  readonly subresource?: string;
  /** RFC 3339 time of the other manager's write. */
  readonly time?: string;
  /** The field path, `.spec.replicas`. */
  readonly field: string;
}

function describeManager(c: ApplyConflict): string {
  let s = goQuote(c.manager);
  if (c.subresource) s += ` with subresource ${goQuote(c.subresource)}`;
  if (c.operation === 'Update') s += c.time ? ` using ${c.apiVersion ?? ''} at ${c.time}` : ` using ${c.apiVersion ?? ''}`;
  return s;
}

/**
 * 409 Conflict from server-side apply, one FieldManagerConflict cause per field:
 * `Apply failed with 1 conflict: conflict with "kubectl" using apps/v1: .spec.replicas`.
 */
export function applyConflict(conflicts: readonly ApplyConflict[]): StatusError {
  const causes = conflicts.map((c) => ({ type: 'FieldManagerConflict', message: `conflict with ${describeManager(c)}`, field: c.field }));
  let message: string;
  const [only] = conflicts;
  if (conflicts.length === 1 && only) {
    message = `Apply failed with 1 conflict: conflict with ${describeManager(only)}: ${only.field}`;
  } else {
    // Grouped by manager, managers sorted, as the real system prints several conflicts.
    const byManager = new Map<string, ApplyConflict[]>();
    for (const c of conflicts) {
      const manager = describeManager(c);
      const group = byManager.get(manager);
      if (group) group.push(c);
      else byManager.set(manager, [c]);
    }
    const lines: string[] = [];
    for (const manager of [...byManager.keys()].sort()) {
      lines.push(`conflicts with ${manager}:`);
      for (const c of byManager.get(manager) ?? []) lines.push(`- ${c.field}`);
    }
    message = `Apply failed with ${conflicts.length} conflicts: ${lines.join('\n')}`;
  }
  return new StatusError({ code: 409, reason: 'Conflict', message, details: { causes } });
}

/**
 * 422 Invalid: `Pod "web" is invalid: spec.containers: Required value`; several errors print as
 * `[a, b]`. One cause per field error.
 */
export function invalid(kind: GroupKind, name: string, errors: readonly FieldError[]): StatusError {
  const causes = errors.map((e) => ({ type: e.type, message: fieldErrorBody(e), field: e.field }));
  const prefix = `${groupKindString(kind)} ${goQuote(name)} is invalid`;
  const aggregate = aggregateFieldErrors(errors);
  return new StatusError({
    code: 422,
    reason: 'Invalid',
    message: aggregate === '' ? prefix : `${prefix}: ${aggregate}`,
    details: { group: kind.group, kind: kind.kind, name, causes },
  });
}

/** 422 Invalid for an update without a resourceVersion where one is required (custom resources). */
export function resourceVersionRequired(kind: GroupKind, name: string): StatusError {
  return invalid(kind, name, [
    {
      type: 'FieldValueInvalid',
      field: 'metadata.resourceVersion',
      badValue: new GoLiteral('0x0'),
      detail: 'must be specified for an update',
    },
  ]);
}

/** 422 Invalid with a message of its own (a patch that cannot be applied), optionally for one object and field. */
export function invalidPatch(
  message: string,
  target?: { group: string; kind: string; name: string; field: string; detail: string },
): StatusError {
  if (!target) return new StatusError({ code: 422, reason: 'Invalid', message });
  const { group, kind, name, field, detail } = target;
  return new StatusError({
    code: 422,
    reason: 'Invalid',
    message,
    details: { name, group, kind, causes: [{ type: 'FieldValueInvalid', message: detail, field }] },
  });
}

/** 400 BadRequest with the given message (and causes, for a body that cannot be decoded). */
export function badRequest(message: string, causes?: readonly StatusCause[]): StatusError {
  return new StatusError({ code: 400, reason: 'BadRequest', message, ...(causes ? { details: { causes } } : {}) });
}

/**
 * 400 for a body the decoder cannot read into its kind (a field of the wrong type, bytes that are
 * not base64), as upstream's serializer words it: `Pod in version "v1" cannot be handled as a Pod:
 * spec.replicas: Invalid value: "string": ...`, with the field error as its one cause.
 */
export function cannotBeHandledAs(kind: string, version: string, error: FieldError): StatusError {
  const message = fieldErrorMessage(error);
  return badRequest(`${kind} in version "${version}" cannot be handled as a ${kind}: ${message}`, [
    { type: error.type, message, field: error.field },
  ]);
}

/** 400 for `fieldValidation=Strict`: `strict decoding error: unknown field "x", duplicate field "y"`. */
export function strictDecodingError(unknown: readonly string[], duplicates: readonly string[]): StatusError {
  // sigs.k8s.io/json quotes the field path with Go's %q.
  const problems = [...unknown.map((f) => `unknown field ${goQuote(f)}`), ...duplicates.map((f) => `duplicate field ${goQuote(f)}`)];
  return badRequest(`strict decoding error: ${problems.join(', ')}`, [
    ...unknown.map((f) => ({ type: 'FieldValueInvalid', message: `unknown field ${goQuote(f)}`, field: f })),
    ...duplicates.map((f) => ({ type: 'FieldValueDuplicate', message: `duplicate field ${goQuote(f)}`, field: f })),
  ]);
}

/**
 * 404 for a path that names nothing served (no resource, subresource, group or document). Its
 * details are present and empty, as upstream's NewGenericServerResponse answers an unmatched route:
 * clients read `details` of every 404 (kubectl debug dereferences it).
 */
export function pathNotFound(message: string): StatusError {
  return new StatusError({ code: 404, reason: 'NotFound', message, details: {} });
}

/** 410 Gone (deprecated in the real system in favour of resourceExpired). */
export function gone(message: string): StatusError {
  return new StatusError({ code: 410, reason: 'Gone', message });
}

/** 410 Expired: a resource version or continue token older than the retained history. */
export function resourceExpired(message: string): StatusError {
  return new StatusError({ code: 410, reason: 'Expired', message });
}

/** 410 Expired for a watch or exact read before the history window: `too old resource version: 5 (120)`. */
export function tooOldResourceVersion(requested: number, oldest: number): StatusError {
  return resourceExpired(`too old resource version: ${requested} (${oldest})`);
}

/**
 * 504 Timeout for a read at a resource version the server has not reached:
 * `Timeout: Too large resource version: 90, current: 42`, with a ResourceVersionTooLarge cause.
 */
export function tooLargeResourceVersion(requested: number, current: number, retryAfterSeconds: number): StatusError {
  return new StatusError({
    code: 504,
    reason: 'Timeout',
    message: `Timeout: Too large resource version: ${requested}, current: ${current}`,
    details: {
      causes: [{ type: 'ResourceVersionTooLarge', message: 'Too large resource version' }],
      retryAfterSeconds,
    },
  });
}

/** 504 Timeout: `Timeout: <message>`; the operation may still complete. */
export function timeout(message: string, retryAfterSeconds = 0): StatusError {
  return new StatusError({ code: 504, reason: 'Timeout', message: `Timeout: ${message}`, details: { retryAfterSeconds } });
}

/** 500 ServerTimeout: a transient failure the client should retry. */
export function serverTimeout(resource: GroupResource, operation: string, retryAfterSeconds: number): StatusError {
  return new StatusError({
    code: 500,
    reason: 'ServerTimeout',
    message: `The ${operation} operation against ${groupResourceString(resource)} could not be completed at this time, please try again.`,
    details: { group: resource.group, kind: resource.resource, name: operation, retryAfterSeconds },
  });
}

/** 405: `deletecollection is not supported on resources of kind "nodes"`. */
export function methodNotSupported(resource: GroupResource, action: string): StatusError {
  return new StatusError({
    code: 405,
    reason: 'MethodNotAllowed',
    message: `${action} is not supported on resources of kind ${goQuote(groupResourceString(resource))}`,
    details: { group: resource.group, kind: resource.resource },
  });
}

/** 405 for a method a path does not take: `the server does not allow this method on the requested resource (PUT: <why>)`. */
export function methodNotAllowed(method: string, why: string): StatusError {
  return new StatusError({
    code: 405,
    reason: 'MethodNotAllowed',
    message: `the server does not allow this method on the requested resource (${method}: ${why})`,
  });
}

/** 406: none of the Accept media types is served; lists the ones that are. */
export function notAcceptable(accepted: readonly string[]): StatusError {
  return new StatusError({
    code: 406,
    reason: 'NotAcceptable',
    message: `only the following media types are accepted: ${accepted.join(', ')}`,
  });
}

/** 415: the request body's Content-Type is not understood; lists the ones that are. */
export function unsupportedMediaType(accepted: readonly string[]): StatusError {
  return new StatusError({
    code: 415,
    reason: 'UnsupportedMediaType',
    message: `the body of the request was in an unknown format - accepted media types include: ${accepted.join(', ')}`,
  });
}

/** 413 for a request body over the server's limit. */
export function tooLarge(limitBytes: number): StatusError {
  return new StatusError({
    code: 413,
    reason: 'RequestEntityTooLarge',
    message: `the request body is larger than the limit of ${limitBytes} bytes`,
  });
}

/** 413: `Request entity too large: <message>`. */
export function requestEntityTooLarge(message: string): StatusError {
  return new StatusError({ code: 413, reason: 'RequestEntityTooLarge', message: `Request entity too large: ${message}` });
}

/** 403: `pods "web" is forbidden: <why>`; without a name `pods is forbidden: <why>`. */
export function forbidden(resource: GroupResource, name: string, why: string | Error, causes?: readonly StatusCause[]): StatusError {
  const reason = messageOf(why);
  let message: string;
  if (resource.group === '' && resource.resource === '') message = `forbidden: ${reason}`;
  else if (name === '') message = `${groupResourceString(resource)} is forbidden: ${reason}`;
  else message = `${groupResourceString(resource)} ${goQuote(name)} is forbidden: ${reason}`;
  return new StatusError({
    code: 403,
    reason: 'Forbidden',
    message,
    details: { ...resourceDetails(resource, name), ...(causes ? { causes } : {}) },
  });
}

/** 401: the request carried no acceptable credentials. */
export function unauthorized(reason = ''): StatusError {
  return new StatusError({ code: 401, reason: 'Unauthorized', message: reason === '' ? 'not authorized' : reason });
}

/** 429 with a Retry-After hint in details.retryAfterSeconds. */
export function tooManyRequests(message: string, retryAfterSeconds: number): StatusError {
  return new StatusError({ code: 429, reason: 'TooManyRequests', message, details: { retryAfterSeconds } });
}

/** 500: `Internal error occurred: <error>`, the error text also as a cause. */
export function internalError(error: unknown): StatusError {
  const text = error instanceof Error ? error.message : String(error);
  return new StatusError({
    code: 500,
    reason: 'InternalError',
    message: `Internal error occurred: ${text}`,
    details: { causes: [{ message: text }] },
  });
}

/**
 * 500 for an unexpected failure while serving (a bug, a failing dependency), as the reference
 * server has always answered it: `an error on the server ("<error>") has prevented the request from succeeding`.
 */
export function unexpectedError(error: unknown): StatusError {
  const text = error instanceof Error ? error.message : 'unknown';
  return new StatusError({
    code: 500,
    reason: 'InternalError',
    message: `an error on the server ("${text}") has prevented the request from succeeding`,
  });
}

/** A success Status, as a delete that removed the object at once (with its details) or an eviction (with its code) answers. */
export function successStatus(
  init: { details?: { name: string; group?: string; kind: string; uid: string | undefined }; code?: number } = {},
): Record<string, unknown> {
  return {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Success',
    ...(init.details ? { details: init.details } : {}),
    ...(init.code !== undefined ? { code: init.code } : {}),
  };
}

/**
 * A delete that removed the object at once: a success Status naming it (`kind` is the resource, as
 * upstream; the core group's empty `group` omitted, as Go's omitempty drops it).
 */
export function deletedStatus(resource: GroupResource, name: string, uid: string | undefined): Record<string, unknown> {
  return successStatus({ details: { name, ...(resource.group ? { group: resource.group } : {}), kind: resource.resource, uid } });
}

/** 503 with the given reason as message. */
export function serviceUnavailable(reason: string): StatusError {
  return new StatusError({ code: 503, reason: 'ServiceUnavailable', message: reason });
}
