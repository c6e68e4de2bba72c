/**
 * Installing fixtures into a test server: objects given, or read from a YAML or JSON file or a
 * folder of them (every document; a `List` counts as its items). Each is created through the
 * server's API as its administrator, so it is validated, defaulted and admitted as a client's
 * would be. Namespaces go first and CustomResourceDefinitions second, so what the others need
 * exists when they are created; the definitions are created together, then waited for until their
 * resources are served. A folder's kustomize files (`kustomization.yaml`) are build configuration,
 * not objects: skipped, as envtest skips what is not a definition in a CRD folder.
 */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { extname, join } from 'node:path';
import { CORE_SCHEMA, YAMLException, loadAll } from 'js-yaml';
import { type JsonApiObject, statusErrorFromObject } from '../../runtime/api/index.js';
import type { FetchLike } from '../../runtime/client/index.js';
import type { ApiServer } from '../../runtime/server/index.js';
import { DEFINITION_TIMEOUT_MS, untilDefinitionServed } from '../custom-resources/index.js';

const MANIFEST = new Set(['.yaml', '.yml', '.json']);
/** The group of kustomize's own kinds (Kustomization, Component), which no server serves. */
const KUSTOMIZE_GROUP = 'kustomize.config.k8s.io/';

/**
 * The documents of a manifest file, or of every manifest file below a folder (its subfolders too,
 * as codegen and validate read one) in path order. A document that is not a mapping (a git
 * symlink checked out as a text file) is no manifest: skipped.
 */
export function readManifests(path: string): JsonApiObject[] {
  const files = statSync(path).isDirectory()
    ? (readdirSync(path, { recursive: true }) as string[])
        .filter((f) => MANIFEST.has(extname(f)))
        .sort()
        .map((f) => join(path, f))
    : [path];
  const objects: JsonApiObject[] = [];
  for (const file of files) {
    for (const value of readYamlDocuments(file) as (JsonApiObject | null)[]) {
      if (value === null || value === undefined || typeof value !== 'object') continue;
      if (typeof value.kind !== 'string' || typeof value.apiVersion !== 'string')
        throw new TypeError(`${file}: a document without apiVersion and kind`);
      if (value.apiVersion.startsWith(KUSTOMIZE_GROUP)) continue;
      objects.push(...(value.kind === 'List' ? ((value.items as JsonApiObject[] | undefined) ?? []) : [value]));
    }
  }
  return objects;
}

/** Namespaces, then CustomResourceDefinitions, then the rest, each group in the given order. */
/**
 * The documents of a manifest file. js-yaml, as the generator reads schema files: about twice as fast
 * as `yaml` on a project's CRDs (docs/decisions.md), and its core schema keeps dates as strings.
 */
function readYamlDocuments(file: string): unknown[] {
  try {
    return loadAll(readFileSync(file, 'utf8'), null, { schema: CORE_SCHEMA });
  } catch (error) {
    if (!(error instanceof YAMLException)) throw error;
    const at = error.mark ? `:${error.mark.line + 1}:${error.mark.column + 1}` : '';
    throw new TypeError(`${file}${at}: not valid YAML: ${error.reason}`);
  }
}

function installOrder(objects: readonly JsonApiObject[]): JsonApiObject[] {
  const rank = (o: JsonApiObject) => (o.kind === 'Namespace' ? 0 : o.kind === 'CustomResourceDefinition' ? 1 : 2);
  return [...objects].sort((a, b) => rank(a) - rank(b));
}

/** A definition as its files write it: either group suffix (a real cluster's CRDs say apiextensions.k8s.io). */
const DEFINITION_API_VERSION = /^apiextensions\.(svc|k8s)\.io\/v1$/;

/**
 * Creates the objects on the server at `url`; returns them as created. A CustomResourceDefinition
 * counts as installed once it is Established and its resource answers (as envtest waits), so the
 * objects of its kind that follow, and the test, find it served; one that will not be rejects.
 */
export async function installObjects(
  server: ApiServer,
  url: string,
  token: string | undefined,
  objects: readonly JsonApiObject[],
  /** The fetch that reaches the server (one trusting its CA over HTTPS); the platform's by default. */
  fetch: FetchLike = (u, init) => globalThis.fetch(u, init),
  definitionTimeoutMs = DEFINITION_TIMEOUT_MS,
): Promise<JsonApiObject[]> {
  const headers = { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) };
  const get = async (path: string) => {
    const res = await fetch(`${url}${path}`, { method: 'GET', headers });
    return { status: res.status, text: await res.text() };
  };
  const { registry } = server.context;
  const created: JsonApiObject[] = [];
  // Definitions are created in one pass and waited for together, before the objects that need them.
  let pending: Promise<void>[] = [];
  for (const given of installOrder(objects)) {
    if (given.kind !== 'CustomResourceDefinition' && pending.length > 0) {
      await Promise.all(pending);
      pending = [];
    }
    const definition = given.kind === 'CustomResourceDefinition' && DEFINITION_API_VERSION.test(given.apiVersion ?? '');
    const object = definition ? { ...given, apiVersion: registry.servedApiVersion('apiextensions.svc.io/v1') } : given;
    const r = registry.resources().find((s) => s.apiVersion === object.apiVersion && s.kind === object.kind);
    if (!r) throw new TypeError(`the test server serves no ${object.apiVersion} ${object.kind} (${object.metadata?.name ?? 'unnamed'})`);
    const base = r.group === '' ? `/api/${r.version}` : `/apis/${r.group}/${r.version}`;
    const collection = `${base}${r.namespaced ? `/namespaces/${object.metadata?.namespace ?? 'default'}` : ''}/${r.resource}`;
    const res = await fetch(`${url}${collection}`, { method: 'POST', headers, body: JSON.stringify(object) });
    const body = JSON.parse(await res.text()) as JsonApiObject;
    if (res.status !== 201 && res.status !== 200) {
      throw statusErrorFromObject(body) ?? new Error(`creating ${object.kind} ${object.metadata?.name}: HTTP ${res.status}`);
    }
    if (definition)
      pending.push(untilDefinitionServed(get, `${collection}/${encodeURIComponent(body.metadata?.name ?? '')}`, definitionTimeoutMs));
    created.push(body);
  }
  await Promise.all(pending);
  return created;
}
