/**
 * The kind of a subresource's requests when it is not the resource's own (upstream's
 * `NamedCreater`/`GroupVersionKindProvider`): `serviceaccounts/token` takes an
 * `authentication/v1 TokenRequest`, `pods/eviction` a `policy/v1 Eviction`, `<workload>/scale` an
 * `autoscaling/v1 Scale`. Declared with the subresource in the registration; discovery lists it,
 * and a body sent to the subresource is decoded, defaulted, validated and admitted as that kind
 * before the subresource's handler sees it.
 */
import {
  type JsonApiObject,
  SPEC_GROUP_SUFFIX,
  apiVersionWithSuffix,
  badRequest,
  cannotBeHandledAs,
  groupWithSuffix,
  invalid,
} from '../api/index.js';
import { type KindRegistration, defaulterOf, omitEmpty, validatorOf } from '../schema/index.js';
import { Collector } from '../validate/index.js';
import { admitSubresourceCreate } from './admission.js';
import type { RequestContext, Target } from './context.js';
import type { Body } from './body.js';
import { writeOptions } from './query.js';
import type { ResourceRegistry, ServedResource } from './resources.js';

/** A subresource's request kind, under the served group name. */
export interface RequestKind {
  group: string;
  version: string;
  kind: string;
  apiVersion: string;
}

/** The scale subresource of a kind that declares replica paths (a CRD's), as upstream's. */
const SCALE_KIND = 'autoscaling/v1 Scale';
/** What discovery lists for the scale subresource; for subresources served by the generic object verbs (`status`); and for a handler that declares no verbs. */
const SCALE_VERBS = ['get', 'patch', 'update'] as const;
const GENERIC_VERBS = SCALE_VERBS;
const HANDLER_VERBS = ['get'] as const;

/** The kind `r`'s `subresource` takes and answers, when it is not `r`'s own. */
export function subresourceKind(registry: ResourceRegistry, r: ServedResource, subresource: string): RequestKind | undefined {
  const declared =
    r.descriptor.subresourceHandlers?.[subresource]?.kind ?? (subresource === 'scale' && r.descriptor.scale ? SCALE_KIND : undefined);
  if (declared === undefined) return undefined;
  const [specApiVersion = '', kind = ''] = declared.split(' ');
  const apiVersion = apiVersionWithSuffix(specApiVersion, registry.groupSuffix);
  const slash = apiVersion.lastIndexOf('/');
  return { group: slash < 0 ? '' : apiVersion.slice(0, slash), version: apiVersion.slice(slash + 1), kind, apiVersion };
}

/** The verbs discovery lists for `r`'s `subresource`. */
export function subresourceVerbs(r: ServedResource, subresource: string): readonly string[] {
  const declared = r.descriptor.subresourceHandlers?.[subresource];
  if (declared) return declared.verbs ?? HANDLER_VERBS;
  return subresource === 'scale' ? SCALE_VERBS : GENERIC_VERBS;
}

/**
 * A subresource request's body checked as its declared kind, as upstream's create handler decodes
 * into the kind the storage names: the kind must be it (400); the apiVersion, when given, the
 * kind's served one, its real system's name (kubectl's typed clients send it, whatever the
 * server's groups) or another version of the group that has the kind; then defaults, and
 * validation (a value of the wrong type 400, other errors 422). A POST is then admitted as a
 * create of the subresource. The object is changed in place and returned.
 */
export async function checkRequestBody(ctx: RequestContext, t: Target, body: Body, kind: RequestKind): Promise<JsonApiObject> {
  const object = body.object;
  const article = /^[AEIOU]/.test(kind.kind) ? 'an' : 'a';
  if (object.kind !== undefined && object.kind !== kind.kind)
    throw badRequest(`expected ${article} ${kind.kind} body, found kind ${JSON.stringify(object.kind)}`);
  const registration = registrationOf(ctx.registry, kind, object.apiVersion);
  if (registration) {
    // Go's decoding leaves a null (a pointer's nil) or, as admission does, an empty value unset, so defaults fill it.
    dropNulls(object);
    omitEmpty(object, registration.schema);
    defaulterOf(registration.schema)(object);
    const collector = new Collector();
    // The apiVersion is checked above under the served group name (the schema's enum knows the
    // spec's); the status is the server's to fill (kubectl sends an empty one), not checked.
    const { apiVersion: _checked, status: _output, ...requested } = object;
    validatorOf(registration.schema)(requested, '', collector);
    // An embedded object's type meta (an Eviction's `deleteOptions.apiVersion`, which clients write
    // as `v1`) is not read: upstream decodes into the Go struct, which ignores it.
    const errors = collector.errors.filter((e) => !/\.(apiVersion|kind)$/.test(e.field));
    const undecodable = errors.find((e) => e.type === 'FieldValueTypeInvalid');
    if (undecodable) throw cannotBeHandledAs(kind.kind, registration.version, undecodable);
    if (errors.length > 0) throw invalid({ group: kind.group, kind: kind.kind }, '', errors);
  }
  if (ctx.req.method === 'POST') {
    await admitSubresourceCreate(ctx, {
      resource: t.resource,
      kind: { group: kind.group, version: kind.version, kind: kind.kind },
      subresource: t.subresource,
      namespace: t.namespace,
      name: t.name ?? '',
      object,
      dryRun: writeOptions(ctx.req.query, ctx.req.method).dryRun,
    });
  }
  return object;
}

/** The registration the body is read as: the declared kind's, or that of the version of its group the body names. */
function registrationOf(registry: ResourceRegistry, kind: RequestKind, given: unknown): KindRegistration | undefined {
  const declared = registry.registration(kind.apiVersion, kind.kind);
  if (given === undefined || given === kind.apiVersion) return declared;
  const realName = groupWithSuffix(specGroupOf(registry, kind.group), 'k8s.io');
  if (given === `${realName}/${kind.version}` || (kind.group === '' && given === kind.version)) return declared;
  const other = typeof given === 'string' ? given.slice(0, given.lastIndexOf('/') + 1) : undefined;
  const sameGroup = other !== undefined && (other === `${kind.group}/` || other === `${realName}/`);
  const registration = sameGroup ? registry.registration(`${kind.group}/${(given as string).slice(other.length)}`, kind.kind) : undefined;
  if (registration) return registration;
  throw badRequest(`the API version in the data (${String(given)}) does not match the expected API version (${kind.apiVersion})`);
}

/** The spec's name of a served group (`authentication.k8s.io` → `authentication.svc.io` under `--group-suffix k8s.io`). */
function specGroupOf(registry: ResourceRegistry, group: string): string {
  const suffix = registry.groupSuffix;
  return group.endsWith(`.${suffix}`) ? `${group.slice(0, -suffix.length)}${SPEC_GROUP_SUFFIX}` : group;
}

/** Removes every member whose value is null, at any depth (a list keeps its null elements). */
function dropNulls(value: unknown): void {
  if (value === null || typeof value !== 'object') return;
  if (Array.isArray(value)) {
    for (const v of value) dropNulls(v);
    return;
  }
  const members = value as Record<string, unknown>;
  for (const [key, v] of Object.entries(members)) {
    if (v === null) delete members[key];
    else dropNulls(v);
  }
}
