import type { Field, GroupVersion, NamedType, TypeId, TypeNode, ValidationRule } from '../model/index.js';
import { schemaName } from './openapi-document.js';

/**
 * A schema descriptor as plain data (runtime/schema/types.ts's SchemaNode), with each reference
 * as `R`: the target's TypeId for the printer of `schema.ts`, a thunk to the target's descriptor
 * in memory. Properties come in the order `schema.ts` prints them.
 */
export type DescriptorData<R> = { [key: string]: unknown; ref?: R };

/** Builds the descriptors of one group/version's named types; `reference` makes what a reference holds. */
export class DescriptorBuilder<R> {
  /** The group/version is defined by CRDs: its named types are checked as custom resources. */
  private readonly customResources: boolean;

  constructor(
    gv: GroupVersion,
    private readonly reference: (target: TypeId) => R,
  ) {
    this.customResources = gv.types.some((t) => t.kind?.resource?.custom === true);
  }

  namedType(t: NamedType): DescriptorData<R> {
    return this.node(t.node, schemaName(t.id));
  }

  node(node: TypeNode, typeName?: string): DescriptorData<R> {
    const d: DescriptorData<R> = {};
    switch (node.kind) {
      case 'object':
        d.type = 'object';
        if (typeName) d.typeName = typeName;
        if (typeName && this.customResources) d.customResource = true;
        d.fields = node.fields.map((f) => this.field(f));
        if (node.preserveUnknown) d.preserveUnknown = true;
        if (node.embeddedResource) d.embeddedResource = true;
        if (node.structType) d.structType = node.structType;
        break;
      case 'map':
        d.type = 'map';
        d.values = this.node(node.values);
        if (node.mapType) d.mapType = node.mapType;
        break;
      case 'list':
        d.type = 'list';
        d.items = this.node(node.items);
        if (node.listType) d.listType = node.listType;
        if (node.listMapKeys) d.listMapKeys = node.listMapKeys;
        break;
      case 'scalar':
        d.type = node.type;
        if (node.format) d.format = node.format;
        break;
      case 'time':
        d.type = node.format;
        break;
      case 'ref':
        d.type = 'ref';
        d.ref = this.reference(node.target);
        break;
      default:
        d.type = node.kind;
    }
    if (node.nullable) d.nullable = true;
    if (node.default !== undefined) d.default = node.default;
    if (node.constraints) Object.assign(d, node.constraints);
    if (node.validations?.length) d.rules = node.validations.map(withoutSpec);
    if (node.valueValidation) d.valueValidation = node.valueValidation;
    return d;
  }

  private field(f: Field): DescriptorData<R> {
    const d: DescriptorData<R> = { name: f.name, schema: this.node(f.type) };
    if (f.required) d.required = true;
    if (f.protoTag !== undefined && !f.embeddedVia) d.proto = f.protoTag;
    if (f.embeddedVia) d.embeddedProto = f.embeddedVia.protoTag;
    if (f.deprecated) d.deprecated = f.deprecated;
    if (f.secret) d.secret = true;
    if (f.defaultZeroIsUnset) d.defaultZeroIsUnset = true;
    if (f.zeroIsUnset) d.zeroIsUnset = true;
    if (f.patchStrategy) d.patchStrategy = f.patchStrategy;
    if (f.patchMergeKey) d.patchMergeKey = f.patchMergeKey;
    return d;
  }
}

/** A rule as the runtime reads it: the CEL source without the loader's parsed form. */
function withoutSpec({ spec: _spec, ...rule }: ValidationRule): Omit<ValidationRule, 'spec'> {
  return rule;
}
