/**
 * The service-account token authenticator: a bearer token of one of the server's issuers, once
 * its signature, issuer, lifetime and audiences check out (issuer.ts), stands for its service
 * account only while the account still exists with the UID the token names, and so does the
 * object it is bound to (a pod or a secret): deleting either revokes every token issued for it,
 * as upstream's validator checks on every request. Anything deleted more than the leeway ago
 * (a deletionTimestamp in the past) counts as gone.
 */
import type { Authenticator, AuthenticatorResult, RequestCredentials } from '../authenticate.js';
import { kubernetesClaimOf, type ObjectRef, serviceAccountUser } from './claims.js';
import { LEEWAY_SECONDS, type ServiceAccountIssuer } from './issuer.js';

/** What the authenticator reads of an object. */
export interface ObjectLike {
  readonly metadata?: { readonly uid?: string; readonly deletionTimestamp?: string | null };
}

/** Reads the server's current objects (a store read, no cache: a deletion counts at once). */
export type ObjectGetter = (
  resource: 'serviceaccounts' | 'pods' | 'secrets',
  namespace: string,
  name: string,
) => Promise<ObjectLike | undefined>;

export class ServiceAccountTokenAuthenticator implements Authenticator {
  readonly name = 'service-account';

  constructor(
    private readonly issuer: ServiceAccountIssuer,
    private readonly objects: ObjectGetter,
  ) {}

  async authenticate(credentials: RequestCredentials): Promise<AuthenticatorResult> {
    if (credentials.bearerToken === undefined) return { outcome: 'skip' };
    const checked = await this.issuer.check(credentials.bearerToken, credentials.audiences);
    if (checked.outcome !== 'verified') return checked;
    const claim = kubernetesClaimOf(checked.payload as Record<string, unknown>);
    if (typeof claim === 'string') return { outcome: 'reject', reason: claim };
    const deletedBefore = this.issuer.now().getTime() - LEEWAY_SECONDS * 1000;
    const gone = (o: ObjectLike) =>
      typeof o.metadata?.deletionTimestamp === 'string' && Date.parse(o.metadata.deletionTimestamp) < deletedBefore;
    const { namespace, serviceaccount } = claim;

    const account = await this.objects('serviceaccounts', namespace, serviceaccount.name);
    if (!account) return reject(`serviceaccounts ${JSON.stringify(serviceaccount.name)} not found`);
    if (gone(account)) return reject(`service account ${namespace}/${serviceaccount.name} has been deleted`);
    if (account.metadata?.uid !== serviceaccount.uid)
      return reject(`service account UID (${account.metadata?.uid ?? ''}) does not match claim (${serviceaccount.uid})`);
    for (const [resource, ref] of [
      ['secrets', claim.secret],
      ['pods', claim.pod],
    ] as const) {
      if (!ref) continue;
      const why = await this.bound(resource, namespace, ref, gone);
      if (why) return reject(why);
    }
    const jti = typeof checked.payload.jti === 'string' ? checked.payload.jti : undefined;
    return {
      outcome: 'user',
      user: serviceAccountUser(claim, jti),
      audiences: checked.audiences,
      detail: `service-account token of ${checked.payload.iss}${jti ? ` (JTI=${jti})` : ''}`,
    };
  }

  /** Why a token bound to `ref` no longer counts, or undefined while the object lives. */
  private async bound(
    resource: 'pods' | 'secrets',
    namespace: string,
    ref: ObjectRef,
    gone: (o: ObjectLike) => boolean,
  ): Promise<string | undefined> {
    const object = await this.objects(resource, namespace, ref.name);
    if (!object || gone(object)) return 'service account token has been invalidated';
    const kind = resource === 'pods' ? 'pod' : 'secret';
    if (object.metadata?.uid !== ref.uid)
      return `${kind} UID (${object.metadata?.uid ?? ''}) does not match service account ${kind} ref claim (${ref.uid})`;
    return undefined;
  }
}

function reject(reason: string): AuthenticatorResult {
  return { outcome: 'reject', reason };
}
