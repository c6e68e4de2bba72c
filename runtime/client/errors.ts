import { StatusError, isStatusError, statusErrorFromObject } from '../api/index.js';

/** The reason the real system gives each status code, for error bodies that are not a Status. */
const REASONS: Record<number, string> = {
  400: 'BadRequest',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'NotFound',
  405: 'MethodNotAllowed',
  406: 'NotAcceptable',
  409: 'Conflict',
  410: 'Expired',
  413: 'RequestEntityTooLarge',
  415: 'UnsupportedMediaType',
  422: 'Invalid',
  429: 'TooManyRequests',
  500: 'InternalError',
  503: 'ServiceUnavailable',
  504: 'Timeout',
};

/**
 * The StatusError of an error response: the Status body when there is one, otherwise one made from
 * the code with the body as an UnexpectedServerResponse cause. `Retry-After` is kept as
 * `details.retryAfterSeconds` when the Status does not carry it.
 */
export function statusErrorFromResponse(
  code: number,
  body: unknown,
  text: string,
  retryAfterSeconds: number | undefined,
  what: string,
): StatusError {
  const fromStatus = statusErrorFromObject(body);
  if (fromStatus) {
    if (retryAfterSeconds === undefined || fromStatus.details?.retryAfterSeconds !== undefined) return fromStatus;
    return new StatusError({
      code: fromStatus.code || code,
      reason: fromStatus.reason,
      message: fromStatus.message,
      details: { ...fromStatus.details, retryAfterSeconds },
    });
  }
  const snippet = text.length > 300 ? `${text.slice(0, 300)}...` : text;
  return new StatusError({
    code,
    reason: REASONS[code] ?? '',
    message: `${what}: the server answered ${code}${snippet ? `: ${snippet}` : ' with no body'}`,
    details: {
      causes: [{ type: 'UnexpectedServerResponse', message: snippet }],
      ...(retryAfterSeconds !== undefined ? { retryAfterSeconds } : {}),
    },
  });
}

/** The server could not be reached, or the connection broke: no HTTP status to report. */
export class ConnectionError extends Error {
  override readonly name = 'ConnectionError';

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

export function isConnectionError(value: unknown): value is ConnectionError {
  return value instanceof ConnectionError;
}

/** `Retry-After` in seconds: a number of seconds or an HTTP date; undefined when absent or invalid. */
export function parseRetryAfter(value: string | null, now = Date.now()): number | undefined {
  if (value === null || value.trim() === '') return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, Math.ceil((date - now) / 1000));
}

/** 410: the version or continue token is older than the server's history. */
export function isExpired(error: unknown): boolean {
  return isStatusError(error) && error.code === 410;
}

/** A read at a version the server has not reached (it restarted with less history, for example). */
export function isTooLargeResourceVersion(error: unknown): boolean {
  return (
    isStatusError(error) && (error.findCause('ResourceVersionTooLarge') !== undefined || /too large resource version/i.test(error.message))
  );
}

/** Worth retrying after a pause: a lost connection, throttling, or a server-side failure. */
export function isTransient(error: unknown): boolean {
  if (isConnectionError(error)) return true;
  if (!isStatusError(error)) return false;
  return error.code === 429 || error.code >= 500 || error.reason === 'ServerTimeout' || error.reason === 'Timeout';
}

/** Thrown by an AbortSignal: the caller stopped. */
export function isAbort(error: unknown, signal?: AbortSignal): boolean {
  if (signal?.aborted) return true;
  return error instanceof Error && (error.name === 'AbortError' || error.name === 'TimeoutError');
}
