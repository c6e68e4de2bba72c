import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { GroupVersion, Model } from '../model/index.js';
import { ModelIndex, apiVersionOf, groupDir } from '../model/index.js';
import { GeneratedFile, type ModuleRef, pascalCase } from '../print/index.js';
import { ModuleNames, gvNamespace, rootNamespaces } from './names.js';

/** The code root of this svckit (its sources, or `dist/` once compiled): where `runtime/` and the built-in `generated/` live. */
export const SVCKIT_ROOT = fileURLToPath(new URL('../../', import.meta.url));

export const GENERATOR_NAME = 'svckit codegen';

/** The package name generated code imports the runtime and the built-in kinds by. */
export const RUNTIME_PACKAGE = 'svckit';

/**
 * How generated code reaches svckit's runtime and built-in kinds: by package name (the default,
 * so output is the same wherever it is generated and installed), or by relative path into svckit's
 * code at `root` (svckit's own `generated/`, and the CLI's cache of a project's kinds, which lives
 * outside any project's node_modules).
 */
export type RuntimeImports = { package: string } | { root: string };

/** Everything an emitter needs, with every option defaulted. Built once per codegen run. */
export interface EmitContext {
  model: Model;
  index: ModelIndex;
  /** Absolute output directory. */
  outDir: string;
  version: string;
  /** The module of a runtime area's public face, e.g. `api`: `svckit/runtime/api`, or a path. */
  runtimeModule(area: RuntimeArea): ModuleRef;
  /** The module of a group/version's generated artifact, e.g. `types` (svckit's own for built-in kinds). */
  gvModule(gv: Pick<GroupVersion, 'group' | 'version'>, artifact: string): ModuleRef;
  /** A new file at `relPath` below the output directory, with the standard header. */
  newFile(relPath: string, sources: string[]): GeneratedFile;
  /** The names a group/version's module exports, from one table (see ModuleNames). */
  names(gv: Pick<GroupVersion, 'group' | 'version'>): ModuleNames;
  /** `coreV1`: the namespace the root index exports a group/version under, unique there. */
  namespace(gv: Pick<GroupVersion, 'group' | 'version'>): string;
}

/** The runtime areas generated code imports; each is a public entry point of the package. */
export type RuntimeArea = 'api' | 'client' | 'codec' | 'schema' | 'validate';

export function createEmitContext(
  model: Model,
  outDir: string,
  version: string,
  runtime: RuntimeImports = { package: RUNTIME_PACKAGE },
): EmitContext {
  const index = new ModelIndex(model);
  const namespaces = rootNamespaces(model);
  const namespace = (gv: Pick<GroupVersion, 'group' | 'version'>): string => {
    const own = index.groupVersion(gv.group, gv.version);
    return (own && namespaces.get(own)) ?? gvNamespace(gv);
  };
  const tables = new Map<string, ModuleNames>();
  return {
    model,
    index,
    outDir,
    version,
    runtimeModule: (area) => ('package' in runtime ? `${runtime.package}/runtime/${area}` : join(runtime.root, 'runtime', area, 'index')),
    gvModule: (gv, artifact) => {
      const path = [groupDir(gv.group), gv.version, artifact];
      if (index.groupVersion(gv.group, gv.version)?.external !== true) return join(outDir, ...path);
      return 'package' in runtime ? [`${runtime.package}/generated`, ...path].join('/') : join(runtime.root, 'generated', ...path);
    },
    newFile: (relPath, sources) => new GeneratedFile(join(outDir, relPath), { generator: GENERATOR_NAME, version, sources }),
    namespace,
    names: (gv) => {
      const own = index.groupVersion(gv.group, gv.version);
      if (!own) throw new Error(`model has no group/version ${gv.group}/${gv.version}`);
      const key = apiVersionOf(own.group, own.version);
      let table = tables.get(key);
      if (!table) tables.set(key, (table = new ModuleNames(own, namespace(own))));
      return table;
    },
  };
}

/** `CoreV1`: the prefix used to alias a type imported from another group/version. */
export function gvAliasPrefix(gv: Pick<GroupVersion, 'group' | 'version'>): string {
  return pascalCase(gvNamespace(gv));
}
