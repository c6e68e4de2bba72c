import type { GroupVersion, Model } from '../model/index.js';
import { type Declaration, collectDeclarations, freeName } from './declarations.js';
import { camelCase, pascalCase } from '../print/index.js';

/**
 * Every name a group/version module exports, claimed in one table: its `index.ts` re-exports the
 * types, schema, kinds and client artifacts together, so a name taken twice
 * (a type `ClusterClassSchema` for a field `schema` beside the descriptor constant of the kind
 * `ClusterClass`) would be an ambiguous re-export. Claims go in a fixed order, so who yields is
 * decided by construction: the schema's own type names first (they are the API), then the names
 * derived from them, then the group/version's own names, and last the types hoisted out of
 * anonymous objects, which pick the next free name from their path.
 */
export class ModuleNames {
  private readonly taken = new Set<string>();
  private readonly derived = new Map<string, string>();
  /** The type declarations of types.ts, named after the claims above. */
  readonly declarations: Declaration[];
  readonly kinds: string;
  readonly clientInterface: string;
  readonly clientFactory: string;

  constructor(gv: GroupVersion, namespace: string) {
    for (const t of gv.types) this.taken.add(t.id.name);
    for (const t of gv.types) {
      const n = t.id.name;
      this.claim(`schema ${n}`, `${n}Schema`, `${n}SchemaDescriptor`);
      if (!t.kind) continue;
      this.claim(`gvk ${n}`, `${n}GVK`, `${n}GroupVersionKind`);
      this.claim(`guard ${n}`, `is${n}`, `is${n}Kind`);
    }
    this.kinds = this.claim('kinds', `${namespace}Kinds`);
    this.clientInterface = this.claim('client interface', `${pascalCase(namespace)}Client`);
    this.clientFactory = this.claim('client factory', `${namespace}Client`);
    this.declarations = collectDeclarations(gv, this.taken);
  }

  /** `PodSchema`: the descriptor constant of a named type. */
  schema(typeName: string): string {
    return this.get(`schema ${typeName}`);
  }
  /** `PodGVK`: the group/version/kind constant of a kind. */
  gvk(kind: string): string {
    return this.get(`gvk ${kind}`);
  }
  /** `isPod`: the type guard of a kind. */
  guard(kind: string): string {
    return this.get(`guard ${kind}`);
  }

  /** Every name claimed so far: what hoisted names must avoid. */
  names(): ReadonlySet<string> {
    return this.taken;
  }

  private claim(role: string, ...candidates: string[]): string {
    const name = freeName(this.taken, candidates);
    this.taken.add(name);
    this.derived.set(role, name);
    return name;
  }

  private get(role: string): string {
    const name = this.derived.get(role);
    if (name === undefined) throw new Error(`no exported name for ${role}`);
    return name;
  }
}

/**
 * The namespace each group/version is exported under from the root `index.ts` (`coreV1`), one
 * table for the root module: two groups that print alike (`foo.svc.io` and `foo`) get distinct
 * names, and none takes `allKinds`, which the root re-exports from `kinds.ts`.
 */
export function rootNamespaces(model: Model): Map<GroupVersion, string> {
  const taken = new Set(['allKinds']);
  const out = new Map<GroupVersion, string>();
  for (const gv of model.groupVersions) {
    const name = freeName(taken, [gvNamespace(gv)]);
    taken.add(name);
    out.set(gv, name);
  }
  return out;
}

/** `coreV1`, `flowcontrolApiserverV1beta3`: how a group/version prints as an identifier. */
export function gvNamespace(gv: Pick<GroupVersion, 'group' | 'version'>): string {
  const group = gv.group === '' ? 'core' : gv.group.replace(/\.svc\.io$/, '');
  return camelCase(`${group} ${gv.version}`);
}
