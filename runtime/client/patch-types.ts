/**
 * Typed bodies of the four patch types and of server-side apply, derived from a kind's type so a
 * misspelled field is a compile error (no `any` anywhere).
 */

type Primitive = string | number | boolean | bigint | symbol | null | undefined;

/** Every field optional, at every depth; list elements are partial too. */
export type DeepPartial<T> = T extends Primitive
  ? T
  : T extends readonly (infer U)[]
    ? DeepPartial<U>[]
    : { [K in keyof T]?: DeepPartial<T[K]> };

/**
 * A JSON Merge Patch (RFC 7386) of T: objects are merged field by field, `null` removes a field,
 * and a list is replaced whole (so its elements are complete values).
 */
export type MergePatch<T> = T extends Primitive ? T : T extends readonly unknown[] ? T : { [K in keyof T]?: MergePatch<T[K]> | null };

/** Directives a strategic merge patch may carry in any object. */
export interface StrategicDirectives {
  /** `replace` replaces the object or list, `delete` removes the list element, `merge` is the default. */
  $patch?: 'replace' | 'merge' | 'delete';
  /** Fields to keep; the others are cleared (for union-like structs). */
  $retainKeys?: string[];
}

/** `$setElementOrder/<list>` and `$deleteFromPrimitiveList/<list>` for each list field of T. */
type ListDirectives<T> = {
  [K in keyof T & string as NonNullable<T[K]> extends readonly unknown[] ? `$setElementOrder/${K}` : never]?: unknown[];
} & {
  [K in keyof T & string as NonNullable<T[K]> extends readonly (string | number | boolean)[]
    ? `$deleteFromPrimitiveList/${K}`
    : never]?: NonNullable<T[K]>;
};

/**
 * A strategic merge patch of T: like a merge patch, but lists with a merge key are merged element
 * by element (so elements are partial), with the directives of the real system.
 */
export type StrategicMergePatch<T> = T extends Primitive
  ? T
  : T extends readonly (infer U)[]
    ? (StrategicMergePatch<U> | (U extends Primitive ? never : StrategicDirectives))[]
    : { [K in keyof T]?: StrategicMergePatch<T[K]> | null } & StrategicDirectives & ListDirectives<T>;

/** One JSON Patch (RFC 6902) operation. `path` and `from` are JSON Pointers (`/spec/replicas`). */
export type JsonPatchOperation =
  | { op: 'add' | 'replace' | 'test'; path: string; value: unknown }
  | { op: 'remove'; path: string }
  | { op: 'move' | 'copy'; from: string; path: string };

type MetadataOf<T> = T extends { metadata?: infer M } ? NonNullable<M> : never;

/**
 * A server-side apply configuration of T: the fields the applier owns, deep-partial, with
 * apiVersion, kind and metadata.name required and managedFields forbidden (the spec's apply rules).
 */
export type ApplyConfiguration<T> = DeepPartial<Omit<T, 'apiVersion' | 'kind' | 'metadata'>> & {
  apiVersion: T extends { apiVersion?: infer A } ? NonNullable<A> : string;
  kind: T extends { kind?: infer K } ? NonNullable<K> : string;
  metadata: DeepPartial<Omit<MetadataOf<T>, 'name' | 'managedFields'>> & { name: string; managedFields?: never };
};
