/** Test support for CustomResourceDefinitions over HTTP: JSON calls, polling, and waiting for Established. */
import type { Json } from '../../runtime/server/server.testing.js';

export const CRDS = '/apis/apiextensions.svc.io/v1/customresourcedefinitions';

export type JsonCall = (
  method: string,
  path: string,
  body?: unknown,
  contentType?: string,
) => Promise<{ status: number; body: Json; headers: Headers }>;

/** A JSON request to the server at `url()` (read at each call); never throws on an error status. */
export function jsonCaller(url: () => string): JsonCall {
  return async (method, path, body, contentType = 'application/json') => {
    const res = await fetch(`${url()}${path}`, {
      method,
      headers: body === undefined ? {} : { 'content-type': contentType },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : undefined, headers: res.headers };
  };
}

/** Polls until `check` holds (no timing assertion: the bound only ends a hung test). */
export async function until<T>(read: () => Promise<T>, check: (value: T) => boolean, what: string): Promise<T> {
  for (let i = 0; i < 500; i++) {
    const value = await read();
    if (check(value)) return value;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`never happened: ${what}`);
}

export const established = (crd: Json): boolean =>
  crd.status?.conditions?.some((c: { type: string; status: string }) => c.type === 'Established' && c.status === 'True') ?? false;

/** Creates the definition (201 expected) and resolves with it once Established. */
export async function createEstablished(call: JsonCall, crd: { metadata: { name: string } }): Promise<Json> {
  const created = await call('POST', CRDS, crd);
  if (created.status !== 201) throw new Error(`creating ${crd.metadata.name}: ${created.status} ${JSON.stringify(created.body)}`);
  return until(async () => (await call('GET', `${CRDS}/${crd.metadata.name}`)).body, established, `${crd.metadata.name} Established`);
}
