import { type JsonApiObject, type LabelSelectorObject, labelSelectorFromObject } from '../../api/index.js';
import type { AdmissionHost, AdmissionRequest } from '../admission.js';
import type { ServedResource } from '../resources.js';
import { objectKey, decodeObject } from '../objects.js';
import { ADMISSION_REGISTRATION_GROUP, type ConfiguredWebhook, type WebhookSpec } from './webhook-configs.js';

/**
 * Resources never sent to webhooks, so that a broken webhook cannot lock out its own repair (as
 * upstream's IsExemptAdmissionConfigurationResource).
 */
const EXEMPT = new Set([
  'mutatingwebhookconfigurations',
  'validatingwebhookconfigurations',
  'validatingadmissionpolicies',
  'validatingadmissionpolicybindings',
]);

export function isExempt(request: AdmissionRequest, host: Pick<AdmissionHost, 'registry'>): boolean {
  return request.resource.group === host.registry.servedGroup(ADMISSION_REGISTRATION_GROUP) && EXEMPT.has(request.resource.resource);
}

/**
 * The resource a webhook or policy is called for: the request's own when a rule names it;
 * otherwise, under `matchPolicy: Equivalent` (the default), the first other served version of the
 * same resource (with the subresource) a rule names, as upstream's equivalent-resource matching;
 * the object is then sent converted to that version ({@link requestAtVersion}). Undefined: not
 * called. A subresource whose body has a kind of its own (an Eviction, a Scale) matches its exact
 * version only.
 */
export function matchedResource(
  rules: WebhookSpec['rules'],
  matchPolicy: string | undefined,
  request: AdmissionRequest,
  host: Pick<AdmissionHost, 'registry'>,
): ServedResource | undefined {
  const r = request.resource;
  if (rulesMatch(rules, request, r)) return r;
  if (matchPolicy === 'Exact' || request.kind) return undefined;
  return host.registry
    .resources()
    .find(
      (other) =>
        other !== r &&
        other.group === r.group &&
        other.resource === r.resource &&
        (!request.subresource || other.subresources.has(request.subresource)) &&
        rulesMatch(rules, request, other),
    );
}

/**
 * The request as a webhook or policy that matched another version of its resource sees it: the
 * object and the old object converted to that version (through the resource's conversion, a
 * custom resource's webhook included).
 */
export async function requestAtVersion(request: AdmissionRequest, target: ServedResource): Promise<AdmissionRequest> {
  if (target === request.resource) return request;
  const convert = async (o: JsonApiObject | undefined) => (o ? target.converter.convert(structuredClone(o), target.apiVersion) : undefined);
  return { ...request, resource: target, object: await convert(request.object), old: await convert(request.old) };
}

/** Whether one of the rules covers the request at `r` (operation, group, version, resource/subresource, scope). */
export function rulesMatch(rules: WebhookSpec['rules'], request: AdmissionRequest, r: ServedResource = request.resource): boolean {
  return (rules ?? []).some(
    (rule) =>
      listMatches(rule.operations, request.operation) &&
      listMatches(rule.apiGroups, r.group) &&
      listMatches(rule.apiVersions, r.version) &&
      (rule.resources ?? []).some((entry) => resourceMatches(entry, r.resource, request.subresource ?? '')) &&
      scopeMatches(rule.scope ?? '*', request),
  );
}

function listMatches(list: readonly string[] | undefined, value: string): boolean {
  return (list ?? []).some((x) => x === '*' || x === value);
}

/** `pods`, `pods/status`, `pods/*`, `*` (resources, no subresource), `*\/status`, `*\/*`. */
function resourceMatches(entry: string, resource: string, subresource: string): boolean {
  const slash = entry.indexOf('/');
  const res = slash < 0 ? entry : entry.slice(0, slash);
  const sub = slash < 0 ? '' : entry.slice(slash + 1);
  return (res === '*' || res === resource) && (sub === '*' || sub === subresource);
}

function scopeMatches(scope: string, request: AdmissionRequest): boolean {
  if (scope === '*') return true;
  // A namespace itself is cluster-scoped.
  const namespaced = request.resource.namespaced;
  return scope === 'Namespaced' ? namespaced : !namespaced;
}

/** The object's labels (new or old: either matching is enough, as upstream). */
export function objectSelectorMatches(selector: LabelSelectorObject | undefined, request: AdmissionRequest): boolean {
  if (!selector || Object.keys(selector).length === 0) return true;
  const s = labelSelectorFromObject(selector);
  return [request.object, request.old].some((o) => o !== undefined && s.matches(o.metadata?.labels ?? {}));
}

/**
 * The labels of the request's namespace (of the namespace itself when the request is about one);
 * requests about other cluster-scoped objects always match, as upstream.
 */
export async function namespaceSelectorMatches(
  host: AdmissionHost,
  selector: LabelSelectorObject | undefined,
  request: AdmissionRequest,
): Promise<boolean> {
  if (!selector || Object.keys(selector).length === 0) return true;
  const s = labelSelectorFromObject(selector);
  const r = request.resource;
  if (r.group === '' && r.resource === 'namespaces') {
    const ns = request.object ?? request.old;
    return s.matches(ns?.metadata?.labels ?? {});
  }
  if (!r.namespaced || !request.namespace) return true;
  return s.matches((await readNamespace(host, request.namespace))?.metadata?.labels ?? {});
}

async function readNamespace(host: AdmissionHost, name: string): Promise<JsonApiObject | undefined> {
  const r = host.registry.get('', 'v1', 'namespaces');
  if (!r) return undefined;
  const kv = await host.store.get(objectKey(r, undefined, name));
  return kv ? await decodeObject(kv, r) : undefined;
}

/**
 * The match conditions: all true sends the request, any false skips the webhook; an error is
 * returned (the failure policy decides).
 */
export function conditionsMatch(
  conditions: ConfiguredWebhook['conditions'],
  request: AdmissionRequest,
  payload: Record<string, unknown>,
): boolean | Error {
  for (const { name, program } of conditions) {
    if (program instanceof Error) return new Error(`compilation of match condition ${JSON.stringify(name)} failed: ${program.message}`);
    let value: unknown;
    try {
      value = program.evaluate({ object: request.object ?? null, oldObject: request.old ?? null, request: payload });
    } catch (e) {
      return new Error(`evaluation of match condition ${JSON.stringify(name)} failed: ${(e as Error).message}`);
    }
    if (value !== true && value !== false) return new Error(`match condition ${JSON.stringify(name)} did not evaluate to a bool`);
    if (!value) return false;
  }
  return true;
}
