import {
  type FieldError,
  type JsonApiObject,
  type StatusError,
  badRequest,
  fieldErrorMessage,
  fieldInvalid,
  invalid,
  isDNS1123Label,
  isDNS1123Subdomain,
  isValidPathSegmentName,
  strictDecodingError,
} from '../api/index.js';
import { rulesRunAfter } from '../cel/index.js';
import { type NameValidation, omitEmpty, prune } from '../schema/index.js';
import { Collector } from '../validate/index.js';
import { roundTripAnnotationErrors } from './conversion.js';
import type { Warnings } from './http.js';
import type { FieldValidation } from './query.js';
import type { ServedResource } from './resources.js';

/** Runs a kind's CEL rules over an object (and its old version on update); empty when all hold. */
export type RuleChecker = (r: ServedResource, object: unknown, old: unknown) => FieldError[];

/** An object on its way to storage, as admission plugins see it (upstream's admission attributes). */
export interface AdmissionRequest {
  resource: ServedResource;
  operation: 'CREATE' | 'UPDATE';
  object: JsonApiObject;
  /** The stored object, on update. */
  old: JsonApiObject | undefined;
}

/**
 * An admission plugin (upstream's `admission.Interface`): mutating plugins may change the object
 * after defaulting and before validation; validating plugins may refuse it after validation.
 * Refusing is throwing a Status error. The reference server configures none: admission passes
 * every object through unchanged.
 */
export interface AdmissionPlugin {
  readonly name: string;
  mutate?(request: AdmissionRequest): Promise<void>;
  validate?(request: AdmissionRequest): Promise<void>;
}

/** What admission reads from the server and the request. */
export interface AdmissionContext {
  rules: RuleChecker;
  admission: readonly AdmissionPlugin[];
  warnings: Warnings;
}

export interface AdmitInput {
  resource: ServedResource;
  object: JsonApiObject;
  old?: JsonApiObject;
  fieldValidation: FieldValidation;
  /** Duplicate keys found in the request body (paths). */
  duplicates: readonly string[];
}

/**
 * Decoding checks, defaulting, mutating admission, pruning, validation and validating admission
 * of an object about to be written, in the real system's order: the type meta must match the
 * endpoint; defaults fill absent fields; unknown and duplicate fields are reported per
 * `fieldValidation` and dropped; structural errors are 400 (the first one alone, without
 * unknown-field detail), rule failures 422 listing every cause.
 */
export async function admit(ctx: AdmissionContext, input: AdmitInput): Promise<JsonApiObject> {
  const { resource: r, object } = input;
  checkTypeMeta(r, object);
  // Defaults with the version's write rules (a zero its round-trip annotation keeps, read-only fields).
  r.converter.setDefaults(r.registration, object, input.old);
  // Built-in kinds are Go types stored as Protobuf: an empty map or list is absent (not custom resources).
  if (!r.descriptor.custom) omitEmpty(object, r.registration.schema);
  const request: AdmissionRequest = { resource: r, operation: input.old ? 'UPDATE' : 'CREATE', object, old: input.old };
  for (const plugin of ctx.admission) await plugin.mutate?.(request);
  const collector = new Collector();
  r.registration.validate(object, '', collector);
  const fatal = collector.errors.find((e) => e.type === 'FieldValueTypeInvalid' || e.type === 'FieldValueRequired');
  if (fatal) {
    const message = fieldErrorMessage(fatal);
    throw badRequest(`${r.kind} in version "${r.version}" cannot be handled as a ${r.kind}: ${message}`, [
      { type: fatal.type, message, field: fatal.field },
    ]);
  }
  reportUnknownFields(ctx.warnings, input, collector.unknownFields);
  prune(object, r.registration.schema);
  const errors = [
    ...collector.errors,
    ...nameErrors(r.descriptor.nameValidation, object),
    ...roundTripAnnotationErrors(r.converter, r.apiVersion, object),
  ];
  if (rulesRunAfter(r.registration, errors)) errors.push(...ctx.rules(r, object, input.old));
  if (errors.length > 0) throw invalidObject(r, object, errors);
  for (const plugin of ctx.admission) await plugin.validate?.(request);
  return object;
}

function checkTypeMeta(r: ServedResource, object: JsonApiObject): void {
  // A body without type meta takes the endpoint's, as the real system's decoder defaults it.
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

/** Unknown fields and duplicate keys by `fieldValidation`: refused (Strict), warned about (Warn) or ignored. */
export function reportUnknownFields(
  warnings: Warnings,
  input: Pick<AdmitInput, 'fieldValidation' | 'duplicates'>,
  unknown: readonly string[],
): void {
  const { fieldValidation, duplicates } = input;
  if (fieldValidation === 'Ignore' || (unknown.length === 0 && duplicates.length === 0)) return;
  if (fieldValidation === 'Strict') throw strictDecodingError(unknown, duplicates);
  for (const f of unknown) warnings.add(`unknown field "${f}"`);
  for (const f of duplicates) warnings.add(`duplicate field "${f}"`);
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

/** 422 Invalid for an object of `r`, named by its name (or generateName). */
export function invalidObject(r: ServedResource, object: JsonApiObject, errors: readonly FieldError[]): StatusError {
  return invalid(r, object.metadata?.name ?? object.metadata?.generateName ?? '', errors);
}
