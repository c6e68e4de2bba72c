import type { GroupVersion, Model, TypeId } from '../model/index.js';
import { ModelIndex, ownGroupVersions, typeKey } from '../model/index.js';
import { DescriptorBuilder } from './descriptor.js';
import { type KindData, kindData } from './kinds.js';
import { openApiPath } from './openapi.js';
import { type OpenApiDocument, openApiDocument } from './openapi-document.js';

/**
 * A kind as `kinds.ts` declares it, with its schema descriptor in memory (references are thunks).
 * The generator does not know the runtime's types: the caller reads `schema` as its ObjectSchema.
 */
export interface DescribedKind extends KindData {
  schema: unknown;
}

/** What codegen would write for a model's own group/versions, as values in memory instead of files. */
export interface DescribedModel {
  /** Every kind of every own group/version, in the order of the root `kinds.ts`. */
  kinds: DescribedKind[];
  /** The descriptor of every named type of the own group/versions, by TypeId. */
  schema(id: TypeId): unknown;
  /** The OpenAPI documents by path below `/openapi/v3/` (as the root `openapi.ts`), built on first use. */
  openApiDocuments: Record<string, () => OpenApiDocument>;
}

export interface DescribeOptions {
  /**
   * The descriptor of a type of an external group/version (the built-in meta types a CRD refers
   * to), such as the caller's generated one. Without it, or when it answers undefined, the
   * descriptor is built from the model.
   */
  external?: (id: TypeId) => unknown;
}

/**
 * The schema descriptors, kind registrations and OpenAPI documents of a model's own group/versions,
 * built in memory from the same code that prints `schema.ts`, `kinds.ts` and `openapi.ts`: nothing
 * is written, compiled or imported (a server serving a CustomResourceDefinition).
 */
export function describeModel(model: Model, options: DescribeOptions = {}): DescribedModel {
  const index = new ModelIndex(model);
  const descriptors = new Map<string, unknown>();
  const described = new Set<GroupVersion>();
  const resolve = (id: TypeId): unknown => {
    const key = typeKey(id);
    if (!descriptors.has(key)) {
      const gv = index.groupVersion(id.group, id.version);
      const outside = gv?.external ? options.external?.(id) : undefined;
      if (outside !== undefined) descriptors.set(key, outside);
      else if (gv && !described.has(gv)) describe(gv);
    }
    const found = descriptors.get(key);
    if (found === undefined) throw new Error(`no schema descriptor of ${key}`);
    return found;
  };
  const describe = (gv: GroupVersion): void => {
    described.add(gv);
    const builder = new DescriptorBuilder(gv, (target) => () => resolve(target));
    for (const t of gv.types) descriptors.set(typeKey(t.id), builder.namedType(t));
  };
  const own = ownGroupVersions(model);
  for (const gv of own) describe(gv);
  const kinds = own.flatMap((gv) => gv.types.filter((t) => t.kind).map((t) => ({ ...kindData(gv, t), schema: resolve(t.id) })));
  const openApiDocuments: Record<string, () => OpenApiDocument> = {};
  for (const gv of own.filter((g) => g.types.some((t) => t.kind?.resource))) {
    let doc: OpenApiDocument | undefined;
    openApiDocuments[openApiPath(gv)] = () => (doc ??= openApiDocument(model, `svckit ${openApiPath(gv)}`, [gv]));
  }
  return { kinds, schema: resolve, openApiDocuments };
}
