import { gunzipSync, gzipSync } from 'node:zlib';
import type { Json, JsonObject } from '../types.js';
import type { EventTransform, ProxiedRequest, ProxiedResponse, ResponseContext, WatchEventDocument } from './types.js';
import { isObject } from '../json.js';

/** Building blocks the mutations are written with: JSON bodies, headers, re-asking the server, event streams. */

function isGzip(r: ProxiedResponse): boolean {
  return (r.headers['content-encoding'] ?? []).some((v) => /gzip/i.test(v));
}

/** The body as text (gzip undone). */
export function textOf(r: ProxiedResponse): string {
  return (isGzip(r) ? gunzipSync(r.body) : r.body).toString('utf8');
}

function endsWithNewline(r: ProxiedResponse): boolean {
  try {
    return textOf(r).endsWith('\n');
  } catch {
    return false;
  }
}

/** The body as JSON (gzip undone), or undefined when it is not JSON. */
export function jsonOf(r: ProxiedResponse): Json | undefined {
  try {
    const text = textOf(r);
    return text.trim() ? (JSON.parse(text) as Json) : undefined;
  } catch {
    return undefined;
  }
}

/** The response with this JSON body, compressed again when the original was; its final newline kept. */
export function withJson(r: ProxiedResponse, body: Json, status = r.status): ProxiedResponse {
  const text = Buffer.from(`${JSON.stringify(body)}${endsWithNewline(r) ? '\n' : ''}`);
  return {
    status,
    headers: { ...r.headers, 'content-type': r.headers['content-type'] ?? ['application/json'] },
    body: isGzip(r) ? gzipSync(text) : text,
  };
}

/** Runs `edit` on a copy of a JSON object body; the changed response, or undefined when `edit` changed nothing. */
export function editJson(r: ProxiedResponse, edit: (body: JsonObject) => boolean): ProxiedResponse | undefined {
  const body = jsonOf(r);
  if (!isObject(body)) return undefined;
  const copy = structuredClone(body);
  return edit(copy) ? withJson(r, copy) : undefined;
}

/** The Status document of an error answer, if it is one. */
export function statusOf(r: ProxiedResponse): JsonObject | undefined {
  const body = jsonOf(r);
  return isObject(body) && body.kind === 'Status' ? body : undefined;
}

export function metadataOf(v: Json | undefined): JsonObject | undefined {
  return isObject(v) && isObject(v.metadata) ? v.metadata : undefined;
}

/** The object a write sent, for a faulty server that answers as if it had stored it. */
export function sentObject(req: ProxiedRequest): JsonObject | undefined {
  try {
    const body = JSON.parse(req.body.toString('utf8')) as Json;
    return isObject(body) ? body : undefined;
  } catch {
    return undefined;
  }
}

export function withoutHeader(r: ProxiedResponse, name: string): ProxiedResponse | undefined {
  if (r.headers[name] === undefined) return undefined;
  const headers = { ...r.headers };
  delete headers[name];
  return { ...r, headers };
}

export function withHeader(r: ProxiedResponse, name: string, value: string): ProxiedResponse {
  return { ...r, headers: { ...r.headers, [name]: [value] } };
}

/** Asks the server the same request with the query changed: what a server that ignored part of it would answer. */
export function askAgain(ctx: ResponseContext, change: (query: URLSearchParams) => void): Promise<ProxiedResponse> {
  const query = new URLSearchParams(ctx.request.query);
  change(query);
  return ctx.upstream({ ...ctx.request, query });
}

/** A stream rewrite that looks at each event on its own. */
export function eachEvent(rewrite: (e: WatchEventDocument) => WatchEventDocument[] | undefined): () => EventTransform {
  return () => ({ next: rewrite });
}

/** A stream rewrite applied to the first event that matches, once per stream. */
export function firstEvent(
  matches: (e: WatchEventDocument) => boolean,
  rewrite: (e: WatchEventDocument) => WatchEventDocument[],
): () => EventTransform {
  return () => {
    let done = false;
    return {
      next: (e) => {
        if (done || !matches(e)) return undefined;
        done = true;
        return rewrite(e);
      },
    };
  };
}

/** Holds the first matching event back and sends it after the event that follows it. */
export function swapWithNext(matches: (e: WatchEventDocument) => boolean): () => EventTransform {
  return () => {
    let held: WatchEventDocument | undefined;
    let done = false;
    return {
      next: (e) => {
        if (done) return undefined;
        if (held) {
          done = true;
          const first = held;
          held = undefined;
          return [e, first];
        }
        if (!matches(e)) return undefined;
        held = e;
        return [];
      },
      end: () => (held ? [held] : []),
    };
  };
}
