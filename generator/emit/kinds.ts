import type { GroupVersion, NamedType } from '../model/index.js';
import { allSources, groupDir, ownGroupVersions } from '../model/index.js';
import { type GeneratedFile, tsString, tsValue } from '../print/index.js';
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
  const kind = t.kind!;
  const names = ctx.names(gv);
  const schema = file.importValue(names.schema(t.id.name), ctx.gvModule(gv, 'schema'));
  file.block(
    '{',
    () => {
      file.line(`group: ${tsString(gv.group)},`);
      file.line(`version: ${tsString(gv.version)},`);
      file.line(`kind: ${tsString(kind.kind)},`);
      file.line(`apiVersion: ${tsString(kind.apiVersion)},`);
      if (kind.resource?.verbs.includes('list')) file.line(`listKind: ${tsString(kind.listKind)},`);
      file.line(`schema: ${schema},`);
      if (kind.resource) {
        const {
          plural,
          singular,
          scope,
          verbs,
          subresources,
          shortNames,
          categories,
          printerColumns,
          served,
          storage,
          custom,
          conversion,
        } = kind.resource;
        const { selectableFields, nameValidation, generation, virtual, subresourceHandlers, hooks, scale } = kind.resource;
        const { deleteReturnsObject, createOnUpdate, printer } = kind.resource;
        file.block(
          'resource: {',
          () => {
            file.line(`plural: ${tsString(plural)},`);
            file.line(`singular: ${tsString(singular)},`);
            file.line(`scope: ${tsString(scope)},`);
            file.line(`verbs: ${tsValue(verbs)},`);
            file.line(`subresources: ${tsValue(subresources)},`);
            file.line(`shortNames: ${tsValue(shortNames)},`);
            file.line(`categories: ${tsValue(categories)},`);
            if (printerColumns.length === 0) file.line('printerColumns: [],');
            else file.block('printerColumns: [', () => printerColumns.forEach((c) => file.line(`${tsValue(c)},`)), '],');
            file.line(`served: ${served},`);
            file.line(`storage: ${storage},`);
            file.line(`custom: ${custom},`);
            file.line(`conversion: ${tsValue(conversion)},`);
            // Kind behaviour: declared here, implemented once in the runtime (named handlers by name).
            if (selectableFields.length > 0) file.line(`selectableFields: ${tsValue(selectableFields)},`);
            if (nameValidation !== undefined) file.line(`nameValidation: ${tsString(nameValidation)},`);
            if (generation) file.line('generation: true,');
            if (virtual !== undefined) file.line(`virtual: ${tsString(virtual)},`);
            if (Object.keys(subresourceHandlers).length > 0) file.line(`subresourceHandlers: ${tsValue(subresourceHandlers)},`);
            if (hooks.length > 0) file.line(`hooks: ${tsValue(hooks)},`);
            if (scale) file.line(`scale: ${tsValue(scale)},`);
            if (deleteReturnsObject) file.line('deleteReturnsObject: true,');
            if (createOnUpdate) file.line('createOnUpdate: true,');
            if (printer !== undefined) file.line(`printer: ${tsString(printer)},`);
          },
          '},',
        );
      }
      const lifecycle = kind.lifecycle ? { ...gv.lifecycle, ...kind.lifecycle } : gv.lifecycle;
      if (lifecycle) file.line(`lifecycle: ${tsValue(lifecycle)},`);
    },
    '},',
  );
}
