import type { GroupVersion, NamedType } from '../model/index.js';
import { allSources, groupDir, ownGroupVersions } from '../model/index.js';
import { type GeneratedFile, camelCase, tsKey, tsString, tsValue } from '../print/index.js';
import type { EmitContext } from './emit-context.js';

/** Subresources the runtime's typed clients have verbs for. */
const KNOWN_SUBRESOURCES = ['status', 'eviction', 'finalize', 'token'];
const ALL_VERBS = ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete', 'deletecollection'];

/**
 * The client artifact: `<group>/<version>/client.ts`, one typed accessor per resource that hands
 * the resource's identity, scope, kinds and subresources to runtime/client's generic
 * ResourceClient (as client-go's generated clients hand theirs to gentype). A group/version
 * without resources gets an empty module, so its index can re-export the artifact like the others.
 */
export function emitClients(ctx: EmitContext): GeneratedFile[] {
  return ownGroupVersions(ctx.model).map((gv) => emitGroupVersionClient(ctx, gv));
}

/** The kinds of a group/version that are served as resources. */
function servedResources(gv: GroupVersion): NamedType[] {
  return gv.types.filter((t) => t.kind?.resource?.served);
}

function emitGroupVersionClient(ctx: EmitContext, gv: GroupVersion): GeneratedFile {
  const file = ctx.newFile(`${groupDir(gv.group)}/${gv.version}/client.ts`, gv.sources);
  const resources = servedResources(gv);
  const label = gv.group === '' ? 'the core group' : gv.group;
  if (resources.length === 0) {
    file.doc(`${label} ${gv.version} serves no resources (its kinds are documents and payloads), so it has no client.`);
    file.line('export {};');
    return file;
  }
  const { clientInterface: iface, clientFactory: factory } = ctx.names(gv);
  file.declare(iface, factory);
  const accessors = resources.map((t) => accessor(ctx, gv, file, t));

  file.doc(`The resources of ${label} ${gv.version}, one typed accessor each.`, `Schema: ${gv.sources.join(', ')}`);
  file.block(`export interface ${iface} {`, () => {
    accessors.forEach((a, i) => {
      if (i > 0) file.line();
      file.doc(a.doc);
      file.line(`readonly ${tsKey(a.property)}: ${a.type};`);
    });
  });
  file.line();
  const transport = file.importType('Transport', ctx.runtimeModule('client'));
  file.doc(
    `Builds the client of ${label} ${gv.version} over a transport; \`createClient\` in the root client.ts does it for every group/version.`,
    `Schema: ${gv.sources.join(', ')}`,
  );
  file.block(`export function ${factory}(transport: ${transport}): ${iface} {`, () => {
    file.block(
      'return {',
      () => {
        for (const a of accessors) file.line(`${tsKey(a.property)}: ${a.factory}<${a.typeArgs}>(transport, ${a.info}),`);
      },
      '};',
    );
  });
  return file;
}

interface Accessor {
  property: string;
  doc: string;
  type: string;
  factory: string;
  typeArgs: string;
  info: string;
}

function accessor(ctx: EmitContext, gv: GroupVersion, file: GeneratedFile, t: NamedType): Accessor {
  const kind = t.kind!;
  const resource = kind.resource!;
  const types = ctx.gvModule(gv, 'types');
  const objectType = file.importType(t.id.name, types);
  const listNamed = gv.types.find((x) => x.kind?.kind === kind.listKind);
  const listType = listNamed
    ? file.importType(listNamed.id.name, types)
    : `${file.importType('ObjectList', ctx.runtimeModule('client'))}<${objectType}>`;
  const subresources = resource.subresources.filter((s) => KNOWN_SUBRESOURCES.includes(s));
  const namespaced = resource.scope === 'Namespaced';
  const accessorType = `${namespaced ? 'Namespaced' : 'Cluster'}${resource.custom ? 'Custom' : ''}Resource`;
  const typeArgs = [objectType, listType];
  const verbs = ALL_VERBS.filter((v) => resource.verbs.includes(v));
  if (subresources.length > 0 || verbs.length < ALL_VERBS.length)
    typeArgs.push(subresources.length > 0 ? subresources.map(tsString).join(' | ') : 'never');
  const missing = ALL_VERBS.filter((v) => !verbs.includes(v));
  if (missing.length > 0) {
    const verb = file.importType('Verb', ctx.runtimeModule('client'));
    typeArgs.push(
      missing.length < verbs.length ? `Exclude<${verb}, ${missing.map(tsString).join(' | ')}>` : verbs.map(tsString).join(' | ') || 'never',
    );
  }
  const property = propertyName(kind.kind, resource.plural);
  const usage = namespaced ? `\`${property}(namespace)\`, \`${property}.all()\`` : `\`${property}\``;
  const verbNote = missing.length === 0 ? '' : missing.length < verbs.length ? `no ${missing.join(', ')}` : `only ${verbs.join(', ')}`;
  const extras = [subresources.length > 0 ? `subresources ${subresources.join(', ')}` : '', verbNote].filter(Boolean).join('; ');
  const info = {
    group: gv.group,
    version: gv.version,
    resource: resource.plural,
    kind: kind.kind,
    listKind: kind.listKind,
    namespaced,
    subresources,
    ...(resource.custom ? { custom: true } : {}),
  };
  return {
    property,
    doc: `{@link ${t.id.name}}: ${usage}${extras ? ` (${extras})` : ''}.`,
    type: `${file.importType(accessorType, ctx.runtimeModule('client'))}<${typeArgs.join(', ')}>`,
    factory: file.importValue(namespaced ? 'namespacedResource' : 'clusterResource', ctx.runtimeModule('client')),
    typeArgs: `${objectType}, ${listType}`,
    info: tsValue(info),
  };
}

/**
 * `configMaps` from ConfigMap/configmaps, `httpRoutes` from HTTPRoute/httproutes,
 * `backendTLSPolicies` from BackendTLSPolicy/backendtlspolicies: the kind's words as far as the
 * plural spells them, then the plural's ending; the plural alone when it is not the kind's.
 */
function propertyName(kind: string, plural: string): string {
  const lower = kind.toLowerCase();
  let common = 0;
  while (common < lower.length && lower[common] === plural[common]) common++;
  // `policy`/`policies` shares all but the last letter; `person`/`people` shares too little.
  if (common < lower.length - 1 || common === 0) return camelCase(plural);
  return camelCase(kind.slice(0, common)) + plural.slice(common);
}

/**
 * The root `client.ts`: `createClient(config)` with every group/version as
 * `client.<group>.<version>` (`core.v1`, `batch.v1`, `flowcontrol.v1`).
 */
export function emitRootClient(ctx: EmitContext): GeneratedFile {
  const gvs = ownGroupVersions(ctx.model).filter((gv) => servedResources(gv).length > 0);
  const file = ctx.newFile('client.ts', allSources(gvs));
  const runtime = ctx.runtimeModule('client');
  file.declare('Client', 'createClient');
  const groups = groupProperties(gvs.map((gv) => gv.group));
  const byGroup = new Map<string, GroupVersion[]>();
  for (const gv of gvs) byGroup.set(gv.group, [...(byGroup.get(gv.group) ?? []), gv]);

  const clientConfig = file.importType('ClientConfig', runtime);
  const transport = file.importValue('Transport', runtime);
  file.doc('Every group/version served here as a typed client: `client.core.v1.pods(namespace)`.');
  file.block('export interface Client {', () => {
    for (const [group, versions] of byGroup) {
      file.doc(group === '' ? 'The core group (`/api/v1`).' : `${group} (\`/apis/${group}\`).`);
      file.block(
        `readonly ${tsKey(groups.get(group)!)}: {`,
        () => {
          for (const gv of versions) {
            const l = gv.lifecycle;
            if (l?.deprecated || l?.removed)
              file.doc(
                `@deprecated ${[l.deprecated && `since ${l.deprecated}`, l.removed && `not served from ${l.removed}`, l.replacement && `use ${l.replacement}`].filter(Boolean).join('; ')}.`,
              );
            file.line(`readonly ${tsKey(gv.version)}: ${file.importType(ctx.names(gv).clientInterface, ctx.gvModule(gv, 'client'))};`);
          }
        },
        '};',
      );
    }
    file.doc('The transport the accessors share, for requests they do not cover.');
    file.line(`readonly transport: ${transport};`);
  });
  file.line();
  file.doc('A typed client over a new transport built from `config`, or over an existing transport.');
  file.block(`export function createClient(config: ${clientConfig} | ${transport}): Client {`, () => {
    file.line(`const transport = config instanceof ${transport} ? config : new ${transport}(config);`);
    file.block(
      'return {',
      () => {
        for (const [group, versions] of byGroup) {
          const members = versions.map(
            (gv) => `${tsKey(gv.version)}: ${file.importValue(ctx.names(gv).clientFactory, ctx.gvModule(gv, 'client'))}(transport)`,
          );
          file.line(`${tsKey(groups.get(group)!)}: { ${members.join(', ')} },`);
        }
        file.line('transport,');
      },
      '};',
    );
  });
  return file;
}

/**
 * `core`, `batch`, `flowcontrol`, `gateway`, `certManager`: the first word of the group, as the
 * real system's clients name theirs (`FlowcontrolV1()`, `GatewayV1()`); the whole group where
 * two first words collide.
 */
function groupProperties(groups: string[]): Map<string, string> {
  const short = (g: string) => (g === '' ? 'core' : camelCase(g.split('.')[0]!));
  const unique = [...new Set(groups)];
  const counts = new Map<string, number>();
  for (const g of unique) counts.set(short(g), (counts.get(short(g)) ?? 0) + 1);
  return new Map(unique.map((g) => [g, counts.get(short(g))! > 1 ? camelCase(g) : short(g)]));
}
