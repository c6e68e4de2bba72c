import type { Collector } from '../validate/index.js';
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
  /** Field renames against the storage version (dotted paths). */
  conversion: readonly { path: string; storagePath: string }[];
}

/** The lifecycle of a group/version, from the spec's "Removed versions" table. */
export interface VersionLifecycle {
  introduced?: string;
  deprecated?: string;
  removed?: string;
  replacement?: string;
}

/**
 * Everything the runtime needs about one kind, declared by generated code (`kinds.ts`): identity,
 * schema descriptor, generated validator and defaulter, and how it is served.
 */
export interface KindRegistration {
  group: string;
  version: string;
  kind: string;
  apiVersion: string;
  listKind?: string;
  schema: ObjectSchema;
  /** Structural checks; CEL rules are run by the runtime from `schema`. */
  validate(value: unknown, path: string, sink: Collector): void;
  /** Applies schema defaults in place. */
  setDefaults(value: unknown): void;
  resource?: ResourceDescriptor;
  lifecycle?: VersionLifecycle;
}
