/**
 * The reference server's service-account tokens, wired from `runtime/auth` and `runtime/server`:
 * the issuer (its issuers, audiences and keys), the `serviceaccounts/token` handler that signs
 * with it, and the authenticator that accepts its tokens while their account (and bound object)
 * exists. Without a `--service-account-signing-key-file` the server signs with a key it generates
 * and keeps where no other user reads it (kept-signing-key.ts).
 */
import type { KeyObject } from 'node:crypto';
import { type Authenticator, ServiceAccountIssuer, ServiceAccountTokenAuthenticator, type SigningKey } from '../runtime/auth/index.js';
import { tokenRequest } from './kinds/index.js';
import { type ApiServer, type HandlerCatalog, storeObjectGetter } from '../runtime/server/index.js';
import type { Store } from '../runtime/store/index.js';
import { type KeptKeyPlace, keptSigningKey, removeClearKey } from './kept-signing-key.js';

/** The issuer when none is named: kubeadm's (and kind's, minikube's) `--service-account-issuer`. */
export const DEFAULT_SERVICE_ACCOUNT_ISSUER = 'https://kubernetes.default.svc.cluster.local';

export interface ServiceAccountOptions {
  /** `--service-account-issuer` (repeatable): the first issues, all are accepted; default {@link DEFAULT_SERVICE_ACCOUNT_ISSUER}. */
  issuers?: readonly string[];
  /** `--service-account-signing-key-file`; default a generated key (kept-signing-key.ts). */
  signingKey?: SigningKey;
  /** `--service-account-key-file`: more public keys that verify (the signing key's always does). */
  verificationKeys?: readonly KeyObject[];
  /** `--api-audiences`; default the issuer. */
  apiAudiences?: readonly string[];
  /** `--service-account-max-token-expiration` in seconds; default no maximum. */
  maxExpirationSeconds?: number;
  /** `--service-account-jwks-uri`; default the server's own `/openid/v1/jwks`. */
  jwksUri?: string;
}

/** How a server's issuer is made: where a generated key is kept (default: for this process), the server's clock, where to say what changed. */
export interface IssuerSetting {
  keyPlace?: KeptKeyPlace | undefined;
  now?: () => Date;
  log?: (line: string) => void;
}

/** The issuer of a server over `store`. */
export async function serviceAccountIssuer(o: ServiceAccountOptions, store: Store, setting: IssuerSetting): Promise<ServiceAccountIssuer> {
  const { keyPlace, now, log = (line) => process.stderr.write(`svckit: ${line}\n`) } = setting;
  await removeClearKey(store, log);
  return new ServiceAccountIssuer({
    issuers: o.issuers && o.issuers.length > 0 ? o.issuers : [DEFAULT_SERVICE_ACCOUNT_ISSUER],
    signingKey: o.signingKey ?? (await keptSigningKey(keyPlace ?? { kind: 'process' }, store)),
    ...(o.verificationKeys ? { verificationKeys: o.verificationKeys } : {}),
    ...(o.apiAudiences ? { apiAudiences: o.apiAudiences } : {}),
    ...(o.maxExpirationSeconds ? { maxExpirationSeconds: o.maxExpirationSeconds } : {}),
    ...(o.jwksUri ? { jwksUri: o.jwksUri } : {}),
    ...(now ? { now } : {}),
  });
}

/** The handler catalogue with the token subresource signing with `issuer` (over the `given` one's other names). */
export function withTokenRequests(given: HandlerCatalog | undefined, issuer: ServiceAccountIssuer): HandlerCatalog {
  return {
    ...given,
    subresources: {
      'service-account-token': tokenRequest({ issuer }),
      ...given?.subresources,
    },
  };
}

/** The authenticator of the issuer's tokens, reading the server's objects. */
export function serviceAccountAuthenticator(issuer: ServiceAccountIssuer, server: () => ApiServer): Authenticator {
  return new ServiceAccountTokenAuthenticator(
    issuer,
    storeObjectGetter(() => server().context),
  );
}
