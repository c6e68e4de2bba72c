/**
 * runtime/auth: the authentication and authorization policy library of the reference server.
 * Request attributes from method, path and query; the authenticator chain (client certificate,
 * static token file, JWT per AuthenticationConfiguration, service-account tokens: their keys,
 * claims, issuer and discovery documents in `service-account/`); the authorizer chain (AlwaysAllow,
 * AlwaysDeny, RBAC, Webhook per AuthorizationConfiguration) with an explanation per decision.
 *
 * Wiring as handler-chain stages (the server owns responses, audit and TLS):
 *
 *   at start-up
 *     authenticators = [
 *       new ClientCertificateAuthenticator(),             // when serving TLS with a client CA
 *       TokenFileAuthenticator.fromText(text, path),      // --token-auth-file
 *       ...loadJwtAuthenticators(authenticationConfig),   // throws AuthConfigError (path + detail)
 *     ]
 *     authorizers = loadAuthorizers(authorizationConfig, { rbacLister })  // or [new AlwaysAllowAuthorizer()]
 *     policy = new AuthPolicy({ authenticators, anonymous, authorizers })
 *
 *   authenticate stage
 *     const authn = await policy.authenticate(req)        // reads Authorization and the TLS socket
 *     if (!authn.authenticated) -> 401 Status (authn.message); else keep authn.user, authn.explanation
 *
 *   authorize stage (after audit's request-received record)
 *     const d = await policy.authorize(authn.user, authn.explanation, method, path, query)
 *     if (!d.allowed) -> 403 Status (d.message); d.explanation goes to audit/logs either way
 *
 * TLS chain verification of client certificates is the server's TLS layer's job (requestCert with
 * the client CA); the x509 authenticator reads its verdict from the socket.
 */
export { requestAttributes, type RequestAttributes } from './attributes.js';
export {
  type AuthenticationExplanation,
  type AuthenticationResult,
  type Authenticator,
  AuthenticatorChain,
  type AuthenticatorChainOptions,
  type AuthenticatorResult,
  bearerTokenOf,
  type PeerCertificateLike,
  type RequestCredentials,
} from './authenticate.js';
export { parseTokenFile, TokenFileAuthenticator, TokenFileError, type TokenTable } from './token-file.js';
export {
  ANONYMOUS_USER,
  anonymousUser,
  AUTHENTICATED_GROUP,
  serviceAccountUsername,
  UNAUTHENTICATED_GROUP,
  type UserInfo,
  userInfoObject,
  withAuthenticatedGroup,
} from './user.js';
export { CLIENT_AUTH_OID, ClientCertificateAuthenticator } from './x509.js';
export { AuthConfigError, CLAIMS_VARIABLES, compileAt, USER_SCHEMA } from './cel-support.js';
export {
  type AuthenticationConfigurationInput,
  DEFAULT_SIGNING_ALGORITHMS,
  JwtAuthenticator,
  type JwtAuthenticatorOptions,
  loadJwtAuthenticators,
} from './jwt/authenticator.js';
export { compileJwtAuthenticator, type CompiledJwtRules, type JwtAuthenticatorConfig } from './jwt/config.js';
export {
  AlwaysAllowAuthorizer,
  AlwaysDenyAuthorizer,
  type AuthorizationRequest,
  type AuthorizationResult,
  type AuthorizationStep,
  type Authorizer,
  AuthorizerChain,
  type AuthorizerResult,
  type Decision,
  forbiddenMessage,
  PrivilegedGroupsAuthorizer,
  type RuleList,
} from './authorize.js';
export {
  type BindingObject,
  RBAC_GROUP,
  RbacAuthorizer,
  aggregatedRoles,
  type RbacLister,
  type RoleObject,
  type RoleRef,
  StaticRbacLister,
} from './rbac.js';
export { type PolicyRule, ruleAllows, type Subject, subjectMatches } from './rbac-rules.js';
export {
  type AuthorizationConfigurationInput,
  type AuthorizerConfigurationInput,
  loadAuthorizerChain,
  loadAuthorizers,
  type LoadAuthorizersOptions,
  webhookConnectionFromClientConfig,
} from './authorizers.js';
export {
  AUTHORIZATION_GROUP,
  accessRequestOfReview,
  parseSubjectAccessReviewStatus,
  SUBJECT_ACCESS_REVIEW_SPEC_SCHEMA,
  subjectAccessReview,
  type SubjectAccessReviewSpec,
  subjectAccessReviewSpec,
  type SubjectAccessReviewVersion,
} from './sar.js';
export {
  DEFAULT_RETRY_BACKOFF,
  type FailurePolicy,
  type RetryBackoff,
  WebhookAuthorizer,
  type WebhookAuthorizerOptions,
  type WebhookCallObserver,
  type WebhookConnection,
} from './webhook.js';
export { credentialsFromRequest } from './credentials.js';
export {
  type CertificateAuthority,
  certificateAuthority,
  type KeyPair,
  type LeafRequest,
  PkiError,
  selfSignedCertificate,
} from './pki.js';
export { type DecisionExplanation, describeRequest, explainDecision, formatExplanation } from './explain.js';
export { type AccessDecision, AuthPolicy, type AuthPolicyOptions } from './policy.js';
export { HttpsTransportError, type HttpsJsonOptions, type HttpsJsonResponse, httpsJson, keepAliveAgent } from './https-client.js';
export { TtlCache } from './ttl-cache.js';
export { MASTERS_GROUP } from './user.js';
export { FULL_AUTHORITY, escalationMessage, policyRulesOf, uncoveredRules } from './escalation.js';
export {
  algorithmOf,
  generateSigningKey,
  keyIdOf,
  publicKeySet,
  publicKeysFromPem,
  ServiceAccountKeyError,
  type SigningKey,
  signingKeyFromPem,
  signingKeyPem,
} from './service-account/keys.js';
export {
  CREDENTIAL_ID_KEY,
  credentialId,
  ISSUED_CREDENTIAL_ID_ANNOTATION,
  type KubernetesClaim,
  NODE_NAME_KEY,
  NODE_UID_KEY,
  POD_NAME_KEY,
  POD_UID_KEY,
  SERVICE_ACCOUNTS_GROUP,
  type ServiceAccountClaims,
  serviceAccountsGroup,
} from './service-account/claims.js';
export { LEEWAY_SECONDS, ServiceAccountIssuer, type ServiceAccountIssuerOptions, type TokenCheck } from './service-account/issuer.js';
export { type ObjectGetter, type ObjectLike, ServiceAccountTokenAuthenticator } from './service-account/authenticator.js';
export { discoveryUnavailable, JWKS_PATH, OPENID_CONFIGURATION_PATH, openIdConfiguration } from './service-account/discovery.js';
