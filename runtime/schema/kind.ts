import type { ObjectSchema } from './types.js';

/** A printer column of a kind's Table representation. */
export interface PrinterColumn {
  name: string;
  type: string;
  jsonPath: string;
  description?: string;
  format?: string;
  priority?: number;
}

/**
 * A subresource answered by a named handler. `kind` (`<apiVersion> <Kind>`, the spec's group
 * names) is the kind of its requests and responses when not the resource's own (`token`:
 * `authentication.svc.io/v1 TokenRequest`): the server decodes, defaults, validates and admits a
 * request body as that kind before the handler sees it, and discovery lists it. `verbs` are what
 * discovery lists (`get` when absent).
 */
export interface SubresourceDeclaration {
  handler: string;
  kind?: string;
  verbs?: readonly string[];
}

/** How a kind is served as a REST resource. */
export interface ResourceDescriptor {
  plural: string;
  singular: string;
  scope: 'Cluster' | 'Namespaced';
  verbs: readonly string[];
  subresources: readonly string[];
  shortNames: readonly string[];
  categories: readonly string[];
  printerColumns: readonly PrinterColumn[];
  served: boolean;
  storage: boolean;
  /** Defined by a CustomResourceDefinition: no Protobuf, no strategic merge patch. */
  custom: boolean;
  /**
   * How this version differs from the version declared `storage: true` (the hub every version
   * converts through), applied in order towards the hub and in reverse order away from it.
   */
  conversion: readonly ConversionRule[];
  /**
   * Fields a field selector may name beyond `metadata.name` (and `metadata.namespace` of a
   * namespaced resource): dotted paths such as `status.phase` (upstream's per-kind field label
   * conversion; a CRD's `selectableFields`).
   */
  selectableFields?: readonly string[];
  /** The rule `metadata.name` follows; `dns1123-subdomain` when absent, as most kinds upstream. */
  nameValidation?: NameValidation;
  /**
   * Whether writes bump `metadata.generation` when anything but metadata and status changes:
   * kinds with a spec (or other desired state) and custom resources, as upstream's strategies do.
   * Kinds without it (ConfigMap, Secret, Event, ...) carry no generation.
   */
  generation?: boolean;
  /**
   * A virtual kind: created, never stored. The named handler (from the server's handler catalogue)
   * answers the create, as upstream's review kinds (SubjectAccessReview, TokenReview) do.
   */
  virtual?: string;
  /** Subresources answered by a named handler of the server's catalogue instead of the generic verbs (`eviction`, `finalize`). */
  subresourceHandlers?: Readonly<Record<string, SubresourceDeclaration>>;
  /** Named lifecycle hooks of the server's catalogue that take part in this kind's writes and deletes. */
  hooks?: readonly string[];
  /** A delete that removes the object at once answers with the object, not a Status (upstream's ReturnDeletedObject). */
  deleteReturnsObject?: boolean;
  /** An update (PUT) of a missing object creates it (upstream's AllowCreateOnUpdate). */
  createOnUpdate?: boolean;
  /** The named printer of the server's catalogue that makes the kind's Table (upstream's printers.go); printerColumns otherwise. */
  printer?: string;
  /** The scale subresource's replica paths (`.spec.replicas`), as a CRD declares them. */
  scale?: { specReplicasPath: string; statusReplicasPath: string; labelSelectorPath?: string };
}

/**
 * One declared difference between a version and the hub (dotted paths; a path runs through lists
 * element by element):
 * - `{path, storagePath}`: the field is named `path` here and `storagePath` in the hub (same parent).
 * - `{path, keys, storagePath}`: the entry of map `path` under one of `keys` (the first is written)
 *   is the field `storagePath` in the hub (same parent); with `mirror`, the hub keeps its field and
 *   the map entry only repeats it: dropped on the way in when equal, added on the way out when absent.
 * - `{path, preserveZeroAnnotation}`: a zero at `path` is the schema default's "unset" in this
 *   version; on the way out of the hub a zero is marked with the annotation, which keeps the zero
 *   when written back and is dropped on the way in.
 * - `{path, readOnly: true}`: writes through this version cannot set the field: dropped on create,
 *   the stored value kept on update.
 * - `{converter}`: a conversion written as code, too irregular for the rules above (a field of one
 *   version kept in annotations of the other, as autoscaling/v1 HorizontalPodAutoscaler's), named
 *   in the server's catalogue of converters.
 */
export type ConversionRule =
  | { path: string; storagePath: string; keys?: readonly string[]; mirror?: boolean }
  | { path: string; preserveZeroAnnotation: string }
  | { path: string; readOnly: true }
  | { converter: string };

/** The name rules upstream applies to `metadata.name` (`path-segment`: anything usable as one path segment). */
export type NameValidation = 'dns1123-subdomain' | 'dns1123-label' | 'path-segment';

/** The lifecycle of a group/version, from the spec's "Removed versions" table. */
export interface VersionLifecycle {
  introduced?: string;
  deprecated?: string;
  removed?: string;
  replacement?: string;
  /** The deprecation warning verbatim (a CustomResourceDefinition's deprecated version), in place of the built one. */
  warning?: string;
}

/**
 * Everything the runtime needs about one kind, declared by generated code (`kinds.ts`): identity,
 * schema descriptor and how it is served.
 */
export interface KindRegistration {
  group: string;
  version: string;
  kind: string;
  apiVersion: string;
  listKind?: string;
  /** The schema: the runtime validates (validatorOf), defaults (defaulterOf), prunes and runs CEL rules from it. */
  schema: ObjectSchema;
  resource?: ResourceDescriptor;
  lifecycle?: VersionLifecycle;
}
