import {
  type FieldError,
  type JsonApiObject,
  type StatusError,
  badRequest,
  cannotBeHandledAs,
  fieldInvalid,
  invalid,
  goQuote,
  isDNS1123Label,
  isDNS1123Subdomain,
  isValidPathSegmentName,
  strictDecodingError,
  validateAnnotations,
  validateLabels,
} from '../api/index.js';
import { rulesRunAfter } from '../cel/index.js';
import {
  AUTHENTICATED_GROUP,
  SERVICE_ACCOUNTS_GROUP,
  type UserInfo,
  anonymousUser,
  serviceAccountUsername,
  serviceAccountsGroup,
} from '../auth/index.js';
import { type NameValidation, type NamedTypeDefaulter, applyTypeDefaults, omitEmpty, prune, validatorOf } from '../schema/index.js';
import type { ApiServerMetrics } from '../metrics/index.js';
import type { Store } from '../store/index.js';
import { Collector } from '../validate/index.js';
import { roundTripAnnotationErrors } from './conversion.js';
import { Warnings } from './http.js';
import type { FieldValidation } from './query.js';
import type { ResourceRegistry, ServedResource } from './resources.js';

/** Runs a kind's CEL rules over an object (and its old version on update); empty when all hold. */
export type RuleChecker = (r: ServedResource, object: unknown, old: unknown) => FieldError[];

/** The operations admission sees; a patch or apply is an UPDATE, or a CREATE when it creates. */
export type AdmissionOperation = 'CREATE' | 'UPDATE' | 'DELETE';

/**
 * An object on its way to storage (or a delete), as admission plugins see it: upstream's admission
 * attributes. Mutating plugins change `object` in place (the write handlers hold it).
 */
export interface AdmissionRequest {
  resource: ServedResource;
  /** The kind of `object` when it is not the resource's (a subresource's body, such as an Eviction). */
  kind?: { group: string; version: string; kind: string };
  subresource: string | undefined;
  operation: AdmissionOperation;
  namespace: string | undefined;
  name: string;
  /** The object to store; undefined on DELETE. */
  object: JsonApiObject | undefined;
  /** The stored object, on UPDATE and DELETE. */
  old: JsonApiObject | undefined;
  user: UserInfo;
  dryRun: boolean;
  /** The operation's options as the real system sends them to webhooks (CreateOptions, UpdateOptions, DeleteOptions). */
  options: Record<string, unknown>;
  warnings: Warnings;
  /** The request's audit annotations: the same record as `ctx.auditAnnotations`, which the audit stage reads. */
  auditAnnotations: Record<string, string>;
}

/**
 * An admission plugin (upstream's `admission.Interface`): mutating plugins may change the object
 * after defaulting and before validation; validating plugins may refuse it after validation.
 * Refusing is throwing a Status error. An ApiServer runs the plugins it is given (none by default);
 * the reference server runs the webhook and policy plugins unless `--disable-admission-plugins`
 * says otherwise, and others with `--enable-admission-plugins`.
 */
export interface AdmissionPlugin {
  readonly name: string;
  /** Answers at once (no promise) when it has nothing to wait for: most writes match no webhook or policy. */
  mutate?(request: AdmissionRequest): void | Promise<void>;
  validate?(request: AdmissionRequest): void | Promise<void>;
  /**
   * A write through this server committed `key` (a create, update or delete): a plugin that keeps
   * stored configuration reads it again when the key is its own, before the writer's next request.
   */
  stored?(key: string): void;
}

/**
 * Runs one phase of the plugins in order on `request`, waiting only for those that answer with a
 * promise: a write no plugin has work for passes admission without a turn of the microtask queue.
 */
function runPhase(
  plugins: readonly AdmissionPlugin[],
  phase: 'mutate' | 'validate',
  request: AdmissionRequest,
  from = 0,
): void | Promise<void> {
  for (let i = from; i < plugins.length; i++) {
    const pending = plugins[i]![phase]?.(request);
    if (pending) return pending.then(() => runPhase(plugins, phase, request, i + 1));
  }
}

/** Tells the admission plugins that a write through this server committed `key` ({@link AdmissionPlugin.stored}). */
export function noteStored(ctx: { admission: readonly AdmissionPlugin[] }, key: string): void {
  for (const plugin of ctx.admission) plugin.stored?.(key);
}

/** What a plugin that reads the server's own objects (webhook configurations, namespaces) is built from. */
export interface AdmissionHost {
  store: Store;
  registry: ResourceRegistry;
  /** The server's metrics, when it exports any (webhook latencies and rejections). */
  metrics?: ApiServerMetrics;
}

/** A plugin, or a factory of one that the server calls once with itself. */
export type AdmissionPluginSource = AdmissionPlugin | ((host: AdmissionHost) => AdmissionPlugin);

/** What admission reads from the server and the request. */
export interface AdmissionContext {
  rules: RuleChecker;
  admission: readonly AdmissionPlugin[];
  warnings: Warnings;
  /** Who sent the request (anonymous when unset). */
  user?: UserInfo;
  /** Audit annotations of the request, filled by admission plugins. */
  auditAnnotations?: Record<string, string>;
  /** The code defaulters of named types (built-in kinds only); none when unset. */
  hooks?: { defaulters: Readonly<Record<string, NamedTypeDefaulter>> };
}

export interface AdmitInput {
  resource: ServedResource;
  object: JsonApiObject;
  old?: JsonApiObject;
  fieldValidation: FieldValidation;
  /** Duplicate keys found in the request body (paths). */
  duplicates: readonly string[];
  subresource?: string;
  dryRun?: boolean;
  /** The write's options (fieldManager and so on), for the request that webhooks see. */
  options?: Record<string, unknown>;
}

/** The admission request of one write or delete, with annotations going to `ctx`. */
export function admissionRequest(
  ctx: AdmissionContext,
  fields: Omit<AdmissionRequest, 'user' | 'warnings' | 'auditAnnotations'>,
): AdmissionRequest {
  // Written out rather than spread: a spread of ten fields into a new shape was 3% of a create.
  return {
    resource: fields.resource,
    kind: fields.kind,
    subresource: fields.subresource,
    operation: fields.operation,
    namespace: fields.namespace,
    name: fields.name,
    object: fields.object,
    old: fields.old,
    dryRun: fields.dryRun,
    options: fields.options,
    user: ctx.user ?? anonymousUser(),
    warnings: ctx.warnings,
    auditAnnotations: (ctx.auditAnnotations ??= {}),
  };
}

/**
 * Decoding checks, defaulting, mutating admission, pruning, validation and validating admission
 * of an object about to be written, in the real system's order: the type meta must match the
 * endpoint; defaults fill absent fields; unknown and duplicate fields are reported per
 * `fieldValidation` and dropped; structural errors are 400 (the first one alone, without
 * unknown-field detail), rule failures 422 listing every cause.
 */
export async function admit(ctx: AdmissionContext, input: AdmitInput): Promise<JsonApiObject> {
  const { resource: r } = input;
  checkTypeMeta(r, input.object);
  // Built-in kinds are Go types stored as Protobuf: an empty map or list, or the zero of a
  // non-pointer field, is absent (not custom resources); so defaults then fill it, as Go's do.
  if (!r.descriptor.custom) omitEmpty(input.object, r.registration.schema);
  // Defaults with the version's write rules (a zero its round-trip annotation keeps, read-only fields).
  r.converter.setDefaults(r.registration, input.object, input.old);
  if (!r.descriptor.custom && ctx.hooks) applyTypeDefaults(input.object, r.registration.schema, ctx.hooks.defaulters);
  const meta = input.object.metadata ?? {};
  const request = admissionRequest(ctx, {
    resource: r,
    subresource: input.subresource,
    operation: input.old ? 'UPDATE' : 'CREATE',
    namespace: r.namespaced ? meta.namespace : undefined,
    name: meta.name ?? '',
    object: input.object,
    old: input.old,
    dryRun: input.dryRun ?? false,
    options: { kind: input.old ? 'UpdateOptions' : 'CreateOptions', apiVersion: 'meta.svc.io/v1', ...input.options },
  });
  const mutating = runPhase(ctx.admission, 'mutate', request);
  if (mutating) await mutating;
  const object = input.object;
  if (ctx.admission.length > 0) checkIdentity(r, object, request);
  const collector = new Collector();
  validatorOf(r.registration.schema)(object, '', collector);
  throwUndecodable(r, collector, ['FieldValueTypeInvalid', 'FieldValueRequired']);
  reportUnknownFields(ctx.warnings, input, collector.unknownFields);
  prune(object, r.registration.schema);
  const errors = [
    ...collector.errors,
    ...nameErrors(r.descriptor.nameValidation, object),
    ...labelAndAnnotationErrors(object),
    ...roundTripAnnotationErrors(r.converter, r.apiVersion, object),
  ];
  if (rulesRunAfter(r.registration, errors)) errors.push(...ctx.rules(r, object, input.old));
  if (errors.length > 0) throw invalidObject(r, object, errors);
  const validating = runPhase(ctx.admission, 'validate', request);
  if (validating) await validating;
  return object;
}

/**
 * Admission of a create on a subresource whose body is its own kind (a pod's `eviction`): the
 * object is the body, which no schema of the resource validates; both phases run.
 */
export async function admitSubresourceCreate(
  ctx: AdmissionContext,
  input: Pick<AdmissionRequest, 'resource' | 'kind' | 'subresource' | 'namespace' | 'name' | 'object' | 'dryRun'>,
): Promise<void> {
  if (ctx.admission.length === 0) return;
  const request = admissionRequest(ctx, {
    ...input,
    operation: 'CREATE',
    old: undefined,
    options: { kind: 'CreateOptions', apiVersion: 'meta.svc.io/v1', ...(input.dryRun ? { dryRun: ['All'] } : {}) },
  });
  await runPhase(ctx.admission, 'mutate', request);
  await runPhase(ctx.admission, 'validate', request);
}

/** Admission of a delete (upstream's DELETE attributes: no object, the stored one as the old object). */
export async function admitDelete(
  ctx: AdmissionContext,
  input: {
    resource: ServedResource;
    namespace: string | undefined;
    old: JsonApiObject;
    dryRun: boolean;
    options?: Record<string, unknown>;
  },
): Promise<void> {
  if (ctx.admission.length === 0) return;
  const request = admissionRequest(ctx, {
    resource: input.resource,
    subresource: undefined,
    operation: 'DELETE',
    namespace: input.namespace,
    name: input.old.metadata?.name ?? '',
    object: undefined,
    old: input.old,
    dryRun: input.dryRun,
    options: { kind: 'DeleteOptions', apiVersion: 'meta.svc.io/v1', ...input.options },
  });
  await runPhase(ctx.admission, 'mutate', request);
  await runPhase(ctx.admission, 'validate', request);
}

/**
 * A delete one of the server's own controllers makes (the garbage collector, namespace deletion),
 * admitted as upstream's controllers' API calls are: by the admission plugins, as the controller's
 * service account in kube-system. A refusal throws its Status, and the controller tries again later.
 */
export async function admitControllerDelete(
  ctx: Pick<AdmissionContext, 'rules' | 'admission'>,
  controller: string,
  input: { resource: ServedResource; namespace: string | undefined; old: JsonApiObject; propagationPolicy: string },
): Promise<void> {
  if (ctx.admission.length === 0) return;
  await admitDelete(
    { rules: ctx.rules, admission: ctx.admission, warnings: new Warnings(), user: controllerUser(controller) },
    {
      resource: input.resource,
      namespace: input.namespace,
      old: input.old,
      dryRun: false,
      options: { propagationPolicy: input.propagationPolicy },
    },
  );
}

/**
 * A create or update one of the server's own controllers makes (the service-account and root-CA
 * controllers), through defaulting, validation and the admission plugins as the controller's
 * service account in kube-system, as upstream's controllers' API calls are; or, given a user, as
 * that user (the server's own start-up objects, as `system:apiserver`). Returns the admitted object.
 */
export function admitControllerWrite(
  ctx: Pick<AdmissionContext, 'rules' | 'admission'>,
  controller: string | UserInfo,
  input: { resource: ServedResource; object: JsonApiObject; old?: JsonApiObject },
): Promise<JsonApiObject> {
  const user = typeof controller === 'string' ? controllerUser(controller) : controller;
  return admit(
    { rules: ctx.rules, admission: ctx.admission, warnings: new Warnings(), user },
    { ...input, fieldValidation: 'Ignore', duplicates: [] },
  );
}

/** The identity of a controller of kube-controller-manager: its service account in kube-system. */
function controllerUser(controller: string): UserInfo {
  return {
    username: serviceAccountUsername('kube-system', controller),
    groups: [SERVICE_ACCOUNTS_GROUP, serviceAccountsGroup('kube-system'), AUTHENTICATED_GROUP],
    extra: {},
  };
}

/**
 * What mutating admission must leave alone: the type meta (the endpoint's), the namespace (the
 * request's, upstream's 400) and, on update, the name (immutable, upstream's 422).
 */
function checkIdentity(r: ServedResource, object: JsonApiObject, request: AdmissionRequest): void {
  checkTypeMeta(r, object);
  const meta = object.metadata ?? {};
  if (r.namespaced && (meta.namespace ?? '') !== (request.namespace ?? ''))
    throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
  if (request.old && meta.name !== request.old.metadata?.name)
    throw invalidObject(r, object, [fieldInvalid('metadata.name', meta.name ?? '', 'field is immutable')]);
}

/** A body without type meta takes the endpoint's, as the real system's decoder defaults it; another is 400. */
export function checkTypeMeta(r: ServedResource, object: JsonApiObject): void {
  object.apiVersion ??= r.apiVersion;
  object.kind ??= r.kind;
  if (object.apiVersion !== r.apiVersion) {
    throw badRequest(
      `the API version in the data (${String(object.apiVersion)}) does not match the expected API version (${r.apiVersion})`,
    );
  }
  if (object.kind !== r.kind)
    throw badRequest(`the kind in the data (${String(object.kind)}) does not match the expected kind (${r.kind})`);
}

/**
 * What Go's decoder refuses before anything else runs (a field of the wrong type, bytes that are
 * not base64): a 400, as the body could not be decoded into the kind. The write handlers ask it
 * before the kind's hooks (upstream's strategies and mutating plugins see only decoded objects),
 * so no hook meets a value of the wrong shape.
 */
export function checkDecodable(r: ServedResource, object: JsonApiObject): void {
  const collector = new Collector();
  validatorOf(r.registration.schema)(object, '', collector);
  throwUndecodable(r, collector, ['FieldValueTypeInvalid']);
}

function throwUndecodable(r: ServedResource, collector: Collector, fatalTypes: readonly string[]): void {
  const fatal = collector.errors.find((e) => fatalTypes.includes(e.type) && !e.inBranch);
  if (!fatal) return;
  throw cannotBeHandledAs(r.kind, r.version, fatal);
}

/** Unknown fields and duplicate keys by `fieldValidation`: refused (Strict), warned about (Warn) or ignored. */
export function reportUnknownFields(
  warnings: Warnings,
  input: Pick<AdmitInput, 'fieldValidation' | 'duplicates'>,
  unknown: readonly string[],
): void {
  const { fieldValidation, duplicates } = input;
  if (fieldValidation === 'Ignore' || (unknown.length === 0 && duplicates.length === 0)) return;
  if (fieldValidation === 'Strict') throw strictDecodingError(unknown, duplicates);
  for (const f of unknown) warnings.add(`unknown field ${goQuote(f)}`);
  for (const f of duplicates) warnings.add(`duplicate field ${goQuote(f)}`);
}

const NAME_RULES: Record<NameValidation, (name: string) => string[]> = {
  'dns1123-subdomain': isDNS1123Subdomain,
  'dns1123-label': isDNS1123Label,
  'path-segment': isValidPathSegmentName,
};

/** `metadata.name` by the kind's declared rule (a DNS subdomain unless it declares another). */
function nameErrors(rule: NameValidation | undefined, object: JsonApiObject): FieldError[] {
  const name = object.metadata?.name;
  if (name === undefined || name === '') return [];
  return NAME_RULES[rule ?? 'dns1123-subdomain'](name).map((detail) => fieldInvalid('metadata.name', name, detail));
}

/**
 * Upstream's ValidateObjectMeta on every kind: label keys qualified names and values valid label
 * values, annotation keys qualified names and all annotations at most 256 KiB. Values that are not
 * strings are the schema's errors already.
 */
function labelAndAnnotationErrors(object: JsonApiObject): FieldError[] {
  const strings = (map: unknown) =>
    Object.fromEntries(Object.entries(map !== null && typeof map === 'object' ? map : {}).filter(([, v]) => typeof v === 'string'));
  return [...validateLabels(strings(object.metadata?.labels)), ...validateAnnotations(strings(object.metadata?.annotations))];
}

/** 422 Invalid for an object of `r`, named by its name (or generateName). */
export function invalidObject(r: ServedResource, object: JsonApiObject, errors: readonly FieldError[]): StatusError {
  return invalid(r, object.metadata?.name ?? object.metadata?.generateName ?? '', errors);
}
