import { StatusError, isDNS1123Label, isDNS1123Subdomain, isValidPathSegmentName } from '../api/index.js';
import { prune } from '../schema/index.js';
import { Collector, type FieldError, formatFieldError } from '../validate/index.js';
import type { Warnings } from './http.js';
import type { ApiObject } from './objects.js';
import type { FieldValidation } from './query.js';
import type { ServedResource } from './resources.js';

/** Runs a kind's CEL rules over an object (and its old version on update); empty when all hold. */
export type RuleChecker = (r: ServedResource, object: unknown, old: unknown) => FieldError[];

export interface AdmitInput {
  r: ServedResource;
  object: ApiObject;
  old?: ApiObject;
  fieldValidation: FieldValidation;
  /** Duplicate keys found in the request body (paths). */
  duplicates: readonly string[];
  warnings: Warnings;
  rules: RuleChecker;
}

/**
 * Decoding checks, defaulting, pruning and validation of an object about to be written, in the
 * real system's order: the type meta must match the endpoint; defaults fill absent fields; unknown
 * and duplicate fields are reported per `fieldValidation` and dropped; structural errors are 400
 * (the first one alone, without unknown-field detail), rule failures 422 listing every cause.
 */
export function admit(input: AdmitInput): ApiObject {
  const { r, object } = input;
  checkTypeMeta(r, object);
  r.registration.setDefaults(object);
  const collector = new Collector();
  r.registration.validate(object, '', collector);
  const fatal = collector.errors.find((e) => e.type === 'FieldValueTypeInvalid' || e.type === 'FieldValueRequired');
  if (fatal) {
    throw new StatusError({
      code: 400,
      reason: 'BadRequest',
      message: `${r.kind} in version "${r.version}" cannot be handled as a ${r.kind}: ${formatFieldError(fatal)}`,
      details: { causes: [{ type: fatal.type, message: formatFieldError(fatal), field: fatal.field }] },
    });
  }
  reportUnknownFields(input, collector.unknownFields);
  prune(object, r.registration.schema);
  const invalid = [...collector.errors, ...nameErrors(r, object)];
  if (invalid.length === 0) invalid.push(...input.rules(r, object, input.old));
  if (invalid.length > 0) throw invalidError(r, object, invalid);
  return object;
}

function checkTypeMeta(r: ServedResource, object: ApiObject): void {
  // A body without type meta takes the endpoint's, as the real system's decoder defaults it.
  object.apiVersion ??= r.apiVersion;
  object.kind ??= r.kind;
  if (object.apiVersion !== r.apiVersion) {
    throw badRequest(`the API version in the data (${String(object.apiVersion)}) does not match the expected API version (${r.apiVersion})`);
  }
  if (object.kind !== r.kind) throw badRequest(`the kind in the data (${String(object.kind)}) does not match the expected kind (${r.kind})`);
}

function reportUnknownFields(input: AdmitInput, unknown: readonly string[]): void {
  const { fieldValidation, duplicates, warnings } = input;
  if (fieldValidation === 'Ignore' || (unknown.length === 0 && duplicates.length === 0)) return;
  const problems = [...unknown.map((f) => `unknown field "${f}"`), ...duplicates.map((f) => `duplicate field "${f}"`)];
  if (fieldValidation === 'Strict') {
    throw new StatusError({
      code: 400,
      reason: 'BadRequest',
      message: `strict decoding error: ${problems.join(', ')}`,
      details: { causes: [...unknown.map((f) => ({ type: 'FieldValueInvalid', message: `unknown field "${f}"`, field: f })), ...duplicates.map((f) => ({ type: 'FieldValueDuplicate', message: `duplicate field "${f}"`, field: f }))] },
    });
  }
  for (const p of problems) warnings.add(p);
}

/** Object names follow the real system: namespaces and a few kinds are DNS labels, most DNS subdomains. */
function nameErrors(r: ServedResource, object: ApiObject): FieldError[] {
  const meta = object.metadata;
  const name = meta?.name;
  if (name === undefined || name === '') return [];
  const problems = r.resource === 'namespaces' ? isDNS1123Label(name) : r.resource === 'events' ? isValidPathSegmentName(name) : isDNS1123Subdomain(name);
  return problems.map((message) => ({ type: 'FieldValueInvalid', field: 'metadata.name', value: name, message }));
}

export function invalidError(r: ServedResource, object: ApiObject, errors: readonly FieldError[]): StatusError {
  const name = object.metadata?.name ?? object.metadata?.generateName ?? '';
  const rendered = errors.map(formatFieldError);
  const summary = rendered.length === 1 ? rendered[0] : `[${rendered.join(', ')}]`;
  return new StatusError({
    code: 422,
    reason: 'Invalid',
    message: `${r.kind}${r.group ? `.${r.group}` : ''} "${name}" is invalid: ${summary}`,
    details: {
      name,
      group: r.group,
      kind: r.kind,
      causes: errors.map((e) => ({ type: e.type, message: formatFieldError(e).slice(e.field.length + 2), field: e.field })),
    },
  });
}

export function badRequest(message: string): StatusError {
  return new StatusError({ code: 400, reason: 'BadRequest', message });
}
