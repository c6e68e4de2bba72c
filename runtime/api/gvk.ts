/** Group, version and kind: what a document is. The core group is the empty string. */
export interface GroupVersionKind {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
}

/** `v1` for the core group, `<group>/<version>` otherwise. */
export function apiVersionOf(gvk: Pick<GroupVersionKind, 'group' | 'version'>): string {
  return gvk.group === '' ? gvk.version : `${gvk.group}/${gvk.version}`;
}

/** True when `value` is an object whose apiVersion and kind are exactly the given ones. */
export function isKind(value: unknown, apiVersion: string, kind: string): boolean {
  if (value === null || typeof value !== 'object') return false;
  const v = value as { apiVersion?: unknown; kind?: unknown };
  return v.apiVersion === apiVersion && v.kind === kind;
}
