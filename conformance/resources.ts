import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import type { JsonObject, ResourceProfile } from './types.js';
import { isObject } from './json.js';

/** Resource profiles (`resources.yaml`) and the paths and objects built from them. */

export class ResourceFileError extends Error {
  override readonly name = 'ResourceFileError';
}

export const DEFAULT_RESOURCES_FILE = new URL('./resources.yaml', import.meta.url);

export function parseResources(text: string, file: string): Map<string, ResourceProfile> {
  const doc: unknown = parseYaml(text);
  if (!isObject(doc)) throw new ResourceFileError(`${file}: expected a mapping of profile names to resource types`);
  const out = new Map<string, ResourceProfile>();
  for (const [name, raw] of Object.entries(doc)) {
    if (!isObject(raw)) throw new ResourceFileError(`${file}: ${name}: expected a mapping`);
    const need = (key: string): string => {
      const v = raw[key];
      if (typeof v !== 'string' || (v === '' && key !== 'group')) throw new ResourceFileError(`${file}: ${name}.${key}: expected a string`);
      return v;
    };
    if (typeof raw.namespaced !== 'boolean') throw new ResourceFileError(`${file}: ${name}.namespaced: expected true or false`);
    const sample = raw.sample ?? {};
    if (!isObject(sample)) throw new ResourceFileError(`${file}: ${name}.sample: expected a mapping`);
    out.set(name, {
      name,
      group: need('group'),
      version: need('version'),
      plural: need('plural'),
      kind: need('kind'),
      namespaced: raw.namespaced,
      custom: raw.custom === true,
      sample: sample as JsonObject,
    });
  }
  return out;
}

export function readResources(file: string | URL = DEFAULT_RESOURCES_FILE): Map<string, ResourceProfile> {
  return parseResources(readFileSync(file, 'utf8'), String(file));
}

export function apiVersionOf(r: Pick<ResourceProfile, 'group' | 'version'>): string {
  return r.group ? `${r.group}/${r.version}` : r.version;
}

/** `/api/v1` or `/apis/<group>/<version>`. */
export function groupVersionPath(r: Pick<ResourceProfile, 'group' | 'version'>): string {
  return r.group ? `/apis/${r.group}/${r.version}` : `/api/${r.version}`;
}

/** The collection path: in `namespace` for a namespaced type, cluster-wide otherwise. */
export function collectionPath(r: ResourceProfile, namespace?: string): string {
  const gv = groupVersionPath(r);
  return r.namespaced && namespace ? `${gv}/namespaces/${namespace}/${r.plural}` : `${gv}/${r.plural}`;
}

/** `group/version/resource` as scenarios' `serves:` lists write it (`v1/configmaps` for the core group). */
export function servesKey(r: Pick<ResourceProfile, 'group' | 'version' | 'plural'>): string {
  return `${apiVersionOf(r)}/${r.plural}`;
}

/** Deep merge of plain objects; lists and scalars of `over` replace, a null in `over` removes the key. */
export function deepMerge(base: JsonObject, over: JsonObject): JsonObject {
  const out: JsonObject = { ...base };
  for (const [k, v] of Object.entries(over)) {
    const b = out[k];
    if (v === null) delete out[k];
    else if (isObject(v) && isObject(b)) out[k] = deepMerge(b, v);
    else out[k] = v;
  }
  return out;
}

/**
 * A sample object of the type: the profile's sample, apiVersion, kind, the namespace when
 * namespaced, the run and scenario labels (so selectors can find it), then `overrides` on top.
 */
export function sampleObject(
  r: ResourceProfile,
  namespace: string | undefined,
  labels: Record<string, string>,
  overrides: JsonObject = {},
): JsonObject {
  const metadata: JsonObject = { labels: { ...labels } };
  if (r.namespaced && namespace) metadata.namespace = namespace;
  const base: JsonObject = { apiVersion: apiVersionOf(r), kind: r.kind, metadata, ...structuredClone(r.sample) };
  return deepMerge(base, overrides);
}
