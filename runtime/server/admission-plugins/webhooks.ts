import { randomUUID } from 'node:crypto';
import { type JsonApiObject, StatusError, badRequest, internalError } from '../../api/index.js';
import { httpsJson, keepAliveAgent, userInfoObject } from '../../auth/index.js';
import { isJsonObject, jsonEqual, type JsonValue } from '../../json/index.js';
import { applyJsonPatch } from '../../patch/index.js';
import { base64Error } from '../../validate/index.js';
import type { AdmissionHost, AdmissionPlugin, AdmissionRequest } from '../admission.js';
import { type ConfiguredWebhook, webhookConfigurations } from './webhook-configs.js';
import {
  conditionsMatch,
  isExempt,
  matchedResource,
  namespaceSelectorMatches,
  objectSelectorMatches,
  requestAtVersion,
} from './webhook-match.js';

export interface WebhookAdmissionOptions {
  /** Logs webhooks that failed open (failurePolicy Ignore); default stderr. */
  log?: (line: string) => void;
}

/** A webhook call that failed (transport, timeout, bad answer): the failure policy decides. */
class CallError extends Error {}

type Phase = 'mutating' | 'validating';

/** Upstream's annotation keys, as the spec names their group (served under the server's suffix). */
const FAILED_OPEN = {
  mutating: 'failed-open.mutation.webhook.admission.svc.io',
  validating: 'failed-open.validating.webhook.admission.svc.io',
};
const MUTATION_ANNOTATION = 'mutation.webhook.admission.svc.io';

/**
 * MutatingAdmissionWebhook: calls the mutating webhooks that match the request, in the order of
 * their configurations' names and then of the list; applies each JSON patch and defaults the
 * object again; calls once more, at the end, each `IfNeeded` webhook the object changed after.
 */
export function mutatingWebhookAdmission(options: WebhookAdmissionOptions = {}): (host: AdmissionHost) => AdmissionPlugin {
  return (host) => {
    const configs = webhookConfigurations(host, 'mutatingwebhookconfigurations');
    const call = caller(host, 'mutating', options);
    const callAll = async (request: AdmissionRequest): Promise<void> => {
      const called: Array<{ webhook: ConfiguredWebhook; index: number; changedAfter: boolean }> = [];
      const webhooks = await configs.current();
      for (const [index, webhook] of webhooks.entries()) {
        const changed = await call(webhook, request, 0, index);
        if (changed === undefined) continue;
        if (changed) for (const c of called) c.changedAfter = true;
        called.push({ webhook, index, changedAfter: false });
      }
      for (const c of called) {
        if (c.changedAfter && c.webhook.spec.reinvocationPolicy === 'IfNeeded') await call(c.webhook, request, 1, c.index);
      }
    };
    return {
      name: 'MutatingAdmissionWebhook',
      stored: (key) => configs.stored(key),
      mutate: (request) => (isExempt(request, host) || configs.currentNow()?.length === 0 ? undefined : callAll(request)),
    };
  };
}

/** ValidatingAdmissionWebhook: calls the validating webhooks that match; any denial refuses the request. */
export function validatingWebhookAdmission(options: WebhookAdmissionOptions = {}): (host: AdmissionHost) => AdmissionPlugin {
  return (host) => {
    const configs = webhookConfigurations(host, 'validatingwebhookconfigurations');
    const call = caller(host, 'validating', options);
    const callAll = async (request: AdmissionRequest): Promise<void> => {
      for (const [index, webhook] of (await configs.current()).entries()) await call(webhook, request, 0, index);
    };
    return {
      name: 'ValidatingAdmissionWebhook',
      stored: (key) => configs.stored(key),
      validate: (request) => (isExempt(request, host) || configs.currentNow()?.length === 0 ? undefined : callAll(request)),
    };
  };
}

/**
 * Calls one webhook if it matches: undefined when it was not called, else whether it changed the
 * object. A denial throws its Status; a failed call throws 500 (Fail) or is recorded (Ignore).
 */
function caller(host: AdmissionHost, phase: Phase, options: WebhookAdmissionOptions) {
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  return async (webhook: ConfiguredWebhook, request: AdmissionRequest, round: number, index: number): Promise<boolean | undefined> => {
    const spec = webhook.spec;
    const target = matchedResource(spec.rules, spec.matchPolicy, request, host);
    if (!target || !objectSelectorMatches(spec.objectSelector, request)) return undefined;
    if (!(await namespaceSelectorMatches(host, spec.namespaceSelector, request))) return undefined;
    const version = (spec.admissionReviewVersions ?? []).find((v) => v === 'v1' || v === 'v1beta1');
    // The webhook sees the request at the version it matched (converted), and what was asked as requestKind.
    const seen = await requestAtVersion(request, target);
    const payload = reviewRequest(seen, host, request);
    try {
      const matched = conditionsMatch(webhook.conditions, seen, payload);
      if (matched instanceof Error) throw new CallError(matched.message);
      if (!matched) return undefined;
      // A dry run must not reach a webhook with side effects (checked once it is known to be called).
      if (request.dryRun && spec.sideEffects !== 'None' && spec.sideEffects !== 'NoneOnDryRun')
        throw badRequest(`admission webhook ${JSON.stringify(spec.name)} does not support dry run`);
      if (!version)
        throw new CallError(`webhook does not accept known AdmissionReview versions ${JSON.stringify(spec.admissionReviewVersions ?? [])}`);
      const response = await observed(host, spec.name, phase, request, () =>
        // AdmissionReview in the served admission group (admission.k8s.io under --group-suffix k8s.io).
        send(spec, host.registry.servedApiVersion(`${ADMISSION_GROUP}/${version}`), payload),
      );
      // The patch is []byte in Go: a response whose patch is not base64 does not decode, a failed call.
      const undecodable = typeof response.patch === 'string' ? base64Error(response.patch) : undefined;
      if (undecodable) throw new CallError(`failed to call webhook: ${undecodable}`);
      for (const w of response.warnings ?? []) if (typeof w === 'string' && w !== '') request.warnings.add(w);
      for (const [key, value] of Object.entries(response.auditAnnotations ?? {}))
        request.auditAnnotations[`${spec.name}/${key}`] = String(value);
      if (!response.allowed) throw denial(spec.name, response.status);
      if (response.patch === undefined || response.patch === '') return false;
      if (phase === 'validating')
        throw new CallError('received invalid webhook response: validating webhooks may not return response.patch');
      if (response.patchType !== 'JSONPatch')
        throw new CallError(
          `received invalid webhook response: webhook returned invalid response.patchType of ${JSON.stringify(response.patchType ?? '')}`,
        );
      const changed = applyPatch(seen, response.patch);
      if (changed && seen !== request)
        replaceContents(request.object!, await request.resource.converter.convert(seen.object!, request.resource.apiVersion));
      request.auditAnnotations[host.registry.servedApiVersion(`${MUTATION_ANNOTATION}/round_${round}_index_${index}`)] = JSON.stringify({
        configuration: webhook.configuration,
        webhook: spec.name,
        mutated: changed,
      });
      return changed;
    } catch (e) {
      if (!(e instanceof CallError)) throw e;
      const message = `failed calling webhook ${JSON.stringify(spec.name)}: ${e.message}`;
      if (spec.failurePolicy === 'Ignore') {
        log(`svckit serve: failing open: ${message}`);
        request.auditAnnotations[host.registry.servedApiVersion(`${FAILED_OPEN[phase]}/round_${round}_index_${index}`)] = spec.name;
        return undefined;
      }
      throw internalError(message);
    }
  };
}

/**
 * One webhook call, observed as upstream's metrics do: its latency (with whether it rejected the
 * request) and, for a rejection or a failed call, the rejection counter.
 */
async function observed(
  host: AdmissionHost,
  name: string,
  phase: Phase,
  request: AdmissionRequest,
  call: () => Promise<ReviewResponse>,
): Promise<ReviewResponse> {
  const metrics = host.metrics;
  if (!metrics) return call();
  const type = phase === 'mutating' ? 'admit' : 'validating';
  const labels = { name, type, operation: request.operation };
  const started = performance.now();
  let response: ReviewResponse | undefined;
  try {
    response = await call();
    return response;
  } finally {
    const rejected = response === undefined || response.allowed !== true;
    metrics.admissionWebhookDuration.observe({ ...labels, rejected: String(rejected) }, (performance.now() - started) / 1000);
    if (rejected) {
      const code = response === undefined ? 0 : Math.min(response.status?.code ?? 400, 600);
      const errorType = response === undefined ? 'calling_webhook_error' : 'no_error';
      metrics.admissionWebhookRejections.inc({ ...labels, error_type: errorType, rejection_code: String(code) });
    }
  }
}

interface ReviewResponse {
  uid?: unknown;
  allowed?: unknown;
  status?: { code?: number; message?: string; reason?: string };
  patch?: string;
  patchType?: string;
  warnings?: unknown[];
  auditAnnotations?: Record<string, unknown>;
}

/**
 * `AdmissionReview.request` for the request, as upstream builds it from the admission attributes.
 * The resource and kind groups are already the served ones; the options' apiVersion is named here.
 */
export function reviewRequest(request: AdmissionRequest, host: AdmissionHost, asked: AdmissionRequest = request): Record<string, unknown> {
  const kindOf = (a: AdmissionRequest) => a.kind ?? { group: a.resource.group, version: a.resource.version, kind: a.resource.kind };
  const resourceOf = ({ resource: r }: AdmissionRequest) => ({ group: r.group, version: r.version, resource: r.resource });
  return {
    uid: randomUUID(),
    kind: kindOf(request),
    resource: resourceOf(request),
    ...(request.subresource ? { subResource: request.subresource } : {}),
    requestKind: kindOf(asked),
    requestResource: resourceOf(asked),
    ...(request.subresource ? { requestSubResource: request.subresource } : {}),
    ...(request.name ? { name: request.name } : {}),
    ...(request.namespace ? { namespace: request.namespace } : {}),
    operation: request.operation,
    userInfo: userInfoObject(request.user),
    object: request.object ?? null,
    oldObject: request.old ?? null,
    dryRun: request.dryRun,
    options:
      typeof request.options.apiVersion === 'string'
        ? { ...request.options, apiVersion: host.registry.servedApiVersion(request.options.apiVersion) }
        : request.options,
  };
}

/** The group of AdmissionReview, as the spec names it. */
const ADMISSION_GROUP = 'admission.svc.io';

async function send(spec: ConfiguredWebhook['spec'], apiVersion: string, payload: Record<string, unknown>): Promise<ReviewResponse> {
  const url = spec.clientConfig.url;
  if (!url)
    throw new CallError(
      'failed to call webhook: the reference server runs no cluster network to reach a service reference; use clientConfig.url',
    );
  const timeoutSeconds = spec.timeoutSeconds ?? 10;
  const ca = spec.clientConfig.caBundle ? Buffer.from(spec.clientConfig.caBundle, 'base64').toString('utf8') : undefined;
  let answer: Awaited<ReturnType<typeof httpsJson>>;
  try {
    answer = await httpsJson(`${url}${url.includes('?') ? '&' : '?'}timeout=${timeoutSeconds}s`, {
      method: 'POST',
      body: { apiVersion, kind: 'AdmissionReview', request: payload },
      timeoutMs: timeoutSeconds * 1000,
      agent: keepAliveAgent(ca),
    });
  } catch (e) {
    throw new CallError(`failed to call webhook: ${(e as Error).message}`);
  }
  if (answer.status !== 200) throw new CallError(`failed to call webhook: the server responded with the status code ${answer.status}`);
  const review = answer.json;
  if (!isJsonObject(review) || review.kind !== 'AdmissionReview' || review.apiVersion !== apiVersion)
    throw new CallError(`received invalid webhook response: expected webhook response of ${apiVersion}, Kind=AdmissionReview`);
  const response = review.response;
  if (!isJsonObject(response)) throw new CallError('received invalid webhook response: webhook response was absent');
  if (response.uid !== payload.uid)
    throw new CallError(
      `received invalid webhook response: expected response.uid=${JSON.stringify(payload.uid)}, got ${JSON.stringify(response.uid ?? '')}`,
    );
  if (typeof response.allowed !== 'boolean') throw new CallError('received invalid webhook response: response.allowed is not a boolean');
  return response as ReviewResponse;
}

/** Upstream's ToStatusErr: `admission webhook "<name>" denied the request: <message>`, at least 400. */
function denial(name: string, status: ReviewResponse['status']): StatusError {
  const deniedBy = `admission webhook ${JSON.stringify(name)} denied the request`;
  const code = typeof status?.code === 'number' && status.code >= 400 ? status.code : 400;
  const detail = status?.message || status?.reason;
  return new StatusError({
    code,
    reason: status?.reason ?? '',
    message: detail ? `${deniedBy}: ${detail}` : `${deniedBy} without explanation`,
  });
}

/** Applies a base64 JSON Patch to the request's object in place and defaults it again; true when it changed. */
function applyPatch(request: AdmissionRequest, patch: string): boolean {
  const object = request.object;
  if (!object) return false;
  let patched: unknown;
  try {
    patched = applyJsonPatch(object, JSON.parse(Buffer.from(patch, 'base64').toString('utf8')));
  } catch (e) {
    throw internalError(e);
  }
  if (!isJsonObject(patched)) throw internalError('the webhook patch did not leave an object');
  // Defaulted again with the version's write rules, as the first defaulting in admit().
  if (!request.kind)
    request.resource.converter.setDefaults(request.resource.registration, patched as unknown as JsonApiObject, request.old);
  if (jsonEqual(object as unknown as JsonValue, patched)) return false;
  replaceContents(object, patched as unknown as JsonApiObject);
  return true;
}

/**
 * The write handlers hold the object and its metadata: the patched object replaces their contents,
 * not the references.
 */
function replaceContents(target: JsonApiObject, source: JsonApiObject): void {
  const meta = target.metadata;
  for (const key of Object.keys(target)) delete (target as Record<string, unknown>)[key];
  Object.assign(target, source);
  if (meta && isJsonObject(source.metadata)) {
    for (const key of Object.keys(meta)) delete (meta as Record<string, unknown>)[key];
    Object.assign(meta, source.metadata);
    target.metadata = meta;
  }
}
