/**
 * The roles and bindings a server creates at start when it authorizes with RBAC, as upstream's
 * bootstrap policy does: `cluster-admin` for the `system:masters` group, discovery and the
 * self-reviews (`kubectl auth can-i`) for every authenticated user, the public health and
 * version paths for everyone, anonymous users included, and the service-account issuer's discovery
 * documents for service accounts; and the user-facing `admin`, `edit` and `view` roles to bind.
 * Everything else must be granted.
 */
import { SPEC_GROUP_SUFFIX, groupWithSuffix } from '../../runtime/api/index.js';
import {
  AUTHENTICATED_GROUP,
  AUTHORIZATION_GROUP,
  JWKS_PATH,
  MASTERS_GROUP,
  OPENID_CONFIGURATION_PATH,
  RBAC_GROUP,
  SERVICE_ACCOUNTS_GROUP,
  UNAUTHENTICATED_GROUP,
} from '../../runtime/auth/index.js';
import { userFacingRoles } from './user-facing-roles.js';

/** Marks the objects the server made, so an administrator can tell them from their own. */
const BOOTSTRAP_LABELS = { 'svc.io/bootstrapping': 'rbac-defaults' };

type Manifest = Record<string, unknown> & { kind: string; metadata: { name: string; labels: Record<string, string> } };

function clusterRole(rbac: string, name: string, rules: Record<string, string[]>[]): Manifest {
  return { apiVersion: `${rbac}/v1`, kind: 'ClusterRole', metadata: { name, labels: BOOTSTRAP_LABELS }, rules };
}

/** admin, edit, view and the roles they gather, labelled to join one another. */
function userFacing(rbac: string, groupSuffix: string): Manifest[] {
  return userFacingRoles(rbac, (g) => groupWithSuffix(g, groupSuffix)).map((r) => ({
    apiVersion: `${rbac}/v1`,
    kind: 'ClusterRole',
    metadata: { name: r.name, labels: { ...BOOTSTRAP_LABELS, ...Object.fromEntries(r.joins.map((l) => [l, 'true'])) } },
    ...(r.gathers ? { aggregationRule: { clusterRoleSelectors: [{ matchLabels: { [r.gathers]: 'true' } }] } } : { rules: r.rules }),
  }));
}

function binding(rbac: string, name: string, role: string, groups: string[]): Manifest {
  return {
    apiVersion: `${rbac}/v1`,
    kind: 'ClusterRoleBinding',
    metadata: { name, labels: BOOTSTRAP_LABELS },
    roleRef: { apiGroup: rbac, kind: 'ClusterRole', name: role },
    subjects: groups.map((g) => ({ kind: 'Group', apiGroup: rbac, name: g })),
  };
}

const PUBLIC_PATHS = ['/healthz', '/livez', '/readyz', '/version', '/version/'];
const ISSUER_DISCOVERY_PATHS = [OPENID_CONFIGURATION_PATH, `${OPENID_CONFIGURATION_PATH}/`, JWKS_PATH, `${JWKS_PATH}/`];

/** ClusterRoles first, then the bindings that reference them, naming the groups under `groupSuffix` (`--group-suffix`). */
export function bootstrapPolicy(groupSuffix = SPEC_GROUP_SUFFIX): readonly Manifest[] {
  const rbac = groupWithSuffix(RBAC_GROUP, groupSuffix);
  return [
    clusterRole(rbac, 'cluster-admin', [
      { apiGroups: ['*'], resources: ['*'], verbs: ['*'] },
      { nonResourceURLs: ['*'], verbs: ['*'] },
    ]),
    clusterRole(rbac, 'system:discovery', [
      { nonResourceURLs: ['/api', '/api/*', '/apis', '/apis/*', '/openapi', '/openapi/*', ...PUBLIC_PATHS], verbs: ['get'] },
    ]),
    clusterRole(rbac, 'system:basic-user', [
      { apiGroups: [groupWithSuffix('authentication.svc.io', groupSuffix)], resources: ['selfsubjectreviews'], verbs: ['create'] },
      {
        apiGroups: [groupWithSuffix(AUTHORIZATION_GROUP, groupSuffix)],
        resources: ['selfsubjectaccessreviews', 'selfsubjectrulesreviews'],
        verbs: ['create'],
      },
    ]),
    clusterRole(rbac, 'system:public-info-viewer', [{ nonResourceURLs: PUBLIC_PATHS, verbs: ['get'] }]),
    // For delegated authentication and authorization (webhooks, metrics endpoints, proxies): bound by whoever needs it.
    clusterRole(rbac, 'system:auth-delegator', [
      { apiGroups: [groupWithSuffix('authentication.svc.io', groupSuffix)], resources: ['tokenreviews'], verbs: ['create'] },
      { apiGroups: [groupWithSuffix(AUTHORIZATION_GROUP, groupSuffix)], resources: ['subjectaccessreviews'], verbs: ['create'] },
    ]),
    clusterRole(rbac, 'system:service-account-issuer-discovery', [{ nonResourceURLs: ISSUER_DISCOVERY_PATHS, verbs: ['get'] }]),
    ...userFacing(rbac, groupSuffix),
    binding(rbac, 'cluster-admin', 'cluster-admin', [MASTERS_GROUP]),
    binding(rbac, 'system:discovery', 'system:discovery', [AUTHENTICATED_GROUP]),
    binding(rbac, 'system:basic-user', 'system:basic-user', [AUTHENTICATED_GROUP]),
    binding(rbac, 'system:public-info-viewer', 'system:public-info-viewer', [AUTHENTICATED_GROUP, UNAUTHENTICATED_GROUP]),
    // Upstream grants issuer discovery to service accounts only; an administrator who wants
    // relying parties to read it anonymously binds the role to system:unauthenticated too.
    binding(rbac, 'system:service-account-issuer-discovery', 'system:service-account-issuer-discovery', [SERVICE_ACCOUNTS_GROUP]),
  ];
}

/** The bootstrap policy under the spec's group names. */
export const BOOTSTRAP_POLICY: readonly Manifest[] = bootstrapPolicy();
