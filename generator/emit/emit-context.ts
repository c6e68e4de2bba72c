import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { GroupVersion, Model } from '../model/index.js';
import { ModelIndex, groupDir } from '../model/index.js';
import { GeneratedFile, camelCase, pascalCase } from '../print/index.js';

/** svckit's own root: where `runtime/` and the built-in `generated/` live. */
const SVCKIT_ROOT = fileURLToPath(new URL('../../', import.meta.url));

export const GENERATOR_NAME = 'svckit codegen';

/** Everything an emitter needs, with every option defaulted. Built once per codegen run. */
export interface EmitContext {
  model: Model;
  index: ModelIndex;
  /** Absolute output directory. */
  outDir: string;
  version: string;
  /** Absolute module path (no extension) of a runtime area's public face, e.g. `api`. */
  runtimeModule(area: string): string;
  /** Absolute module path (no extension) of a group/version's generated artifact, e.g. `types`. */
  gvModule(gv: Pick<GroupVersion, 'group' | 'version'>, artifact: string): string;
  /** A new file at `relPath` below the output directory, with the standard header. */
  newFile(relPath: string, sources: string[]): GeneratedFile;
}

export function createEmitContext(model: Model, outDir: string, version: string): EmitContext {
  const index = new ModelIndex(model);
  return {
    model,
    index,
    outDir,
    version,
    runtimeModule: (area) => join(SVCKIT_ROOT, 'runtime', area, 'index'),
    gvModule: (gv, artifact) => {
      const external = index.groupVersion(gv.group, gv.version)?.external === true;
      return join(external ? join(SVCKIT_ROOT, 'generated') : outDir, groupDir(gv.group), gv.version, artifact);
    },
    newFile: (relPath, sources) => new GeneratedFile(join(outDir, relPath), { generator: GENERATOR_NAME, version, sources }),
  };
}

/** `coreV1`, `flowcontrolApiserverV1beta3`: the namespace a group/version is exported under. */
export function gvNamespace(gv: Pick<GroupVersion, 'group' | 'version'>): string {
  const group = gv.group === '' ? 'core' : gv.group.replace(/\.svc\.io$/, '');
  return camelCase(`${group} ${gv.version}`);
}

/** `CoreV1`: the prefix used to alias a type imported from another group/version. */
export function gvAliasPrefix(gv: Pick<GroupVersion, 'group' | 'version'>): string {
  return pascalCase(gvNamespace(gv));
}
