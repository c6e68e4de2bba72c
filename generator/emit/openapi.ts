import type { GroupVersion } from '../model/index.js';
import { allSources, groupDir, ownGroupVersions } from '../model/index.js';
import { type GeneratedFile, tsString } from '../print/index.js';
import type { EmitContext } from './emit-context.js';
import { openApiDocument } from './openapi-document.js';
import { printSharedJson } from './shared-json.js';

/**
 * The OpenAPI artifact: `<group>/<version>/openapi.ts` holding the OpenAPI v3 document of the
 * group/version as data (the server publishes it at `/openapi/v3/...`), and a root `openapi.ts`
 * that maps each document's path to a lazy import so a server loads only what is asked for.
 */
export function emitOpenApi(ctx: EmitContext): GeneratedFile[] {
  const gvs = ownGroupVersions(ctx.model).filter((gv) => gv.types.some((t) => t.kind?.resource));
  const files = gvs.map((gv) => {
    const file = ctx.newFile(`${groupDir(gv.group)}/${gv.version}/openapi.ts`, gv.sources);
    const doc = openApiDocument(ctx.model, `svckit ${openApiPath(gv)}`, [gv]);
    // Parameters and response blocks repeat per operation: each repeated part is written once.
    const printed = printSharedJson(doc as unknown as Parameters<typeof printSharedJson>[0], 'part');
    for (const c of printed.constants) printConst(file, `const ${c.name}`, c.lines);
    file.doc(`The OpenAPI v3 document of ${openApiPath(gv)}.`);
    printConst(file, 'export const openApiV3: Record<string, unknown>', printed.lines);
    return file;
  });
  const root = ctx.newFile('openapi.ts', allSources(gvs));
  root.doc('OpenAPI v3 documents by path below `/openapi/v3/`, loaded on first use.');
  root.block(
    'export const openApiDocuments: Record<string, () => Promise<Record<string, unknown>>> = {',
    () => {
      for (const gv of gvs) {
        const spec = root.specifierFor(ctx.gvModule(gv, 'openapi'));
        root.line(`${tsString(openApiPath(gv))}: async () => (await import(${tsString(spec)})).openApiV3,`);
      }
    },
    '};',
  );
  return [...files, root];
}

function printConst(file: GeneratedFile, declaration: string, lines: string[]): void {
  if (lines.length === 1) {
    file.line(`${declaration} = ${lines[0]};`);
    return;
  }
  file.line(`${declaration} = ${lines[0]}`);
  for (const l of lines.slice(1, -1)) file.line(l);
  file.line(`${lines[lines.length - 1]};`);
}

/** `api/v1` or `apis/<group>/<version>`: where a group/version's document lives below /openapi/v3. */
export function openApiPath(gv: Pick<GroupVersion, 'group' | 'version'>): string {
  return gv.group === '' ? `api/${gv.version}` : `apis/${gv.group}/${gv.version}`;
}
