/** Object metadata as the runtime reads it; the generated `ObjectMeta` is assignable to it. */
export interface ObjectMeta {
  name?: string;
  generateName?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string;
  /** null is unset, as the generated type allows. */
  deletionTimestamp?: string | null;
  deletionGracePeriodSeconds?: number;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  finalizers?: string[];
  ownerReferences?: unknown[];
  managedFields?: unknown[];
}

/** Any API object: type meta and metadata. Generated kinds are assignable to it. */
export interface ApiObject {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
}

/** An API object as decoded JSON: its other fields (`spec`, `status`, `data`) are open. */
export type JsonApiObject = ApiObject & { [field: string]: unknown };

/** RFC 3339 with seconds, as the real system writes metadata timestamps. */
export function timestamp(date: Date): string {
  return `${date.toISOString().slice(0, 19)}Z`;
}
