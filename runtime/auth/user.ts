/**
 * Who made a request, as every authenticator reports it and every authorizer reads it. The shape
 * is the real system's user.Info: the names are stable strings that RBAC subjects and webhook
 * SubjectAccessReviews refer to.
 */

export interface UserInfo {
  readonly username: string;
  readonly uid?: string;
  readonly groups: readonly string[];
  /** Additional attributes (scopes, claims); keys are lowercase domain-prefixed paths. */
  readonly extra: Readonly<Record<string, readonly string[]>>;
}

export const ANONYMOUS_USER = 'system:anonymous';
export const UNAUTHENTICATED_GROUP = 'system:unauthenticated';
export const AUTHENTICATED_GROUP = 'system:authenticated';

/** The group whose members may do anything (upstream's superuser group). */
export const MASTERS_GROUP = 'system:masters';

const SERVICE_ACCOUNT_PREFIX = 'system:serviceaccount:';

/** The user of a request that carries no credential, when anonymous requests are enabled. */
export function anonymousUser(): UserInfo {
  return { username: ANONYMOUS_USER, groups: [UNAUTHENTICATED_GROUP], extra: {} };
}

/**
 * Adds `system:authenticated` to an authenticated user, so that policy can grant "every signed-in
 * user" in one binding; the anonymous user, and a user already in either of the two groups, is
 * returned unchanged.
 */
export function withAuthenticatedGroup(user: UserInfo): UserInfo {
  if (user.username === ANONYMOUS_USER) return user;
  if (user.groups.includes(AUTHENTICATED_GROUP) || user.groups.includes(UNAUTHENTICATED_GROUP)) return user;
  return { ...user, groups: [...user.groups, AUTHENTICATED_GROUP] };
}

/** The username of a service account: `system:serviceaccount:<namespace>:<name>`. */
export function serviceAccountUsername(namespace: string, name: string): string {
  return `${SERVICE_ACCOUNT_PREFIX}${namespace}:${name}`;
}

/**
 * A user as authentication/v1 UserInfo on the wire (token and self-subject reviews, admission
 * reviews): uid, groups and extra omitted when empty, as Go's omitempty drops them.
 */
export function userInfoObject(user: UserInfo): Record<string, unknown> {
  return {
    username: user.username,
    ...(user.uid ? { uid: user.uid } : {}),
    ...(user.groups.length > 0 ? { groups: [...user.groups] } : {}),
    ...(user.extra && Object.keys(user.extra).length > 0 ? { extra: user.extra } : {}),
  };
}
