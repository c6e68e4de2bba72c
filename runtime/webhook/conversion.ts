import { cloneJson, isJsonObject, type JsonValue } from '../json/index.js';
import { type JsonHandler, WebhookRequestError } from './handler.js';
import type { ConversionReview } from './types.js';

/**
 * The ConversionReview versions the kit reads, answering in the same one: the spec's group and the
 * real system's (a server started with `--group-suffix k8s.io`, or a real cluster, sends apiextensions.k8s.io).
 */
export const CONVERSION_REVIEW_API_VERSIONS = [
  'apiextensions.svc.io/v1',
  'apiextensions.svc.io/v1beta1',
  'apiextensions.k8s.io/v1',
  'apiextensions.k8s.io/v1beta1',
] as const;

/**
 * Converts one object to `desiredAPIVersion`. It gets its own copy; changing it in place or
 * returning another object both work. The kit sets `apiVersion` to the desired one; throwing
 * fails the whole review with the error's message, as the server expects.
 */
export type ConversionHandler = (
  object: Record<string, unknown>,
  desiredAPIVersion: string,
) => Record<string, unknown> | undefined | Promise<Record<string, unknown> | undefined>;

/**
 * A CRD conversion webhook: reads a ConversionReview, converts every object with `handler`, and
 * answers with the request's uid echoed, the converted objects in the request's order and
 * `result.status` Success, or Failure with the message when the handler throws. Change only the
 * fields that differ between versions: the server keeps each object's name, namespace and uid and
 * takes only labels and annotations from the returned metadata.
 */
export function conversionWebhook(handler: ConversionHandler): JsonHandler {
  return async (body) => {
    const review = readReview(body);
    const { uid, desiredAPIVersion, objects } = review.request;
    const answer = (response: NonNullable<ConversionReview['response']>): ConversionReview => ({
      apiVersion: review.apiVersion,
      kind: 'ConversionReview',
      response,
    });
    try {
      const convertedObjects: Record<string, unknown>[] = [];
      for (const object of objects) {
        const copy = cloneJson(object as JsonValue) as Record<string, unknown>;
        const converted = (await handler(copy, desiredAPIVersion)) ?? copy;
        convertedObjects.push({ ...converted, apiVersion: desiredAPIVersion });
      }
      return answer({ uid, convertedObjects, result: { status: 'Success' } });
    } catch (e) {
      return answer({ uid, convertedObjects: [], result: { status: 'Failure', message: e instanceof Error ? e.message : String(e) } });
    }
  };
}

function readReview(body: unknown): ConversionReview & { request: NonNullable<ConversionReview['request']> } {
  if (!isJsonObject(body) || body.kind !== 'ConversionReview')
    throw new WebhookRequestError('expected a ConversionReview (kind ConversionReview)');
  if (!(CONVERSION_REVIEW_API_VERSIONS as readonly unknown[]).includes(body.apiVersion)) {
    throw new WebhookRequestError(
      `unsupported ConversionReview version ${JSON.stringify(body.apiVersion)}; ${CONVERSION_REVIEW_API_VERSIONS.join(', ')} are accepted`,
    );
  }
  const request = body.request;
  if (
    !isJsonObject(request) ||
    typeof request.uid !== 'string' ||
    typeof request.desiredAPIVersion !== 'string' ||
    !Array.isArray(request.objects)
  ) {
    throw new WebhookRequestError('a ConversionReview request needs uid, desiredAPIVersion and objects');
  }
  if (!request.objects.every(isJsonObject)) throw new WebhookRequestError('every object of a ConversionReview request must be an object');
  return body as unknown as ConversionReview & { request: NonNullable<ConversionReview['request']> };
}
