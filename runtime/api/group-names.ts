/**
 * The names of the API groups. The spec names every named group `<name>.svc.io`; a server started
 * with another suffix (`k8s.io`, the real system's) serves each of them as `<name>.<suffix>`
 * (`rbac.authorization.k8s.io`, `coordination.k8s.io`), so that tools with compiled-in group names
 * (kubectl's typed commands, client-go, Helm) find them. Groups without the suffix (`apps`,
 * `batch`, the core group, a project's own) keep their names.
 */

/** The suffix of the spec's groups. */
export const SPEC_GROUP_SUFFIX = 'svc.io';

const SUFFIX_SYNTAX = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)+$/;

/** Checks a suffix (`k8s.io`: a DNS name of at least two labels); returns what is wrong, if anything. */
export function groupSuffixProblem(suffix: string): string | undefined {
  if (SUFFIX_SYNTAX.test(suffix)) return undefined;
  return `expected a DNS domain of at least two labels such as k8s.io or svc.io, found ${JSON.stringify(suffix)}`;
}

/**
 * A spec group under `suffix`: `rbac.authorization.svc.io` becomes `rbac.authorization.k8s.io`. The
 * bare suffix is renamed too: it prefixes keys the spec writes as `svc.io/deprecated` (upstream's
 * `k8s.io/deprecated`).
 */
export function groupWithSuffix(group: string, suffix: string): string {
  if (suffix === SPEC_GROUP_SUFFIX) return group;
  if (group === SPEC_GROUP_SUFFIX) return suffix;
  if (!group.endsWith(`.${SPEC_GROUP_SUFFIX}`)) return group;
  return `${group.slice(0, -SPEC_GROUP_SUFFIX.length)}${suffix}`;
}

/**
 * An apiVersion (`<group>/<version>`, or `v1` of the core group) under `suffix`; equally a key a
 * group's name prefixes (`authorization.svc.io/decision` becomes `authorization.k8s.io/decision`).
 */
export function apiVersionWithSuffix(apiVersion: string, suffix: string): string {
  const slash = apiVersion.indexOf('/');
  if (slash < 0) return apiVersion;
  return `${groupWithSuffix(apiVersion.slice(0, slash), suffix)}${apiVersion.slice(slash)}`;
}
