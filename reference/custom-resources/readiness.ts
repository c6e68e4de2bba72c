/**
 * Waiting for a created CustomResourceDefinition to be served, as controller-runtime's envtest
 * waits for its CRDs: the definition's `Established` condition is True and a list of each served
 * version of its resource answers 200. A definition the server has judged and will not establish
 * (names in conflict, something it cannot serve) fails at once with the condition's reason and
 * message; so does running out of time, saying what was still missing. `svckit serve --crds` and
 * the test server's install() both wait so.
 */

/** A GET to the server: its status code and response text. */
export type Get = (path: string) => Promise<{ status: number; text: string }>;

/** How long a definition may take to be served (envtest's default wait). */
export const DEFINITION_TIMEOUT_MS = 10_000;

interface Condition {
  type?: unknown;
  status?: unknown;
  reason?: unknown;
  message?: unknown;
}

interface Definition {
  metadata?: { name?: string };
  spec?: { group?: string; scope?: string; names?: { plural?: string }; versions?: { name?: string; served?: boolean }[] };
  status?: { conditions?: unknown };
}

/** A definition that will not be served, or not in time; the message names it and why. */
export class DefinitionNotServedError extends Error {
  override readonly name = 'DefinitionNotServedError';
}

/**
 * Resolves once the definition at `path` (`.../customresourcedefinitions/<name>`) is Established
 * and its resource answers; rejects with {@link DefinitionNotServedError} otherwise.
 */
export async function untilDefinitionServed(get: Get, path: string, timeoutMs = DEFINITION_TIMEOUT_MS): Promise<void> {
  const name = decodeURIComponent(path.slice(path.lastIndexOf('/') + 1));
  const deadline = performance.now() + timeoutMs;
  let missing = 'it has no Established condition yet';
  // Polled with a short backoff: the server establishes a definition within milliseconds.
  for (let delayMs = 1; ; delayMs = Math.min(delayMs * 2, 50)) {
    const reply = await get(path);
    if (reply.status !== 200) {
      throw new DefinitionNotServedError(`CustomResourceDefinition ${name}: reading it answered ${reply.status}: ${messageOf(reply.text)}`);
    }
    const crd = JSON.parse(reply.text) as Definition;
    const conditions = (Array.isArray(crd.status?.conditions) ? crd.status.conditions : []) as Condition[];
    const established = conditions.find((c) => c?.type === 'Established');
    if (established?.status === 'True') {
      const unanswered = await firstUnansweredList(get, crd);
      if (unanswered === undefined) return;
      missing = `it is Established but listing ${unanswered} does not answer 200`;
    } else if (established?.status === 'False' && established.reason !== 'Installing') {
      // Judged and refused: a name conflict says which name, so it comes first.
      const refusal = conditions.find((c) => c?.type === 'NamesAccepted' && c.status === 'False') ?? established;
      throw new DefinitionNotServedError(
        `CustomResourceDefinition ${name} is not established: ${String(refusal.reason ?? '')}: ${String(refusal.message ?? '')}`,
      );
    }
    if (performance.now() >= deadline) {
      throw new DefinitionNotServedError(`CustomResourceDefinition ${name} was not served within ${timeoutMs} ms: ${missing}`);
    }
    await new Promise((resolve) => setTimeout(resolve, delayMs));
  }
}

/** The list path of the first served version that does not answer 200 yet; undefined when all do. */
async function firstUnansweredList(get: Get, crd: Definition): Promise<string | undefined> {
  const spec = crd.spec ?? {};
  const namespace = spec.scope === 'Namespaced' ? '/namespaces/default' : '';
  for (const v of spec.versions ?? []) {
    if (!v.served || !v.name) continue;
    const path = `/apis/${spec.group}/${v.name}${namespace}/${spec.names?.plural}`;
    if ((await get(`${path}?limit=1`)).status !== 200) return path;
  }
  return undefined;
}

function messageOf(text: string): string {
  try {
    return String((JSON.parse(text) as { message?: unknown }).message ?? text);
  } catch {
    return text;
  }
}
