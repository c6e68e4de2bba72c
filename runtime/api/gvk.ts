/** Group, version and kind: what a document is. The core group is the empty string. */
export interface GroupVersionKind {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
}

/** A resource type within a group, as error messages and authorization name it (`deployments.apps`). */
export interface GroupResource {
  readonly group: string;
  readonly resource: string;
}

/** A kind within a group, as validation errors name it (`Deployment.apps`). */
export interface GroupKind {
  readonly group: string;
  readonly kind: string;
}

/** Group, version and resource: where a resource type is served. */
export interface GroupVersionResource {
  readonly group: string;
  readonly version: string;
  readonly resource: string;
}

/** `v1` for the core group, `<group>/<version>` otherwise. */
export function apiVersionOf(gvk: Pick<GroupVersionKind, 'group' | 'version'>): string {
  return gvk.group === '' ? gvk.version : `${gvk.group}/${gvk.version}`;
}

/** `pods` for the core group, `deployments.apps` otherwise (the real system's GroupResource.String). */
export function groupResourceString(gr: GroupResource): string {
  return gr.group === '' ? gr.resource : `${gr.resource}.${gr.group}`;
}

/** `Pod` for the core group, `Deployment.apps` otherwise (the real system's GroupKind.String). */
export function groupKindString(gk: GroupKind): string {
  return gk.group === '' ? gk.kind : `${gk.kind}.${gk.group}`;
}

/** True when `value` is an object whose apiVersion and kind are exactly the given ones. */
export function isKind(value: unknown, apiVersion: string, kind: string): boolean {
  if (value === null || typeof value !== 'object') return false;
  const v = value as { apiVersion?: unknown; kind?: unknown };
  return v.apiVersion === apiVersion && v.kind === kind;
}
