/**
 * Schema descriptors: the plain-data description of a type that generated code declares and the
 * runtime reads (pruning, defaulting, CEL typing, apply's merge markers, Protobuf field numbers).
 * Generated `schema.ts` files hold one constant per named type; references between named types are
 * thunks so that declaration order and recursion do not matter.
 */
import type { ValueConstraints, ValueValidation } from '../validate/index.js';

export interface Rule {
  /** CEL expression; `self` is the value of the node the rule sits on. */
  rule: string;
  message?: string;
  messageExpression?: string;
  reason?: string;
  fieldPath?: string;
  optionalOldSelf?: boolean;
}

/** Constraints and annotations every node may carry. */
export interface NodeCommon extends ValueConstraints {
  description?: string;
  nullable?: boolean;
  default?: unknown;
  rules?: readonly Rule[];
  /** A CRD's inline allOf/anyOf/oneOf/not: value checks beside the structure. */
  valueValidation?: ValueValidation;
}

export interface FieldSchema {
  /** JSON property name. */
  name: string;
  schema: SchemaNode;
  required?: boolean;
  /** Protobuf field number. */
  proto?: number;
  /**
   * Inlined from an embedded type that Protobuf nests as one message field with this number; the
   * fields sharing the number form that nested message (they carry their own numbers in `proto`
   * of the embedded type's descriptor).
   */
  embeddedProto?: number;
  deprecated?: string;
  secret?: boolean;
  /** An explicit zero value is replaced by the default too. */
  defaultZeroIsUnset?: boolean;
  /** A zero value ("", 0, false) is the same as absent (a non-pointer `omitempty` field upstream). */
  zeroIsUnset?: boolean;
  patchStrategy?: string;
  patchMergeKey?: string;
}

export interface ObjectSchema extends NodeCommon {
  type: 'object';
  /** Fields in declaration order. */
  fields: readonly FieldSchema[];
  preserveUnknown?: boolean;
  embeddedResource?: boolean;
  structType?: 'atomic' | 'granular';
  /** The named type this is, for messages and CEL type names (`core.v1.PodSpec`). */
  typeName?: string;
  /**
   * A named type of a group/version defined by CustomResourceDefinitions: checked as upstream checks
   * custom resources, in kube-openapi's words (`spec.size in body should be less than or equal to 5`),
   * where built-in kinds have Go validation code with messages of its own.
   */
  customResource?: boolean;
}

export interface MapSchema extends NodeCommon {
  type: 'map';
  values: SchemaNode;
  mapType?: 'atomic' | 'granular';
}

export interface ListSchema extends NodeCommon {
  type: 'list';
  items: SchemaNode;
  listType?: 'atomic' | 'set' | 'map';
  listMapKeys?: readonly string[];
}

export interface ScalarSchema extends NodeCommon {
  type: 'string' | 'integer' | 'number' | 'boolean';
  format?: string;
}

/** Strings with a wire form of their own, int-or-string, and any JSON (`raw`). */
export interface SpecialSchema extends NodeCommon {
  type: 'bytes' | 'date' | 'date-time' | 'duration' | 'quantity' | 'int-or-string' | 'raw';
}

/** A reference to a named type's descriptor (a thunk: declaration order and recursion do not matter). */
export interface RefSchema extends NodeCommon {
  type: 'ref';
  ref: () => SchemaNode;
}

export type SchemaNode = ObjectSchema | MapSchema | ListSchema | ScalarSchema | SpecialSchema | RefSchema;

/** Follows references until a concrete node. */
export function deref(node: SchemaNode): Exclude<SchemaNode, RefSchema> {
  let n = node;
  for (let i = 0; n.type === 'ref'; i++) {
    if (i > 64) throw new Error('schema reference cycle');
    n = n.ref();
  }
  return n;
}
