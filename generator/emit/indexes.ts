import { join } from 'node:path';
import { allSources, groupDir, ownGroupVersions } from '../model/index.js';
import type { GeneratedFile } from '../print/index.js';
import type { EmitContext } from './emit-context.js';

/**
 * The public faces of the generated tree: `<group>/<version>/index.ts` re-exports that
 * group/version's artifacts, and the root `index.ts` exports each group/version as a namespace
 * (kinds of the same name live in several versions).
 */
export function emitIndexes(ctx: EmitContext, artifacts: readonly string[]): GeneratedFile[] {
  const gvs = ownGroupVersions(ctx.model);
  const files = gvs.map((gv) => {
    const file = ctx.newFile(`${groupDir(gv.group)}/${gv.version}/index.ts`, gv.sources);
    for (const artifact of artifacts) file.exportAll(ctx.gvModule(gv, artifact));
    return file;
  });
  const root = ctx.newFile('index.ts', allSources(gvs));
  for (const gv of gvs) root.exportAll(ctx.gvModule(gv, 'index'), ctx.namespace(gv));
  root.exportAll(join(ctx.outDir, 'kinds'));
  return [...files, root];
}
