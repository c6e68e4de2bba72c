import { randomUUID } from 'node:crypto';
import { type JsonApiObject, aggregateFieldErrors, internalError, validateAnnotations, validateLabels } from '../../runtime/api/index.js';
import { httpsJson, keepAliveAgent } from '../../runtime/auth/index.js';
import { isJsonObject } from '../../runtime/json/index.js';
import type { ExternalConversion } from '../../runtime/server/index.js';
import { isRecord } from './definition-errors.js';

/** `spec.conversion.webhook` of a definition whose strategy is Webhook (validated when written). */
export interface WebhookConversionSpec {
  clientConfig?: { url?: string; service?: unknown; caBundle?: string };
  conversionReviewVersions?: string[];
}

/** The ConversionReview versions this server speaks; the first a definition lists is sent. */
const REVIEW_VERSIONS = ['v1', 'v1beta1'];

/** Upstream gives the conversion call no timeout of its own; its webhook clients stop at 30 s. */
const TIMEOUT_MS = 30_000;

/**
 * The conversion a definition with `strategy: Webhook` asks for, as upstream's webhookConverter: one
 * ConversionReview for all the objects whose version differs, sent to the configured HTTPS URL; the
 * answer is checked (uid echoed on v1, Success, one object per request in order, the desired
 * apiVersion, the same kind, name, namespace and uid) and only the labels and annotations of each
 * returned object's metadata are taken. Any failure fails the request with 500 and upstream's words.
 *
 * `reviewGroup` is the served name of `apiextensions.svc.io` (the real one under `--group-suffix k8s.io`).
 */
export function webhookConverter(webhook: WebhookConversionSpec, reviewGroup: string): ExternalConversion {
  const reviewVersion = (webhook.conversionReviewVersions ?? []).find((v) => REVIEW_VERSIONS.includes(v));
  const { url, caBundle } = webhook.clientConfig ?? {};
  const ca = caBundle && caBundle.trim() !== '' ? Buffer.from(caBundle, 'base64').toString('utf8') : undefined;
  return async (objects, desiredAPIVersion) => {
    const first = objects[0]!;
    const failed = (detail: string) => internalError(`conversion webhook for ${first.apiVersion}, Kind=${first.kind} ${detail}`);
    if (!reviewVersion) throw failed('failed: no supported conversion review versions');
    if (!url) {
      throw failed('failed: the reference server runs no cluster network to reach a service reference; use clientConfig.url');
    }
    const apiVersion = `${reviewGroup}/${reviewVersion}`;
    const uid = randomUUID();
    let answer: Awaited<ReturnType<typeof httpsJson>>;
    try {
      answer = await httpsJson(url, {
        method: 'POST',
        body: { apiVersion, kind: 'ConversionReview', request: { uid, desiredAPIVersion, objects } },
        timeoutMs: TIMEOUT_MS,
        agent: keepAliveAgent(ca),
      });
    } catch (e) {
      throw failed(`failed: Post "${url}": ${(e as Error).message}`);
    }
    if (answer.status < 200 || answer.status > 299) {
      throw failed(`failed: the server responded with the status code ${answer.status} but did not return more information`);
    }
    let converted: unknown[];
    try {
      converted = convertedObjects(answer.json, apiVersion, uid);
    } catch (e) {
      throw failed(`failed: ${(e as Error).message}`);
    }
    if (converted.length !== objects.length) throw failed(`returned ${converted.length} objects, expected ${objects.length}`);
    return objects.map((original, i) => {
      const out = converted[i];
      if (!isJsonObject(out)) throw failed(`returned invalid converted object at index ${i}: not an object`);
      const result = out as JsonApiObject;
      const mismatch = identityMismatch(original, result, desiredAPIVersion);
      if (mismatch) throw failed(`returned invalid converted object at index ${i}: ${mismatch}`);
      const metaError = restoreMetadata(original, result);
      if (metaError) throw failed(`returned invalid metadata in object at index ${i}: ${metaError}`);
      return result;
    });
  };
}

/** The response's converted objects, after upstream's checks of the review itself. */
function convertedObjects(review: unknown, apiVersion: string, uid: string): unknown[] {
  const v1 = apiVersion.endsWith('/v1');
  if (!isJsonObject(review)) throw new Error('the response is not a ConversionReview');
  if (v1 && (review.apiVersion !== apiVersion || review.kind !== 'ConversionReview')) {
    throw new Error(
      `expected webhook response of ${apiVersion}, Kind=ConversionReview, got ${String(review.apiVersion ?? '')}, Kind=${String(review.kind ?? '')}`,
    );
  }
  const response = review.response;
  if (!isJsonObject(response)) throw new Error('no response provided');
  // v1beta1 answers were never checked for their uid; upstream keeps it so.
  if (v1 && response.uid !== uid)
    throw new Error(`expected response.uid=${JSON.stringify(uid)}, got ${JSON.stringify(response.uid ?? '')}`);
  const result = isJsonObject(response.result) ? response.result : {};
  if (result.status !== 'Success') {
    if (typeof result.message === 'string' && result.message !== '') throw new Error(result.message);
    throw new Error(`response.result.status was '${String(result.status ?? '')}', not 'Success'`);
  }
  return Array.isArray(response.convertedObjects) ? response.convertedObjects : [];
}

/** What the webhook may not change: the version it was asked for, the kind, name, namespace and uid. */
function identityMismatch(original: JsonApiObject, converted: JsonApiObject, desired: string): string | undefined {
  if (converted.apiVersion !== desired) return `invalid groupVersion (expected ${desired}, received ${String(converted.apiVersion ?? '')})`;
  if (converted.kind !== original.kind) return `invalid kind (expected ${original.kind}, received ${String(converted.kind ?? '')})`;
  const before = original.metadata ?? {};
  const after = isRecord(converted.metadata) ? (converted.metadata as Record<string, unknown>) : {};
  for (const [field, label] of [
    ['name', 'name'],
    ['namespace', 'namespace'],
    ['uid', 'UID'],
  ] as const) {
    const a = before[field] ?? '';
    const b = after[field] ?? '';
    if (a !== b) return `must have the same ${label}: ${String(a)} != ${String(b)}`;
  }
  return undefined;
}

/**
 * The original metadata with the webhook's labels and annotations (validated when they changed),
 * as upstream's restoreObjectMeta: nothing else a webhook returns in metadata is kept.
 */
function restoreMetadata(original: JsonApiObject, converted: JsonApiObject): string | undefined {
  const returned = converted.metadata;
  if (returned === undefined) return 'missing metadata in converted object';
  if (!isRecord(returned)) return `invalid metadata of type ${typeof returned} in converted object`;
  const meta = structuredClone(original.metadata ?? {}) as Record<string, unknown>;
  for (const field of ['labels', 'annotations'] as const) {
    const value = (returned as Record<string, unknown>)[field];
    if (value === undefined || value === null) {
      delete meta[field];
      continue;
    }
    if (!isRecord(value)) return `invalid metadata.${field} of type ${Array.isArray(value) ? 'array' : typeof value} in converted object`;
    const entries = value as Record<string, unknown>;
    const notString = Object.keys(entries).find((k) => typeof entries[k] !== 'string');
    if (notString !== undefined)
      return `metadata.${field}[${notString}] must be a string, but is ${typeof entries[notString]} in converted object`;
    const strings = entries as Record<string, string>;
    if (JSON.stringify(strings) !== JSON.stringify(meta[field] ?? {})) {
      const errors = field === 'labels' ? validateLabels(strings) : validateAnnotations(strings, 'metadata.annotation');
      if (errors.length > 0) return aggregateFieldErrors(errors);
    }
    meta[field] = strings;
  }
  converted.metadata = meta as JsonApiObject['metadata'];
  return undefined;
}
