import type { SchemaNode } from '../schema/index.js';

/** What every tracked write needs to know besides the objects. */
export interface OwnershipOptions {
  /** The kind's schema descriptor; undefined treats every field as untyped. */
  readonly schema: SchemaNode | undefined;
  /** A custom resource: unmarked lists are atomic and legacy patch markers are ignored. */
  readonly custom?: boolean;
  /** The apiVersion written through (`apps/v1`), recorded in the writer's entry. */
  readonly apiVersion: string;
  /** The subresource written through (`status`); omitted or empty for the resource itself. */
  readonly subresource?: string;
  /** The time recorded for the write; now when omitted. */
  readonly now?: Date | string;
  /** At most this many `Update` entries are kept (10 by default, as in the real system). */
  readonly maxUpdateManagers?: number;
}
