import type { GroupVersion, NamedType } from '../model/index.js';
import { allSources, groupDir, ownGroupVersions } from '../model/index.js';
import { type GeneratedFile, tsValue } from '../print/index.js';
import type { EmitContext } from './emit-context.js';

/**
 * The kinds artifact: `<group>/<version>/kinds.ts`, the declarative registration of every kind of
 * the group/version (identity, schema, how it is served) that the runtime's
 * generic handlers, `svckit validate` and the client read. No behaviour lives here.
 */
export function emitKinds(ctx: EmitContext): GeneratedFile[] {
  return ownGroupVersions(ctx.model).map((gv) => emitGroupVersionKinds(ctx, gv));
}

function emitGroupVersionKinds(ctx: EmitContext, gv: GroupVersion): GeneratedFile {
  const file = ctx.newFile(`${groupDir(gv.group)}/${gv.version}/kinds.ts`, gv.sources);
  const registration = file.importType('KindRegistration', ctx.runtimeModule('schema'));
  const kinds = gv.types.filter((t) => t.kind);
  const name = ctx.names(gv).kinds;
  file.declare(name);
  file.doc(`Every kind of ${gv.group === '' ? 'the core group' : gv.group} ${gv.version}, for the runtime.`);
  file.block(
    `export const ${name}: readonly ${registration}[] = [`,
    () => {
      for (const t of kinds) writeKind(file, ctx, gv, t);
    },
    '];',
  );
  return file;
}

/** The root `kinds.ts`: every group/version's registrations in one list. */
export function emitAllKinds(ctx: EmitContext): GeneratedFile {
  const gvs = ownGroupVersions(ctx.model);
  const file = ctx.newFile('kinds.ts', allSources(gvs));
  const registration = file.importType('KindRegistration', ctx.runtimeModule('schema'));
  const names = gvs.map((gv) => file.importValue(ctx.names(gv).kinds, ctx.gvModule(gv, 'kinds')));
  file.declare('allKinds');
  file.doc('Every kind of every group/version generated here.');
  file.block(`export const allKinds: readonly ${registration}[] = [`, () => names.forEach((n) => file.line(`...${n},`)), '];');
  return file;
}

function writeKind(file: GeneratedFile, ctx: EmitContext, gv: GroupVersion, t: NamedType): void {
  const names = ctx.names(gv);
  const schema = file.importValue(names.schema(t.id.name), ctx.gvModule(gv, 'schema'));
  const { resource, lifecycle, ...identity } = kindData(gv, t);
  file.block(
    '{',
    () => {
      for (const [key, value] of Object.entries(identity)) file.line(`${key}: ${tsValue(value)},`);
      file.line(`schema: ${schema},`);
      if (resource) {
        file.block(
          'resource: {',
          () => {
            for (const [key, value] of Object.entries(resource)) {
              if (key === 'printerColumns' && (value as unknown[]).length > 0)
                file.block('printerColumns: [', () => (value as unknown[]).forEach((c) => file.line(`${tsValue(c)},`)), '],');
              else file.line(`${key}: ${tsValue(value)},`);
            }
          },
          '},',
        );
      }
      if (lifecycle) file.line(`lifecycle: ${tsValue(lifecycle)},`);
    },
    '},',
  );
}

/** A kind's registration as plain data (runtime/schema/kind.ts), without its schema. */
export interface KindData {
  group: string;
  version: string;
  kind: string;
  apiVersion: string;
  listKind?: string;
  resource?: Record<string, unknown>;
  lifecycle?: Record<string, unknown>;
}

/** What `kinds.ts` declares of a kind besides its code, in the order it is printed. */
export function kindData(gv: GroupVersion, t: NamedType): KindData {
  const kind = t.kind!;
  const data: KindData = { group: gv.group, version: gv.version, kind: kind.kind, apiVersion: kind.apiVersion };
  if (kind.resource?.verbs.includes('list')) data.listKind = kind.listKind;
  if (kind.resource) {
    const { plural, singular, scope, verbs, subresources, shortNames, categories, printerColumns, served, storage, custom, conversion } =
      kind.resource;
    const { selectableFields, nameValidation, generation, virtual, subresourceHandlers, hooks, scale } = kind.resource;
    const { deleteReturnsObject, createOnUpdate, printer } = kind.resource;
    const r: Record<string, unknown> = { plural, singular, scope, verbs, subresources, shortNames, categories, printerColumns };
    Object.assign(r, { served, storage, custom, conversion });
    // Kind behaviour: declared here, implemented once in the runtime (named handlers by name).
    if (selectableFields.length > 0) r.selectableFields = selectableFields;
    if (nameValidation !== undefined) r.nameValidation = nameValidation;
    if (generation) r.generation = true;
    if (virtual !== undefined) r.virtual = virtual;
    if (Object.keys(subresourceHandlers).length > 0) r.subresourceHandlers = subresourceHandlers;
    if (hooks.length > 0) r.hooks = hooks;
    if (scale) r.scale = scale;
    if (deleteReturnsObject) r.deleteReturnsObject = true;
    if (createOnUpdate) r.createOnUpdate = true;
    if (printer !== undefined) r.printer = printer;
    data.resource = r;
  }
  const lifecycle = kind.lifecycle ? { ...gv.lifecycle, ...kind.lifecycle } : gv.lifecycle;
  if (lifecycle) data.lifecycle = lifecycle as Record<string, unknown>;
  return data;
}
