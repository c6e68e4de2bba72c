/**
 * The generator's intermediate representation: one normalized, fully resolved description of
 * every group, version, kind and resource. Loaders produce it; every emitter reads only it.
 */

/** Where a model element came from, for error messages: the file and the JSON path in it. */
export interface SourceRef {
  file: string;
  path: string;
}

/** A CEL rule attached to a node; `self` is the node's value. */
export interface ValidationRule {
  rule: string;
  message?: string;
  messageExpression?: string;
  reason?: string;
  fieldPath?: string;
  optionalOldSelf?: boolean;
  /** The spec sentence this rule implements, when the schema says. */
  spec?: string;
}

/** Value constraints that apply to any node. Absent means unconstrained. */
export interface Constraints {
  enum?: readonly unknown[];
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: boolean;
  exclusiveMaximum?: boolean;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  minItems?: number;
  maxItems?: number;
  minProperties?: number;
  maxProperties?: number;
}

/**
 * A CRD's inline `allOf`/`anyOf`/`oneOf`/`not` (upstream's ValueValidation): checks of the value
 * the node already has the structure of, never types of their own.
 */
export interface ValueValidation {
  allOf?: NestedValueValidation[];
  anyOf?: NestedValueValidation[];
  oneOf?: NestedValueValidation[];
  not?: NestedValueValidation;
}

/** One branch of a {@link ValueValidation}: constraints on the value and on its parts, by the same names. */
export interface NestedValueValidation extends ValueValidation {
  constraints?: Constraints;
  /** Format checked on strings (upstream checks the formats it knows). */
  format?: string;
  required?: string[];
  properties?: Record<string, NestedValueValidation>;
  items?: NestedValueValidation;
}

interface NodeBase {
  description?: string;
  nullable?: boolean;
  default?: unknown;
  constraints?: Constraints;
  valueValidation?: ValueValidation;
  validations?: ValidationRule[];
  spec?: string;
}

export type ScalarType = 'string' | 'integer' | 'number' | 'boolean';

export interface ScalarNode extends NodeBase {
  kind: 'scalar';
  type: ScalarType;
  /** int32, int64, float, double, or a free-form string format (email, uri, ...). */
  format?: string;
}

/** Strings with a wire form of their own. */
export interface BytesNode extends NodeBase {
  kind: 'bytes';
}
export interface TimeNode extends NodeBase {
  kind: 'time';
  format: 'date' | 'date-time';
}
export interface DurationNode extends NodeBase {
  kind: 'duration';
}
export interface QuantityNode extends NodeBase {
  kind: 'quantity';
}
export interface IntOrStringNode extends NodeBase {
  kind: 'int-or-string';
}
/** Any JSON document, kept as written (RawExtension, FieldsV1, plugin args). */
export interface RawNode extends NodeBase {
  kind: 'raw';
}

export interface Field {
  /** JSON property name, exactly as on the wire. */
  name: string;
  type: TypeNode;
  required: boolean;
  description?: string;
  /** Protobuf field number. */
  protoTag?: number;
  deprecated?: string;
  secret?: boolean;
  /** An explicit zero is replaced by the default too (a non-pointer field upstream). */
  defaultZeroIsUnset?: boolean;
  /**
   * A zero value ("", 0, false) is the same as absent: a non-pointer `omitempty` field upstream,
   * which Go cannot tell unset from zero in, and which Protobuf clients always send.
   */
  zeroIsUnset?: boolean;
  /** Legacy strategic-merge markers. */
  patchStrategy?: string;
  patchMergeKey?: string;
  /**
   * Set on fields inlined from an embedded type (`allOf`) that Protobuf nests as one message field
   * (the real system's embedded structs, such as Probe's handler).
   */
  embeddedVia?: { type: TypeId; protoTag: number };
}

export interface ObjectNode extends NodeBase {
  kind: 'object';
  fields: Field[];
  /** Unknown fields are kept rather than pruned. */
  preserveUnknown?: boolean;
  /** An embedded resource: carries apiVersion, kind and metadata of its own. */
  embeddedResource?: boolean;
  structType?: 'atomic' | 'granular';
}

export interface MapNode extends NodeBase {
  kind: 'map';
  values: TypeNode;
  mapType?: 'atomic' | 'granular';
}

export interface ListNode extends NodeBase {
  kind: 'list';
  items: TypeNode;
  listType?: 'atomic' | 'set' | 'map';
  listMapKeys?: string[];
}

/** A reference to a named type, resolved: the target exists in the model. */
export interface RefNode extends NodeBase {
  kind: 'ref';
  target: TypeId;
}

export type TypeNode =
  | ScalarNode
  | BytesNode
  | TimeNode
  | DurationNode
  | QuantityNode
  | IntOrStringNode
  | RawNode
  | ObjectNode
  | MapNode
  | ListNode
  | RefNode;

/** Identifies a named type: its group/version and its name there. */
export interface TypeId {
  group: string;
  version: string;
  name: string;
}

export interface PrinterColumn {
  name: string;
  type: string;
  jsonPath: string;
  description?: string;
  format?: string;
  priority?: number;
}

/** A declared difference between a version and the storage version (see the runtime's `ConversionRule`). */
export type FieldRename =
  | {
      /** Dotted path in this version. */
      path: string;
      /** Dotted path in the storage version. */
      storagePath: string;
      /** The map entry under one of these keys (the first is written) is the storage field. */
      keys?: string[];
      /** The map entry only repeats the storage field. */
      mirror?: boolean;
    }
  | { path: string; preserveZeroAnnotation: string }
  | { path: string; readOnly: true }
  | { converter: string };

export type Scope = 'Cluster' | 'Namespaced';

export interface ResourceInfo {
  plural: string;
  singular: string;
  scope: Scope;
  verbs: string[];
  subresources: string[];
  shortNames: string[];
  categories: string[];
  printerColumns: PrinterColumn[];
  served: boolean;
  storage: boolean;
  conversion: FieldRename[];
  /** True for kinds defined by a CustomResourceDefinition (no Protobuf, no strategic merge). */
  custom: boolean;
  /** Field selector paths beyond metadata.name/namespace (dotted, `status.phase`). */
  selectableFields: string[];
  /** The rule of metadata.name; undefined is a DNS subdomain. */
  nameValidation?: NameValidation;
  /** Whether writes track `metadata.generation`. */
  generation: boolean;
  /** Name of the handler answering creates of a virtual (never stored) kind. */
  virtual?: string;
  /** Subresource name -> its handler (and request kind and verbs), for subresources with behaviour of their own. */
  subresourceHandlers: Record<string, SubresourceDeclaration>;
  /** Named lifecycle hooks the kind's writes and deletes run. */
  hooks: string[];
  /** A delete that removes the object at once answers with the object, not a Status (upstream's ReturnDeletedObject). */
  deleteReturnsObject?: boolean;
  /** An update of a missing object creates it (upstream's AllowCreateOnUpdate). */
  createOnUpdate?: boolean;
  /** The named printer of the server's catalogue that makes the kind's Table (upstream's printers.go); printerColumns otherwise. */
  printer?: string;
  /** Where the scale subresource reads and writes replicas (a CRD's `subresources.scale`). */
  scale?: ScalePaths;
}

/** A CRD's `subresources.scale`: JSON paths (`.spec.replicas`) into the object. */
export interface ScalePaths {
  specReplicasPath: string;
  statusReplicasPath: string;
  labelSelectorPath?: string;
}

/** The rule `metadata.name` follows. */
export type NameValidation = 'dns1123-subdomain' | 'dns1123-label' | 'path-segment';

export interface KindInfo {
  kind: string;
  /** apiVersion written on the wire; usually `<group>/<version>` or `v1` for the core group. */
  apiVersion: string;
  listKind: string;
  resource?: ResourceInfo;
  /** The kind's own lifecycle where it differs from its group/version's (a deprecated kind of a GA version). */
  lifecycle?: Lifecycle;
}

export interface NamedType {
  id: TypeId;
  description?: string;
  node: TypeNode;
  kind?: KindInfo;
  source: SourceRef;
}

export interface Lifecycle {
  introduced?: string;
  deprecated?: string;
  removed?: string;
  replacement?: string;
  /** The deprecation warning verbatim (a CustomResourceDefinition's deprecated version). */
  warning?: string;
}

export interface GroupVersion {
  group: string;
  version: string;
  description?: string;
  lifecycle?: Lifecycle;
  /**
   * The files it was loaded from (a CRD per kind can split one group/version over several), sorted;
   * once loaded, paths relative to the schemas root (see loadSchemas).
   */
  sources: string[];
  /**
   * Loaded only because the project's schemas refer to it (the built-in meta types): emitters
   * import it from svckit's own generated code instead of writing it again.
   */
  external?: boolean;
  types: NamedType[];
}

export interface Model {
  groupVersions: GroupVersion[];
}

/** A subresource's handler, and the kind (`<apiVersion> <Kind>`) and verbs of its requests when declared (runtime/schema's twin). */
export interface SubresourceDeclaration {
  handler: string;
  kind?: string;
  verbs?: string[];
}
