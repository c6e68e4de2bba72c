/**
 * The reference server's access policy: the roles and bindings it creates at start when it
 * authorizes with RBAC (upstream's bootstrap policy, with the user-facing `admin`, `edit` and
 * `view` roles), and the RBAC authorizer's view of the server's own roles and bindings
 * (`StoreRbacLister`). The evaluation of RBAC itself is generic and stays in `runtime/auth`.
 */
export { BOOTSTRAP_POLICY, bootstrapPolicy } from './bootstrap-policy.js';
export { StoreRbacLister } from './rbac-lister.js';
