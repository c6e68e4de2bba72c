import {
  type FieldError,
  type JsonApiObject,
  fieldInvalid,
  fieldRequired,
  isPrintable,
  isDNS1035Label,
  isDNS1123Subdomain,
} from '../../runtime/api/index.js';
import { schemaErrors } from './schema-errors.js';

/** The parts of a CustomResourceDefinition the server reads (anything may be missing or mistyped). */
export interface Definition {
  group?: unknown;
  names?: { plural?: unknown; singular?: unknown; kind?: unknown; listKind?: unknown; shortNames?: unknown; categories?: unknown };
  scope?: unknown;
  versions?: unknown;
  conversion?: { strategy?: unknown; webhook?: unknown };
  preserveUnknownFields?: unknown;
}

/**
 * What is wrong with a CustomResourceDefinition before its schemas are compiled, as upstream's
 * ValidateCustomResourceDefinition words it: its name, group, names, versions and the structural
 * rules of each version's schema. Types the generated validator reports are skipped here.
 */
export function definitionErrors(crd: JsonApiObject): FieldError[] {
  const spec = (isRecord(crd.spec) ? crd.spec : {}) as Definition;
  const errors: FieldError[] = [];
  const group = typeof spec.group === 'string' ? spec.group : '';
  const names = isRecord(spec.names) ? spec.names : {};
  const plural = typeof names.plural === 'string' ? names.plural : '';
  const name = crd.metadata?.name ?? '';
  if (plural !== '' && group !== '' && name !== `${plural}.${group}`) {
    errors.push(fieldInvalid('metadata.name', name, 'must be spec.names.plural+"."+spec.group'));
  }
  if (group === '') errors.push(fieldRequired('spec.group'));
  else if (isDNS1123Subdomain(group).length > 0) errors.push(fieldInvalid('spec.group', group, isDNS1123Subdomain(group).join(',')));
  else if (group.split('.').length < 2) errors.push(fieldInvalid('spec.group', group, 'should be a domain with at least one dot'));
  errors.push(...namesErrors(names, 'spec.names'));
  errors.push(...versionsErrors(spec.versions));
  if (spec.preserveUnknownFields === true) {
    errors.push(
      fieldInvalid(
        'spec.preserveUnknownFields',
        true,
        'cannot set to true, set x-kubernetes-preserve-unknown-fields to true in spec.versions[*].schema instead',
      ),
    );
  }
  const conversion = isRecord(spec.conversion) ? spec.conversion : {};
  if (conversion.strategy === 'Webhook' && !isRecord(conversion.webhook)) {
    errors.push(fieldRequired('spec.conversion.webhook', 'required when strategy is set to Webhook'));
  }
  // Required in v1, though its Go field decodes a missing list as empty: a validation error, as upstream.
  if (conversion.strategy === 'Webhook' && isRecord(conversion.webhook)) {
    const versions = conversion.webhook.conversionReviewVersions;
    if (!Array.isArray(versions) || versions.length === 0)
      errors.push(fieldRequired('spec.conversion.webhook.conversionReviewVersions', ''));
  }
  if (conversion.strategy !== 'Webhook' && conversion.webhook !== undefined) {
    errors.push({
      type: 'FieldValueForbidden',
      field: 'spec.conversion.webhook',
      badValue: '',
      detail: 'should not be set when strategy is not set to Webhook',
    });
  }
  return errors;
}

/**
 * What an update may not do (upstream's ValidateCustomResourceDefinitionUpdate and strategy): the
 * group and scope stay; the storage version joins `status.storedVersions` (here, as upstream's
 * PrepareForUpdate), and every stored version must stay in spec.versions, or its objects could
 * not be read.
 */
export function updateErrors(crd: JsonApiObject, old: JsonApiObject): FieldError[] {
  const spec = (isRecord(crd.spec) ? crd.spec : {}) as Definition;
  const oldSpec = (isRecord(old.spec) ? old.spec : {}) as Definition;
  const errors: FieldError[] = [];
  for (const field of ['group', 'scope'] as const) {
    if (spec[field] !== oldSpec[field]) errors.push(fieldInvalid(`spec.${field}`, spec[field], 'field is immutable'));
  }
  const versions = (Array.isArray(spec.versions) ? spec.versions : []).filter(isRecord);
  const status = isRecord(crd.status) ? crd.status : undefined;
  if (!status || !Array.isArray(status.storedVersions)) return errors;
  const stored = status.storedVersions as unknown[];
  const storage = versions.find((v) => v.storage === true)?.name;
  if (typeof storage === 'string' && !stored.includes(storage)) stored.push(storage);
  for (const [i, name] of stored.entries()) {
    if (!versions.some((v) => v.name === name))
      errors.push(fieldInvalid(`status.storedVersions[${i}]`, name, 'must appear in spec.versions'));
  }
  return errors;
}

function namesErrors(names: NonNullable<Definition['names']>, path: string): FieldError[] {
  const errors: FieldError[] = [];
  const label = (field: string, value: unknown, prefix = '') => {
    if (typeof value !== 'string' || value === '') return;
    const problems = isDNS1035Label(prefix ? value.toLowerCase() : value);
    if (problems.length > 0) errors.push(fieldInvalid(`${path}.${field}`, value, `${prefix}${problems.join(',')}`));
  };
  if (typeof names.plural !== 'string' || names.plural === '') errors.push(fieldRequired(`${path}.plural`));
  label('plural', names.plural);
  label('singular', names.singular);
  if (typeof names.kind !== 'string' || names.kind === '') errors.push(fieldRequired(`${path}.kind`));
  label('kind', names.kind, 'may have mixed case, but should otherwise match: ');
  label('listKind', names.listKind, 'may have mixed case, but should otherwise match: ');
  if (names.kind !== undefined && names.kind === names.listKind) {
    errors.push(fieldInvalid(`${path}.listKind`, names.listKind, 'kind and listKind may not be the same'));
  }
  for (const field of ['shortNames', 'categories'] as const) {
    for (const value of Array.isArray(names[field]) ? (names[field] as unknown[]) : []) {
      if (typeof value !== 'string') continue;
      const problems = isDNS1035Label(value);
      if (problems.length > 0) errors.push(fieldInvalid(`${path}.${field}`, value, problems.join(',')));
    }
  }
  return errors;
}

function versionsErrors(value: unknown): FieldError[] {
  if (!Array.isArray(value)) return [];
  if (value.length === 0) return [fieldInvalid('spec.versions', value, 'must have exactly one version marked as storage version')];
  const errors: FieldError[] = [];
  const seen = new Set<string>();
  let storage = 0;
  let unique = true;
  for (const [i, v] of value.entries()) {
    if (!isRecord(v)) continue;
    const path = `spec.versions[${i}]`;
    if (v.storage === true) storage++;
    if (typeof v.name === 'string') {
      if (seen.has(v.name)) unique = false;
      seen.add(v.name);
      const problems = isDNS1035Label(v.name);
      if (problems.length > 0) errors.push(fieldInvalid(`${path}.name`, v.name, problems.join(',')));
    }
    if (typeof v.deprecationWarning === 'string') {
      for (const problem of deprecationWarningProblems(v.deprecated === true, v.deprecationWarning))
        errors.push(fieldInvalid(`${path}.deprecationWarning`, v.deprecationWarning, problem));
    }
    const schema = isRecord(v.schema) ? v.schema.openAPIV3Schema : undefined;
    if (schema === undefined) errors.push(fieldRequired(`${path}.schema.openAPIV3Schema`, 'schemas are required'));
    else errors.push(...schemaErrors(schema, `${path}.schema.openAPIV3Schema`));
    errors.push(...subresourceErrors(v.subresources, `${path}.subresources`));
  }
  if (!unique) errors.push(fieldInvalid('spec.versions', value, 'must contain unique version names'));
  if (storage !== 1) errors.push(fieldInvalid('spec.versions', value, 'must have exactly one version marked as storage version'));
  if (!value.some((v) => isRecord(v) && v.served === true))
    errors.push(fieldInvalid('spec.versions', value, 'must have at least one served version'));
  return errors;
}

/**
 * Upstream's validateDeprecationWarning: the text goes into every response's `Warning` header, so
 * it must be short, printable UTF-8 (lengths and indexes in UTF-8 bytes, as Go counts them).
 */
function deprecationWarningProblems(deprecated: boolean, text: string): string[] {
  if (!deprecated) return ['can only be set for deprecated versions'];
  const problems: string[] = [];
  if (Buffer.byteLength(text) > 256) problems.push('must be <= 256 characters long');
  if (text === '') problems.push('must not be an empty string');
  let index = 0;
  for (const ch of text) {
    // Go tests unicode.IsPrint first, so a control character is reported as non-printable.
    if (!isPrintable(ch.codePointAt(0) ?? 0)) {
      problems.push(`must only contain printable UTF-8 characters; non-printable character found at index ${index}`);
      break;
    }
    index += Buffer.byteLength(ch);
  }
  return problems;
}

/** `scale` needs the paths of the replicas (upstream's ValidateCustomResourceDefinitionSubresources). */
function subresourceErrors(value: unknown, path: string): FieldError[] {
  if (!isRecord(value) || !isRecord(value.scale)) return [];
  const scale = value.scale;
  const errors: FieldError[] = [];
  for (const field of ['specReplicasPath', 'statusReplicasPath']) {
    const p = scale[field];
    if (typeof p !== 'string' || p === '') errors.push(fieldRequired(`${path}.scale.${field}`));
    else if (!/^\.[A-Za-z0-9_.]+$/.test(p))
      errors.push(fieldInvalid(`${path}.scale.${field}`, p, 'should be a json path under .spec or .status'));
  }
  return errors;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
