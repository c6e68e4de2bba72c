import type { DescribedModel, Model, TypeId } from '../../generator/index.js';
import * as meta from '../../generated/meta.svc.io/v1/index.js';
import type { KindRegistration, ObjectSchema } from '../../runtime/schema/index.js';

export interface ProjectKinds {
  kinds: readonly KindRegistration[];
  openApiDocuments: Record<string, () => Promise<Record<string, unknown>>>;
}

/**
 * A project's schemas or CRDs (`--schemas`), loaded and described in memory: the same runtime then
 * serves or checks them, validating and defaulting from the descriptors (nothing is generated,
 * written or imported).
 */
export async function projectKinds(schemas: string[], command: string, options: { quiet?: boolean } = {}): Promise<ProjectKinds> {
  const { describeModel, loadSchemas } = await generator();
  const model = loadSchemas({
    inputs: schemas,
    others: 'skip',
    warn: (line) => process.stderr.write(`svckit ${command}: warning: ${line}\n`),
  });
  const project = registrations(model, describeModel);
  const groupVersions = model.groupVersions.filter((gv) => !gv.external).length;
  if (!options.quiet) process.stderr.write(`svckit ${command}: loaded ${groupVersions} group/versions, ${project.kinds.length} kinds\n`);
  return project;
}

/**
 * The kinds one CustomResourceDefinition (an object the server stores) declares. Loader errors
 * name the definition as `customresourcedefinitions/<name>`, where a file would be named.
 */
export async function definitionKinds(definition: unknown): Promise<ProjectKinds> {
  // Only what the kinds are built from: metadata beyond the name and status play no part.
  const { apiVersion, kind, metadata, spec } = definition as {
    apiVersion?: unknown;
    kind?: unknown;
    metadata?: { name?: unknown };
    spec?: unknown;
  };
  const value = { apiVersion, kind, metadata: { name: metadata?.name }, spec };
  const { describeModel, loadDocuments } = await generator();
  return registrations(loadDocuments([{ source: `customresourcedefinitions/${String(metadata?.name)}`, value }]), describeModel);
}

/**
 * The generator's loader and describer, loaded on first use: a server without --schemas compiles
 * nothing before its first CustomResourceDefinition, and a start need not load them (issue 27).
 */
function generator(): Promise<typeof import('../../generator/index.js')> {
  return import('../../generator/index.js');
}

/** Registrations of the descriptors of `model`: the runtime validates and defaults them with the schema engine. */
function registrations(model: Model, describeModel: typeof import('../../generator/index.js').describeModel): ProjectKinds {
  const described: DescribedModel = describeModel(model, { external: builtinMeta });
  const kinds = described.kinds.map((k): KindRegistration => {
    const { resource, lifecycle, schema: node, ...identity } = k as KindRegistration;
    const schema = node as ObjectSchema;
    // In the order generated `kinds.ts` declares them.
    const kind: KindRegistration = { ...identity, schema };
    if (resource) kind.resource = resource;
    if (lifecycle) kind.lifecycle = lifecycle;
    return kind;
  });
  const openApiDocuments = Object.fromEntries(
    Object.entries(described.openApiDocuments).map(([path, build]) => [path, async () => build() as unknown as Record<string, unknown>]),
  );
  return { kinds, openApiDocuments };
}

const META_GROUP = 'meta.svc.io';

/** References to the meta types resolve to svckit's own generated descriptors (`ObjectMetaSchema`). */
function builtinMeta(id: TypeId): unknown {
  if (id.group !== META_GROUP || id.version !== 'v1') return undefined;
  return (meta as Record<string, unknown>)[`${id.name}Schema`];
}
