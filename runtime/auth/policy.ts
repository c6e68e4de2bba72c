/**
 * The face the server's handler chain calls: one object holding the authenticator chain and the
 * authorizer chain, with one method per stage. The authenticate stage turns a node request into a
 * user or a 401; the authorize stage turns (user, method, path, query) into an allow or a 403 with
 * the real system's message and an explanation record. Nothing here writes a response: the stages
 * own the HTTP side (status objects, audit events).
 */
import type { IncomingMessage } from 'node:http';
import { type RequestAttributes, requestAttributes } from './attributes.js';
import { type AuthenticationResult, type Authenticator, AuthenticatorChain } from './authenticate.js';
import { type Authorizer, AuthorizerChain, forbiddenMessage } from './authorize.js';
import { credentialsFromRequest } from './credentials.js';
import { type DecisionExplanation, explainDecision } from './explain.js';
import type { AuthenticationExplanation } from './authenticate.js';
import type { UserInfo } from './user.js';

export interface AuthPolicyOptions {
  readonly authenticators: readonly Authenticator[];
  /** Whether requests without credentials proceed as `system:anonymous`. */
  readonly anonymous: boolean;
  readonly authorizers: readonly Authorizer[];
}

export type AccessDecision =
  | { readonly allowed: true; readonly attributes: RequestAttributes; readonly explanation: DecisionExplanation }
  | {
      readonly allowed: false;
      readonly status: 403;
      /** `User "alice" cannot list resource "pods" ...: <reason>` */
      readonly message: string;
      readonly attributes: RequestAttributes;
      readonly explanation: DecisionExplanation;
    };

export class AuthPolicy {
  readonly authentication: AuthenticatorChain;
  readonly authorization: AuthorizerChain;

  constructor(options: AuthPolicyOptions) {
    this.authentication = new AuthenticatorChain(options.authenticators, { anonymous: options.anonymous });
    this.authorization = new AuthorizerChain(options.authorizers);
  }

  /**
   * The authenticate stage: credentials from the request (header and TLS socket), then the chain;
   * `audiences` those a TokenReview asks for.
   */
  authenticate(req: Pick<IncomingMessage, 'headers' | 'socket'>, audiences?: readonly string[]): Promise<AuthenticationResult> {
    return this.authentication.authenticate({ ...credentialsFromRequest(req), ...(audiences ? { audiences } : {}) });
  }

  /** The authorize stage. `path` is the request path as sent (percent-encoded); `query` the raw query string. */
  async authorize(
    user: UserInfo,
    authentication: AuthenticationExplanation,
    method: string,
    path: string,
    query: string | URLSearchParams = '',
  ): Promise<AccessDecision> {
    const attributes = requestAttributes(method, path, query);
    const result = await this.authorization.authorize({ user, attributes });
    const explanation = explainDecision(user, authentication, attributes, result);
    if (result.allowed) return { allowed: true, attributes, explanation };
    return { allowed: false, status: 403, message: forbiddenMessage(user, attributes, result.reason), attributes, explanation };
  }
}
