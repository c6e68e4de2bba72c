import type { GroupVersion, NamedType, TypeNode } from '../model/index.js';
import { allSources, groupDir } from '../model/index.js';
import { type GeneratedFile, tsString } from '../print/index.js';
import { type EmitContext, gvAliasPrefix } from './emit-context.js';
import { hasProtobuf, protoFilePath, protoPackage, protobufKinds } from './proto.js';

/**
 * The Protobuf codec artifact: `<group>/<version>/protobuf.ts` declaring the group/version's
 * Protobuf package (name, .proto file, kinds, embedded structs) for the runtime's descriptor-driven
 * codec, and a root `protobuf.ts` listing every package. No encoding logic is generated: field
 * numbers and wire forms come from the schema descriptors (see docs/decisions.md, "Protobuf codecs").
 */
export function emitProtobufPackages(ctx: EmitContext): GeneratedFile[] {
  const gvs = ctx.model.groupVersions.filter(hasProtobuf);
  const files = gvs.map((gv) => emitGroupVersionPackage(ctx, gv));
  const root = ctx.newFile('protobuf.ts', allSources(gvs));
  const type = root.importType('ProtobufPackage', ctx.runtimeModule('codec'));
  const names = gvs.map((gv) => root.importValue(protobufConstName(ctx, gv), ctx.gvModule(gv, 'protobuf')));
  root.declare('allProtobufPackages');
  root.doc('The Protobuf package of every group/version generated here that has Protobuf messages.');
  root.block(`export const allProtobufPackages: readonly ${type}[] = [`, () => names.forEach((n) => root.line(`${n},`)), '];');
  return [...files, root];
}

/** `coreV1Protobuf`: the Protobuf package constant of a group/version. */
export function protobufConstName(ctx: EmitContext, gv: Pick<GroupVersion, 'group' | 'version'>): string {
  return `${ctx.namespace(gv)}Protobuf`;
}

function emitGroupVersionPackage(ctx: EmitContext, gv: GroupVersion): GeneratedFile {
  const file = ctx.newFile(`${groupDir(gv.group)}/${gv.version}/protobuf.ts`, gv.sources);
  const type = file.importType('ProtobufPackage', ctx.runtimeModule('codec'));
  const schema = (id: { group: string; version: string; name: string }): string => {
    const module = ctx.gvModule(id, 'schema');
    const same = id.group === gv.group && id.version === gv.version;
    return same
      ? file.importValue(ctx.names(id).schema(id.name), module)
      : file.importValue(ctx.names(id).schema(id.name), module, gvAliasPrefix(id));
  };
  file.declare(protobufConstName(ctx, gv));
  file.doc(
    `Protobuf messages of ${gv.group === '' ? 'the core group' : gv.group} ${gv.version}: package \`${protoPackage(gv)}\` in \`${protoFilePath(gv)}\`.`,
  );
  file.block(
    `export const ${protobufConstName(ctx, gv)}: ${type} = {`,
    () => {
      file.line(`package: ${tsString(protoPackage(gv))},`);
      file.line(`file: ${tsString(protoFilePath(gv))},`);
      const kinds = protobufKinds(gv);
      if (kinds.length === 0) file.line('kinds: [],');
      else {
        file.block(
          'kinds: [',
          () => {
            for (const t of kinds)
              file.line(`{ apiVersion: ${tsString(t.kind!.apiVersion)}, kind: ${tsString(t.kind!.kind)}, schema: ${schema(t.id)} },`);
          },
          '],',
        );
      }
      const embedded = embeddedStructs(gv);
      if (embedded.length === 0) file.line('embedded: [],');
      else {
        file.block(
          'embedded: [',
          () => {
            for (const e of embedded) file.line(`{ owner: ${schema(e.owner.id)}, number: ${e.number}, type: ${schema(e.type)} },`);
          },
          '],',
        );
      }
    },
    '};',
  );
  return file;
}

interface Embedded {
  owner: NamedType;
  number: number;
  type: { group: string; version: string; name: string };
}

/** Every (named type, field number, embedded type) whose fields the named type inlines. */
function embeddedStructs(gv: GroupVersion): Embedded[] {
  const out: Embedded[] = [];
  for (const t of gv.types) {
    if (t.node.kind !== 'object') continue;
    const seen = new Set<number>();
    for (const f of t.node.fields) {
      if (!f.embeddedVia || seen.has(f.embeddedVia.protoTag)) continue;
      seen.add(f.embeddedVia.protoTag);
      out.push({ owner: t, number: f.embeddedVia.protoTag, type: f.embeddedVia.type });
    }
    for (const f of t.node.fields) checkNoAnonymousEmbeds(f.type, `${t.id.name}.${f.name}`, gv);
  }
  return out;
}

/** Anonymous objects have no descriptor constant to name, so they cannot declare embedded structs. */
function checkNoAnonymousEmbeds(node: TypeNode, path: string, gv: GroupVersion): void {
  if (node.kind === 'object') {
    if (node.fields.some((f) => f.embeddedVia)) {
      throw new Error(
        `${gv.sources.join(', ')}: ${path} is an anonymous object that embeds a type with a Protobuf number; give it a name in the schema`,
      );
    }
    for (const f of node.fields) checkNoAnonymousEmbeds(f.type, `${path}.${f.name}`, gv);
  } else if (node.kind === 'list') checkNoAnonymousEmbeds(node.items, `${path}[]`, gv);
  else if (node.kind === 'map') checkNoAnonymousEmbeds(node.values, `${path}{}`, gv);
}
