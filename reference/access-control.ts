/**
 * The reference server's access control, wired from `runtime/auth`: the authenticator chain
 * (client certificates when a client CA is configured, the static token file, JWT authenticators
 * of an AuthenticationConfiguration, anonymous requests when allowed), the authorizer chain
 * (`--authorization-mode` or an AuthorizationConfiguration, RBAC over the server's own objects),
 * and the server's loopback identity, with which it creates what a cluster has at start (the
 * `default` namespace, RBAC's bootstrap roles) through its own API.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import {
  AlwaysAllowAuthorizer,
  AlwaysDenyAuthorizer,
  type AuthenticationConfigurationInput,
  type Authenticator,
  type AuthorizationConfigurationInput,
  type Authorizer,
  AuthPolicy,
  RBAC_GROUP,
  ClientCertificateAuthenticator,
  loadAuthorizers,
  loadJwtAuthenticators,
  MASTERS_GROUP,
  PrivilegedGroupsAuthorizer,
  RbacAuthorizer,
  type TokenTable,
  TokenFileAuthenticator,
} from '../runtime/auth/index.js';
import { SPEC_GROUP_SUFFIX, groupWithSuffix } from '../runtime/api/index.js';
import { bootstrapPolicy, StoreRbacLister } from './access/index.js';
import type { ChainPolicies, ServingTls } from '../runtime/server/index.js';
import { type LoopbackClient, loopbackClient } from './loopback-client.js';
import type { ApiServer } from '../runtime/server/index.js';

/** `--authorization-mode` values this server knows (upstream's, less ABAC and Node). */
export const AUTHORIZATION_MODES = ['AlwaysAllow', 'AlwaysDeny', 'RBAC', 'Webhook'] as const;
export type AuthorizationMode = (typeof AUTHORIZATION_MODES)[number];

export interface AccessControlOptions {
  /** HTTPS; with `clientCa`, client certificates authenticate (CN = user, O = groups). */
  tls?: ServingTls;
  /** A parsed `--token-auth-file`. */
  tokens?: TokenTable;
  /** `--authentication-config`: JWT authenticators, after client certificates and tokens. */
  authenticationConfig?: AuthenticationConfigurationInput;
  /** Further authenticators, after every configured one (the test server's own tokens). */
  authenticators?: readonly Authenticator[];
  /** Requests without credentials proceed as `system:anonymous` (default true, as upstream). */
  anonymous?: boolean;
  /** `--authorization-config`, or else `--authorization-mode` (default AlwaysAllow). */
  authorizationConfig?: AuthorizationConfigurationInput;
  authorizationModes?: readonly AuthorizationMode[];
}

/** The server's own identity: a random token only this process knows, in `system:masters`. */
class LoopbackAuthenticator implements Authenticator {
  readonly name = 'loopback';
  readonly token = randomBytes(32).toString('base64url');
  authenticate(c: { bearerToken?: string }) {
    const a = Buffer.from(c.bearerToken ?? '');
    const b = Buffer.from(this.token);
    if (a.length !== b.length || !timingSafeEqual(a, b)) return { outcome: 'skip' as const };
    return { outcome: 'user' as const, user: { username: 'system:apiserver', groups: [MASTERS_GROUP], extra: {} } };
  }
}

/**
 * Whether a request without credentials is refused unless a policy grants it, as a real cluster is
 * configured: anonymous authentication off, or authorization by RBAC or webhooks with no
 * AlwaysAllow among the authorizers (which would let `system:anonymous` bind itself cluster-admin).
 */
export function refusesAnonymous(o: AccessControlOptions): boolean {
  if (o.anonymous === false) return true;
  const types = o.authorizationConfig ? o.authorizationConfig.authorizers.map((a) => a.type) : (o.authorizationModes ?? ['AlwaysAllow']);
  return !types.includes('AlwaysAllow');
}

/** Whether any authenticator would identify a user (without one, every request is anonymous). */
export function authenticates(o: AccessControlOptions): boolean {
  return Boolean(o.tls?.clientCa || o.tokens || (o.authenticationConfig?.jwt.length ?? 0) > 0 || (o.authenticators?.length ?? 0) > 0);
}

export interface AccessControl {
  chain: ChainPolicies;
  tls: ServingTls | undefined;
  /** Requests the server makes to itself (start-up objects), as `system:apiserver`. */
  loopback(url: string): LoopbackClient;
  /** Whether RBAC authorizes (its bootstrap roles are then created at start). */
  rbac: boolean;
}

function authorizersOf(
  o: AccessControlOptions,
  server: () => ApiServer,
  groupSuffix: string,
): { authorizers: Authorizer[]; rbac: boolean } {
  const lister = new StoreRbacLister(() => server().context);
  if (o.authorizationConfig) {
    const authorizers = loadAuthorizers(o.authorizationConfig, {
      rbacLister: lister,
      groupSuffix,
      observeWebhook: (name, result, seconds) => server().context.metrics?.authorizationWebhookDuration.observe({ name, result }, seconds),
    });
    return { authorizers, rbac: authorizers.some((a) => a instanceof RbacAuthorizer) };
  }
  const modes = o.authorizationModes ?? ['AlwaysAllow'];
  const authorizers = modes.map((m): Authorizer => {
    switch (m) {
      case 'AlwaysAllow':
        return new AlwaysAllowAuthorizer();
      case 'AlwaysDeny':
        return new AlwaysDenyAuthorizer();
      case 'RBAC':
        return new RbacAuthorizer(lister);
      case 'Webhook':
        // Upstream's --authorization-webhook-config-file is what AuthorizationConfiguration replaced.
        throw new Error('--authorization-mode Webhook needs its webhook described in --authorization-config');
    }
  });
  return { authorizers, rbac: modes.includes('RBAC') };
}

/**
 * Builds the access control of a server; `server` is read lazily (RBAC reads its store).
 * `groupSuffix` is the server's (`--group-suffix`): webhooks get reviews under its names.
 */
export function accessControl(o: AccessControlOptions, server: () => ApiServer, groupSuffix = SPEC_GROUP_SUFFIX): AccessControl {
  const loopback = new LoopbackAuthenticator();
  const authenticators: Authenticator[] = [loopback];
  if (o.tls?.clientCa) authenticators.push(new ClientCertificateAuthenticator());
  if (o.tokens) authenticators.push(new TokenFileAuthenticator(o.tokens));
  if (o.authenticationConfig) authenticators.push(...loadJwtAuthenticators(o.authenticationConfig));
  if (o.authenticators) authenticators.push(...o.authenticators);
  const { authorizers, rbac } = authorizersOf(o, server, groupSuffix);
  const policy = new AuthPolicy({
    authenticators,
    anonymous: o.anonymous ?? true,
    // system:masters may do anything before any binding exists (upstream asks this first too).
    authorizers: [new PrivilegedGroupsAuthorizer([MASTERS_GROUP]), ...authorizers],
  });
  return {
    chain: { authentication: policy, authorizer: policy.authorization },
    tls: o.tls,
    rbac,
    loopback: (url) => loopbackClient(url, loopback.token),
  };
}

/** Creates RBAC's bootstrap roles and bindings unless they exist (upstream's bootstrap policy, reconciled at start). */
export async function bootstrapRbac(client: LoopbackClient, groupSuffix = SPEC_GROUP_SUFFIX): Promise<void> {
  for (const object of bootstrapPolicy(groupSuffix)) {
    const plural = object.kind === 'ClusterRole' ? 'clusterroles' : 'clusterrolebindings';
    const { status } = await client('POST', `/apis/${groupWithSuffix(RBAC_GROUP, groupSuffix)}/v1/${plural}`, object);
    if (status !== 201 && status !== 409)
      throw new Error(`the reference server could not create ${object.kind} ${object.metadata.name}: ${status}`);
  }
}
