import { SPEC_GROUP_SUFFIX, groupSuffixProblem, groupWithSuffix } from '../api/index.js';
import { isObject } from '../json/index.js';
import type { ResourceInfo } from './types.js';

/**
 * The group names a client talks in (`ClientConfig.groupSuffix`). The generated types name the
 * spec's groups (`rbac.authorization.svc.io/v1`); a server started with another suffix, or a real
 * cluster (`k8s.io`), serves them as `<name>.<suffix>`. The client addresses the served group
 * and renames the resource's own apiVersion at the wire: the spec's name on the way out becomes
 * the served one, and the served one on the way back becomes the spec's, so what the program
 * holds matches its types. Nested references (`roleRef.apiGroup`, ownerReferences) are the
 * caller's and travel as written.
 */
export class ServedNames {
  /** The resource as served: its group under the suffix. */
  readonly info: ResourceInfo;
  readonly #spec: string;
  readonly #served: string;

  constructor(info: ResourceInfo, suffix: string) {
    const group = groupWithSuffix(info.group, suffix);
    this.info = group === info.group ? info : { ...info, group };
    this.#spec = apiVersionOf(info);
    this.#served = apiVersionOf(this.info);
  }

  /** Whether the served apiVersion differs from the spec's. */
  get renames(): boolean {
    return this.#spec !== this.#served;
  }

  /** A request body with the resource's spec apiVersion renamed to the served one. */
  toServed<V>(body: V): V {
    return this.renames ? renamed(body, this.#spec, this.#served) : body;
  }

  /** An object or list from the server with the served apiVersion renamed to the spec's. */
  toSpec<V>(value: V): V {
    return this.renames ? renamed(value, this.#served, this.#spec) : value;
  }

  /** A watch event (`{ type, object }`) whose object is renamed to the spec's apiVersion. */
  eventToSpec(event: unknown): unknown {
    if (!this.renames || !isObject(event) || !isObject(event.object)) return event;
    return { ...event, object: this.toSpec(event.object) };
  }
}

/** Checks a client's group suffix (the server's `--group-suffix` rule). */
export function checkedGroupSuffix(suffix: string | undefined): string {
  if (suffix === undefined) return SPEC_GROUP_SUFFIX;
  const problem = groupSuffixProblem(suffix);
  if (problem) throw new TypeError(`groupSuffix: ${problem}`);
  return suffix;
}

function apiVersionOf(info: ResourceInfo): string {
  return info.group === '' ? info.version : `${info.group}/${info.version}`;
}

/** The value with `apiVersion` (its own, and its items' for a list) renamed from `from` to `to`. */
function renamed<V>(value: V, from: string, to: string): V {
  if (!isObject(value)) return value;
  let out: Record<string, unknown> = value;
  if (value.apiVersion === from) out = { ...out, apiVersion: to };
  if (Array.isArray(value.items)) out = { ...out, items: value.items.map((item: unknown) => renamed(item, from, to)) };
  return out as V;
}
