/** A callback's logic over JSON: the decoded request body in, the response body out. */
export type JsonHandler = (body: unknown) => unknown | Promise<unknown>;

/** The caller sent something the handler cannot read: answered 400 with the message. */
export class WebhookRequestError extends Error {
  override readonly name = 'WebhookRequestError';
}

export function isWebhookRequestError(e: unknown): e is WebhookRequestError {
  return e instanceof WebhookRequestError;
}
