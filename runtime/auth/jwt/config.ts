/**
 * Loading one JWT authenticator of an AuthenticationConfiguration: structural checks the schema
 * cannot express (claim XOR expression, unique extra keys, the email_verified rule) and the
 * compilation of every CEL expression, each failing with the JSON path of its field. The result
 * is what the authenticator runs per token, with nothing left to parse.
 */
import type { CompiledExpressionProgram } from '../../cel/index.js';
import { AuthConfigError, CLAIMS_VARIABLES, compileAt, selectedClaims, USER_SCHEMA } from '../cel-support.js';

/** The input shape: structurally the generated `JWTAuthenticator` of `apiserver.svc.io/v1alpha1`. */
export interface JwtAuthenticatorConfig {
  readonly issuer: {
    readonly url: string;
    readonly discoveryURL?: string;
    readonly certificateAuthority?: string;
    readonly audiences: readonly string[];
    readonly audienceMatchPolicy?: string;
  };
  readonly claimValidationRules?: readonly {
    readonly claim?: string;
    readonly requiredValue?: string;
    readonly expression?: string;
    readonly message?: string;
  }[];
  readonly claimMappings: {
    readonly username: PrefixedClaimOrExpressionConfig;
    readonly groups?: PrefixedClaimOrExpressionConfig;
    readonly uid?: { readonly claim?: string; readonly expression?: string };
    readonly extra?: readonly { readonly key: string; readonly valueExpression: string }[];
  };
  readonly userValidationRules?: readonly { readonly expression: string; readonly message?: string }[];
}

export interface PrefixedClaimOrExpressionConfig {
  readonly claim?: string;
  readonly prefix?: string;
  readonly expression?: string;
}

/** An attribute taken from a claim (with a prefix) or computed by an expression. */
export type AttributeSource =
  | { readonly kind: 'claim'; readonly claim: string; readonly prefix: string }
  | { readonly kind: 'expression'; readonly program: CompiledExpressionProgram; readonly path: string };

export type ClaimRule =
  | { readonly kind: 'required'; readonly claim: string; readonly requiredValue: string }
  | { readonly kind: 'expression'; readonly program: CompiledExpressionProgram; readonly message?: string; readonly path: string };

export interface CompiledJwtRules {
  readonly issuerURL: string;
  readonly discoveryURL: string;
  readonly certificateAuthority?: string;
  readonly audiences: readonly string[];
  readonly claimRules: readonly ClaimRule[];
  readonly username: AttributeSource;
  readonly groups?: AttributeSource;
  readonly uid?: AttributeSource;
  readonly extra: readonly { readonly key: string; readonly program: CompiledExpressionProgram; readonly path: string }[];
  readonly userRules: readonly { readonly program: CompiledExpressionProgram; readonly message?: string; readonly path: string }[];
  /** The username is the `email` claim: `email_verified`, when present, must be true. */
  readonly checkEmailVerified: boolean;
}

const STRING = ['string'];
// `list` is how the checker types a list literal of dynamic elements (`[claims.tid]`).
const STRING_OR_LIST = ['string', 'list<string>', 'list<dyn>', 'list'];
const BOOL = ['bool'];
const EXTRA_KEY = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/[a-z0-9/._~%!$&()*+,;=:-]+$/;

function isSet(s: string | undefined): s is string {
  return s !== undefined && s !== '';
}

function prefixedSource(path: string, m: PrefixedClaimOrExpressionConfig, allowed: readonly string[]): AttributeSource {
  if (isSet(m.expression)) {
    if (isSet(m.claim) || m.prefix !== undefined)
      throw new AuthConfigError(path, 'claim and prefix are mutually exclusive with expression');
    return {
      kind: 'expression',
      program: compileAt(`${path}.expression`, m.expression, CLAIMS_VARIABLES, allowed),
      path: `${path}.expression`,
    };
  }
  if (!isSet(m.claim)) throw new AuthConfigError(path, 'either claim or expression must be set');
  if (m.prefix === undefined) throw new AuthConfigError(`${path}.prefix`, 'required when claim is set (it may be empty)');
  return { kind: 'claim', claim: m.claim, prefix: m.prefix };
}

function validateIssuer(path: string, issuer: JwtAuthenticatorConfig['issuer']): void {
  let url: URL;
  try {
    url = new URL(issuer.url);
  } catch {
    throw new AuthConfigError(`${path}.url`, 'must be a URL');
  }
  if (url.protocol !== 'https:') throw new AuthConfigError(`${path}.url`, 'must use the https scheme');
  if (url.search !== '' || url.hash !== '' || url.username !== '')
    throw new AuthConfigError(`${path}.url`, 'must not have a query, fragment or user');
  if (isSet(issuer.discoveryURL)) {
    if (new URL(issuer.discoveryURL).protocol !== 'https:') throw new AuthConfigError(`${path}.discoveryURL`, 'must use the https scheme');
    if (issuer.discoveryURL.replace(/\/+$/, '') === issuer.url.replace(/\/+$/, '')) {
      throw new AuthConfigError(`${path}.discoveryURL`, 'must be different from url');
    }
  }
  if (issuer.audiences.length === 0) throw new AuthConfigError(`${path}.audiences`, 'at least one audience is required');
  if (new Set(issuer.audiences).size !== issuer.audiences.length) throw new AuthConfigError(`${path}.audiences`, 'duplicate audience');
  if (issuer.audiences.some((a) => a === '')) throw new AuthConfigError(`${path}.audiences`, 'audiences must not be empty strings');
  if (issuer.audienceMatchPolicy !== undefined && issuer.audienceMatchPolicy !== 'MatchAny') {
    throw new AuthConfigError(`${path}.audienceMatchPolicy`, 'the only supported value is MatchAny');
  }
  if (issuer.audiences.length > 1 && issuer.audienceMatchPolicy !== 'MatchAny') {
    throw new AuthConfigError(`${path}.audienceMatchPolicy`, 'must be MatchAny when more than one audience is set');
  }
}

/** Compiles the rules of `jwt[index]`; throws AuthConfigError naming the field. */
export function compileJwtAuthenticator(config: JwtAuthenticatorConfig, index: number): CompiledJwtRules {
  const base = `jwt[${index}]`;
  validateIssuer(`${base}.issuer`, config.issuer);

  const claimRules: ClaimRule[] = (config.claimValidationRules ?? []).map((r, i) => {
    const path = `${base}.claimValidationRules[${i}]`;
    if (isSet(r.expression)) {
      if (isSet(r.claim) || r.requiredValue !== undefined)
        throw new AuthConfigError(path, 'claim and requiredValue are mutually exclusive with expression and message');
      const program = compileAt(`${path}.expression`, r.expression, CLAIMS_VARIABLES, BOOL);
      return { kind: 'expression', program, path: `${path}.expression`, ...(r.message !== undefined ? { message: r.message } : {}) };
    }
    if (!isSet(r.claim)) throw new AuthConfigError(path, 'either claim or expression must be set');
    if (r.message !== undefined) throw new AuthConfigError(`${path}.message`, 'may only be set with expression');
    return { kind: 'required', claim: r.claim, requiredValue: r.requiredValue ?? '' };
  });

  const m = config.claimMappings;
  const username = prefixedSource(`${base}.claimMappings.username`, m.username, STRING);
  const groups =
    m.groups && (isSet(m.groups.claim) || isSet(m.groups.expression))
      ? prefixedSource(`${base}.claimMappings.groups`, m.groups, STRING_OR_LIST)
      : undefined;
  let uid: AttributeSource | undefined;
  if (m.uid && (isSet(m.uid.claim) || isSet(m.uid.expression))) {
    const path = `${base}.claimMappings.uid`;
    if (isSet(m.uid.claim) && isSet(m.uid.expression)) throw new AuthConfigError(path, 'claim and expression are mutually exclusive');
    uid = isSet(m.uid.expression)
      ? {
          kind: 'expression',
          program: compileAt(`${path}.expression`, m.uid.expression, CLAIMS_VARIABLES, STRING),
          path: `${path}.expression`,
        }
      : { kind: 'claim', claim: m.uid.claim as string, prefix: '' };
  }

  const keys = new Set<string>();
  const extra = (m.extra ?? []).map((e, i) => {
    const path = `${base}.claimMappings.extra[${i}]`;
    if (!EXTRA_KEY.test(e.key) || e.key !== e.key.toLowerCase())
      throw new AuthConfigError(`${path}.key`, 'must be a lowercase domain-prefixed path such as example.svc.io/name');
    if (keys.has(e.key)) throw new AuthConfigError(`${path}.key`, `duplicate key ${JSON.stringify(e.key)}`);
    keys.add(e.key);
    if (!isSet(e.valueExpression)) throw new AuthConfigError(`${path}.valueExpression`, 'required');
    return {
      key: e.key,
      program: compileAt(`${path}.valueExpression`, e.valueExpression, CLAIMS_VARIABLES, STRING_OR_LIST),
      path: `${path}.valueExpression`,
    };
  });

  const userRules = (config.userValidationRules ?? []).map((r, i) => {
    const path = `${base}.userValidationRules[${i}].expression`;
    return {
      program: compileAt(path, r.expression, { user: USER_SCHEMA }, BOOL),
      path,
      ...(r.message !== undefined ? { message: r.message } : {}),
    };
  });

  // A username read from claims.email must not be taken from an unverified address: an
  // expression using claims.email has to consult claims.email_verified somewhere that can reject.
  if (username.kind === 'expression' && selectedClaims(username.program.expression).has('email')) {
    const consulted = [username.program.expression, ...extra.map((e) => e.program.expression)]
      .concat(claimRules.flatMap((r) => (r.kind === 'expression' ? [r.program.expression] : [])))
      .some((x) => selectedClaims(x).has('email_verified'));
    if (!consulted) {
      throw new AuthConfigError(
        username.path,
        'claims.email_verified must be used in claimMappings.username.expression or claimMappings.extra[*].valueExpression or claimValidationRules[*].expression when claims.email is used in claimMappings.username.expression',
      );
    }
  }

  const issuerURL = config.issuer.url;
  return {
    issuerURL,
    discoveryURL: isSet(config.issuer.discoveryURL)
      ? config.issuer.discoveryURL
      : `${issuerURL.replace(/\/+$/, '')}/.well-known/openid-configuration`,
    ...(isSet(config.issuer.certificateAuthority) ? { certificateAuthority: config.issuer.certificateAuthority } : {}),
    audiences: config.issuer.audiences,
    claimRules,
    username,
    ...(groups ? { groups } : {}),
    ...(uid ? { uid } : {}),
    extra,
    userRules,
    checkEmailVerified: username.kind === 'claim' && username.claim === 'email',
  };
}

/** Checks across authenticators: issuer URLs and discovery URLs are unique. */
export function validateJwtAuthenticators(configs: readonly JwtAuthenticatorConfig[]): void {
  const issuers = new Map<string, number>();
  const discovery = new Map<string, number>();
  configs.forEach((c, i) => {
    const earlier = issuers.get(c.issuer.url);
    if (earlier !== undefined) throw new AuthConfigError(`jwt[${i}].issuer.url`, `duplicate issuer URL (also jwt[${earlier}].issuer.url)`);
    issuers.set(c.issuer.url, i);
    if (isSet(c.issuer.discoveryURL)) {
      const d = discovery.get(c.issuer.discoveryURL);
      if (d !== undefined)
        throw new AuthConfigError(`jwt[${i}].issuer.discoveryURL`, `duplicate discovery URL (also jwt[${d}].issuer.discoveryURL)`);
      discovery.set(c.issuer.discoveryURL, i);
    }
  });
}
