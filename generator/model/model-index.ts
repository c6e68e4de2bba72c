import type { GroupVersion, Model, NamedType, TypeId } from './types.js';

/** `v1` for the core group, `<group>/<version>` otherwise. */
export function apiVersionOf(group: string, version: string): string {
  return group === '' ? version : `${group}/${version}`;
}

/** A stable string key for a type id: `<group>/<version>#<name>`. */
export function typeKey(id: TypeId): string {
  return `${id.group || 'core'}/${id.version}#${id.name}`;
}

/** The directory a group's generated files live in (`core` for the core group). */
export function groupDir(group: string): string {
  return group === '' ? 'core' : group;
}

/** Sorts group/versions and their types by name so every emitter sees one fixed order. */
/** The group/versions a run generates: all but those loaded from svckit's own schemas only to be referred to. */
export function ownGroupVersions(model: Model): GroupVersion[] {
  return model.groupVersions.filter((gv) => !gv.external);
}

/** Every source file of these group/versions, once each, sorted: the header of a file that covers them all. */
export function allSources(gvs: readonly GroupVersion[]): string[] {
  return [...new Set(gvs.flatMap((gv) => gv.sources))].sort();
}

export function sortModel(model: Model): Model {
  const groupVersions = [...model.groupVersions]
    .map((gv) => ({ ...gv, types: [...gv.types].sort((a, b) => compare(a.id.name, b.id.name)) }))
    .sort((a, b) => compare(groupDir(a.group), groupDir(b.group)) || compare(a.version, b.version));
  return { groupVersions };
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Lookups over a loaded model. */
export class ModelIndex {
  private readonly types = new Map<string, NamedType>();
  private readonly gvs = new Map<string, GroupVersion>();

  constructor(readonly model: Model) {
    for (const gv of model.groupVersions) {
      this.gvs.set(apiVersionOf(gv.group, gv.version), gv);
      for (const t of gv.types) this.types.set(typeKey(t.id), t);
    }
  }

  type(id: TypeId): NamedType | undefined {
    return this.types.get(typeKey(id));
  }

  /** The named type an id points at; throws when the model is inconsistent (a loader bug). */
  resolve(id: TypeId): NamedType {
    const t = this.type(id);
    if (!t) throw new Error(`model has no type ${typeKey(id)}`);
    return t;
  }

  groupVersion(group: string, version: string): GroupVersion | undefined {
    return this.gvs.get(apiVersionOf(group, version));
  }

  /** Every named type that is a top-level kind. */
  kinds(): NamedType[] {
    return this.model.groupVersions.flatMap((gv) => gv.types.filter((t) => t.kind));
  }
}
