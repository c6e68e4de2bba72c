/**
 * `serviceaccounts/<name>/token`: a TokenRequest in, the same TokenRequest with a signed token out
 * (201), as upstream's TokenREST: the service account must exist (404); the name and namespace in
 * the body, when given, must be the URL's (422); `spec.expirationSeconds` (default 3600) at least
 * 10 minutes (422) and shortened to the server's maximum with a warning; `spec.audiences` default
 * to the API server's; `spec.boundObjectRef` names a Pod running as this account or a Secret of
 * its namespace, which must exist (404), with the UID given (409). The token is then valid only as
 * long as the account and the bound object are (`runtime/auth`'s service-account authenticator).
 */
import {
  type GroupKind,
  type JsonApiObject,
  badRequest,
  conflict,
  fieldInvalid,
  invalid,
  notFound,
  pathNotFound,
  timestamp,
} from '../../runtime/api/index.js';
import { credentialId, ISSUED_CREDENTIAL_ID_ANNOTATION, type ServiceAccountIssuer } from '../../runtime/auth/index.js';
import { readCurrent, type RequestContext, type SubresourceHandler } from '../../runtime/server/index.js';

/** The group of TokenRequest under the spec's names (served under `--group-suffix`'s). */
const AUTHENTICATION_GROUP = 'authentication.svc.io';
/** Upstream's floor (`MinTokenAgeSec`) and ceiling of a requested lifetime. */
const MIN_EXPIRATION_SECONDS = 10 * 60;
const MAX_EXPIRATION_SECONDS = 2 ** 32;

interface TokenRequestSpec {
  audiences?: string[];
  expirationSeconds?: number;
  boundObjectRef?: { kind?: string; apiVersion?: string; name?: string; uid?: string };
}
type TokenRequest = JsonApiObject & { spec?: TokenRequestSpec; status?: unknown };

export interface TokenRequestOptions {
  /** Signs the tokens; without one the subresource answers 404, as a server with no signing key has none. */
  issuer?: ServiceAccountIssuer;
}

/**
 * The body arrives checked as its declared kind (`authentication.svc.io/v1 TokenRequest`: decoded,
 * defaulted, validated and admitted by the server); what is left is TokenREST's own checks.
 */
export function tokenRequest(options: TokenRequestOptions = {}): SubresourceHandler {
  return {
    methods: ['POST'],
    async handle(ctx, t, body) {
      const issuer = options.issuer;
      if (!issuer) throw pathNotFound('the server could not find the requested resource (this server issues no service-account tokens)');
      const name = t.name!;
      const namespace = t.namespace!;
      const gk: GroupKind = { group: ctx.registry.servedGroup(AUTHENTICATION_GROUP), kind: 'TokenRequest' };
      const req = body!.object as TokenRequest;
      const meta = req.metadata ?? {};
      if (meta.name && meta.name !== name)
        throw invalid(gk, name, [fieldInvalid('metadata.name', meta.name, 'must match the service account name if specified')]);
      if (meta.namespace && meta.namespace !== namespace)
        throw invalid(gk, name, [
          fieldInvalid('metadata.namespace', meta.namespace, 'must match the service account namespace if specified'),
        ]);
      const account = await readCurrent(ctx, t.resource, namespace, name);
      if (!account) throw notFound(t.resource, name);

      // The status is the server's to fill (clients such as kubectl send an empty one).
      delete req.status;
      const spec = (req.spec ??= {}) as TokenRequestSpec & { expirationSeconds: number };
      if (!spec.audiences || spec.audiences.length === 0) spec.audiences = [...issuer.apiAudiences];
      req.metadata = { ...meta, name, namespace, creationTimestamp: timestamp(issuer.now()) };
      const errors = [];
      if (spec.expirationSeconds < MIN_EXPIRATION_SECONDS)
        errors.push(fieldInvalid('spec.expirationSeconds', spec.expirationSeconds, 'may not specify a duration less than 10 minutes'));
      if (spec.expirationSeconds > MAX_EXPIRATION_SECONDS)
        errors.push(fieldInvalid('spec.expirationSeconds', spec.expirationSeconds, 'may not specify a duration larger than 2^32 seconds'));
      if (errors.length > 0) throw invalid(gk, '', errors);

      const bound = spec.boundObjectRef ? await boundObject(ctx, namespace, name, spec.boundObjectRef) : {};
      if (issuer.maxExpirationSeconds > 0 && spec.expirationSeconds > issuer.maxExpirationSeconds) {
        ctx.warnings.add(`requested expiration of ${spec.expirationSeconds} seconds shortened to ${issuer.maxExpirationSeconds} seconds`);
        spec.expirationSeconds = issuer.maxExpirationSeconds;
      }
      const { token, claims } = await issuer.issue({
        namespace,
        serviceAccount: { name, uid: account.object.metadata?.uid ?? '' },
        audiences: spec.audiences,
        expirationSeconds: spec.expirationSeconds,
        ...bound,
      });
      (ctx.auditAnnotations ??= {})[ISSUED_CREDENTIAL_ID_ANNOTATION] = credentialId(claims.jti);
      const status = { token, expirationTimestamp: timestamp(new Date(claims.exp * 1000)) };
      // Answered in the apiVersion asked in: kubectl's typed client decodes only the real system's name.
      const apiVersion = req.apiVersion ?? `${gk.group}/v1`;
      return { status: 201, body: { ...req, apiVersion, kind: 'TokenRequest', status } };
    },
  };
}

type Ref = { name: string; uid: string };

/** The object a token is to be bound to, checked as upstream checks it. */
async function boundObject(
  ctx: RequestContext,
  namespace: string,
  account: string,
  ref: NonNullable<TokenRequestSpec['boundObjectRef']>,
): Promise<{ pod?: Ref; node?: { name: string; uid?: string }; secret?: Ref }> {
  const apiVersion = ref.apiVersion ?? '';
  const [group = '', version = ''] = apiVersion.includes('/') ? apiVersion.split('/', 2) : ['', apiVersion];
  const name = ref.name ?? '';
  const resource = group === '' && ref.kind === 'Pod' ? 'pods' : group === '' && ref.kind === 'Secret' ? 'secrets' : undefined;
  const r = resource && ctx.registry.get('', 'v1', resource);
  if (!r) throw badRequest(`cannot bind token to object of type ${group}/${version}, Kind=${ref.kind ?? ''}`);
  const found = await readCurrent(ctx, r, namespace, name);
  if (!found) throw notFound(r, name);
  const object = found.object as JsonApiObject & { spec?: { serviceAccountName?: string; nodeName?: string } };
  const uid = object.metadata?.uid ?? '';
  if (ref.uid && ref.uid !== uid) {
    throw conflict(
      { group, resource: ref.kind ?? '' },
      name,
      `the UID in the bound object reference (${ref.uid}) does not match the UID in record. The object might have been deleted and then recreated`,
    );
  }
  if (resource === 'secrets') return { secret: { name, uid } };
  if (object.spec?.serviceAccountName !== account)
    throw badRequest(`cannot bind token for serviceaccount ${JSON.stringify(account)} to pod running with different serviceaccount name.`);
  const nodeName = object.spec?.nodeName;
  if (!nodeName) return { pod: { name, uid } };
  // The pod's node goes into the token (ServiceAccountTokenPodNodeInfo): by name alone when no Node object exists.
  const nodes = ctx.registry.get('', 'v1', 'nodes');
  const node = nodes ? await readCurrent(ctx, nodes, undefined, nodeName) : undefined;
  const nodeUid = node?.object.metadata?.uid;
  return { pod: { name, uid }, node: { name: nodeName, ...(nodeUid ? { uid: nodeUid } : {}) } };
}
