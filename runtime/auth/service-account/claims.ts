/**
 * The claims of a service-account token, as upstream writes them: the registered claims (`iss`,
 * `sub` = `system:serviceaccount:<ns>:<name>`, `aud`, `exp`, `iat`, `nbf`, `jti`) and the private
 * `kubernetes.io` claim naming the namespace, the service account and the object the token is
 * bound to (a pod, with the node it runs on, or a secret), each by name and UID; and the user a
 * verified token stands for.
 */
import { serviceAccountUsername, type UserInfo } from '../user.js';

/** An object a token names: its name and UID. */
export interface ObjectRef {
  readonly name: string;
  readonly uid: string;
}

/** The private claim `kubernetes.io`. */
export interface KubernetesClaim {
  readonly namespace: string;
  readonly serviceaccount: ObjectRef;
  readonly pod?: ObjectRef;
  readonly secret?: ObjectRef;
  /** The node of a bound pod (upstream's ServiceAccountTokenPodNodeInfo, beta in 1.30); `uid` is empty when no Node object exists. */
  readonly node?: { readonly name: string; readonly uid?: string };
}

export interface ServiceAccountClaims {
  readonly iss: string;
  readonly sub: string;
  readonly aud: readonly string[];
  readonly exp: number;
  readonly iat: number;
  readonly nbf: number;
  readonly jti: string;
  readonly 'kubernetes.io': KubernetesClaim;
}

/** The group of every service account, and of those of one namespace. */
export const SERVICE_ACCOUNTS_GROUP = 'system:serviceaccounts';
export function serviceAccountsGroup(namespace: string): string {
  return `${SERVICE_ACCOUNTS_GROUP}:${namespace}`;
}

/** The user's `extra` keys a service-account token sets, as upstream names them. */
export const CREDENTIAL_ID_KEY = 'authentication.kubernetes.io/credential-id';
export const POD_NAME_KEY = 'authentication.kubernetes.io/pod-name';
export const POD_UID_KEY = 'authentication.kubernetes.io/pod-uid';
export const NODE_NAME_KEY = 'authentication.kubernetes.io/node-name';
export const NODE_UID_KEY = 'authentication.kubernetes.io/node-uid';
/** The audit annotation of a token request naming the credential it issued. */
export const ISSUED_CREDENTIAL_ID_ANNOTATION = 'authentication.kubernetes.io/issued-credential-id';

/** The credential id of a token with this `jti` (upstream's `JTI=<jti>`), in audit events and the user's extra. */
export function credentialId(jti: string): string {
  return `JTI=${jti}`;
}

export interface ClaimsInput {
  readonly issuer: string;
  readonly namespace: string;
  readonly serviceAccount: ObjectRef;
  readonly audiences: readonly string[];
  readonly expirationSeconds: number;
  readonly now: Date;
  readonly jti: string;
  readonly pod?: ObjectRef;
  readonly secret?: ObjectRef;
  readonly node?: { readonly name: string; readonly uid?: string };
}

/** The claims of a new token; times are whole seconds from `now`, as JWT numeric dates. */
export function serviceAccountClaims(input: ClaimsInput): ServiceAccountClaims {
  const iat = Math.floor(input.now.getTime() / 1000);
  const kubernetes: KubernetesClaim = {
    namespace: input.namespace,
    serviceaccount: input.serviceAccount,
    ...(input.pod ? { pod: input.pod } : {}),
    ...(input.pod && input.node ? { node: input.node } : {}),
    ...(input.secret ? { secret: input.secret } : {}),
  };
  return {
    iss: input.issuer,
    sub: serviceAccountUsername(input.namespace, input.serviceAccount.name),
    aud: [...input.audiences],
    exp: iat + input.expirationSeconds,
    iat,
    nbf: iat,
    jti: input.jti,
    'kubernetes.io': kubernetes,
  };
}

/** The user a verified token stands for (upstream's ServiceAccountInfo.UserInfo). */
export function serviceAccountUser(claim: KubernetesClaim, jti: string | undefined): UserInfo {
  const extra: Record<string, string[]> = {};
  if (claim.pod?.name && claim.pod.uid) {
    extra[POD_NAME_KEY] = [claim.pod.name];
    extra[POD_UID_KEY] = [claim.pod.uid];
  }
  if (jti) extra[CREDENTIAL_ID_KEY] = [credentialId(jti)];
  if (claim.node?.name) {
    extra[NODE_NAME_KEY] = [claim.node.name];
    if (claim.node.uid) extra[NODE_UID_KEY] = [claim.node.uid];
  }
  return {
    username: serviceAccountUsername(claim.namespace, claim.serviceaccount.name),
    uid: claim.serviceaccount.uid,
    groups: [SERVICE_ACCOUNTS_GROUP, serviceAccountsGroup(claim.namespace)],
    extra,
  };
}

/** The `kubernetes.io` claim of a verified payload, or a reason it is unusable. */
export function kubernetesClaimOf(payload: Record<string, unknown>): KubernetesClaim | string {
  const k = payload['kubernetes.io'] as Partial<KubernetesClaim> | undefined;
  const isRef = (r: unknown): r is ObjectRef =>
    typeof r === 'object' && r !== null && typeof (r as ObjectRef).name === 'string' && typeof (r as ObjectRef).uid === 'string';
  if (!k || typeof k !== 'object' || typeof k.namespace !== 'string' || !isRef(k.serviceaccount))
    return 'service account token claims could not be validated due to unexpected private claim';
  if ((k.pod !== undefined && !isRef(k.pod)) || (k.secret !== undefined && !isRef(k.secret)))
    return 'service account token claims could not be validated due to unexpected private claim';
  return k as KubernetesClaim;
}
