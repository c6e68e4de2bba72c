/**
 * The CEL expressions inside configuration kinds, compiled as the server compiles them when it
 * loads the file: AuthenticationConfiguration's claim validation rules, claim mappings, extra
 * mappings and user validation rules (over `claims` or `user`), and AuthorizationConfiguration's
 * webhook `matchConditions` (over the SubjectAccessReview `request`), each with the result types
 * its field allows. The compilation is runtime/auth's; this module only says where the expressions
 * are. Each failure is one problem naming the expression's field.
 */
import {
  AuthConfigError,
  CLAIMS_VARIABLES,
  compileAt,
  compileJwtAuthenticator,
  type JwtAuthenticatorConfig,
  SUBJECT_ACCESS_REVIEW_SPEC_SCHEMA,
  USER_SCHEMA,
} from '../auth/index.js';
import type { VariableType } from '../cel/index.js';
import { isObject } from '../json/index.js';

/** A configuration expression (or, for the loader's own checks, a field) that the server would reject. */
export interface ExpressionProblem {
  /** JSON path of the field (`jwt[0].claimMappings.username.expression`). */
  field: string;
  /** The expression's text, when the problem is an expression's. */
  expression?: string;
  detail: string;
  /** The problem is a repeated value (`Duplicate value`, as the real system words it). */
  duplicate?: boolean;
  /** Where in the expression, when known (1-based). */
  line?: number;
  column?: number;
}

const STRING = ['string'];
const STRING_OR_LIST = ['string', 'list<string>', 'list<dyn>'];
const BOOL = ['bool'];

type Json = Record<string, unknown>;

const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const text = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

/** Which kinds carry expressions: `apiVersion kind` to the function that finds and compiles them. */
const CHECKERS: Record<string, (doc: Json) => ExpressionProblem[]> = {
  'apiserver.svc.io/v1alpha1 AuthenticationConfiguration': authenticationProblems,
  'apiserver.svc.io/v1alpha1 AuthorizationConfiguration': authorizationProblems,
};

/** The problems of the expressions of a (defaulted, structurally valid) configuration document. */
export function expressionProblems(apiVersion: string, kind: string, doc: unknown): ExpressionProblem[] {
  const check = CHECKERS[`${apiVersion} ${kind}`];
  return check && isObject(doc) ? check(doc) : [];
}

function compile(
  out: ExpressionProblem[],
  field: string,
  expression: unknown,
  variables: Readonly<Record<string, VariableType>>,
  allowed: readonly string[],
): void {
  const source = text(expression);
  if (source === undefined) return;
  try {
    compileAt(field, source, variables, allowed);
  } catch (e) {
    if (!(e instanceof AuthConfigError)) throw e;
    const at = /at line (\d+), column (\d+)$/.exec(e.detail);
    out.push({ field, expression: source, detail: e.detail, ...(at ? { line: Number(at[1]), column: Number(at[2]) } : {}) });
  }
}

function authenticationProblems(doc: Json): ExpressionProblem[] {
  const out: ExpressionProblem[] = [];
  // Issuer and discovery URLs are unique across authenticators: the repetition is the problem.
  for (const field of ['url', 'discoveryURL']) {
    const seen = new Set<string>();
    list(doc.jwt).forEach((jwt, i) => {
      const issuer = isObject(jwt) && isObject(jwt.issuer) ? jwt.issuer : {};
      const value = text(issuer[field]);
      if (value === undefined) return;
      if (seen.has(value)) out.push({ field: `jwt[${i}].issuer.${field}`, detail: '', duplicate: true });
      seen.add(value);
    });
  }
  list(doc.jwt).forEach((jwt, i) => {
    if (!isObject(jwt)) return;
    const base = `jwt[${i}]`;
    const before = out.length;
    list(jwt.claimValidationRules).forEach((r, j) => {
      if (isObject(r)) compile(out, `${base}.claimValidationRules[${j}].expression`, r.expression, CLAIMS_VARIABLES, BOOL);
    });
    const m = isObject(jwt.claimMappings) ? jwt.claimMappings : {};
    const mapping = (name: string, allowed: readonly string[]) => {
      const v = m[name];
      if (isObject(v)) compile(out, `${base}.claimMappings.${name}.expression`, v.expression, CLAIMS_VARIABLES, allowed);
    };
    mapping('username', STRING);
    mapping('groups', STRING_OR_LIST);
    mapping('uid', STRING);
    list(m.extra).forEach((e, j) => {
      if (isObject(e))
        compile(out, `${base}.claimMappings.extra[${j}].valueExpression`, e.valueExpression, CLAIMS_VARIABLES, STRING_OR_LIST);
    });
    list(jwt.userValidationRules).forEach((r, j) => {
      if (isObject(r)) compile(out, `${base}.userValidationRules[${j}].expression`, r.expression, { user: USER_SCHEMA }, BOOL);
    });
    if (out.length > before) return;
    // Every expression compiles: the loader's checks across them (the email_verified rule, read
    // from the syntax trees) and the structural checks it makes on the way.
    try {
      compileJwtAuthenticator(jwt as unknown as JwtAuthenticatorConfig, i);
    } catch (e) {
      if (!(e instanceof AuthConfigError)) return; // a shape the schema already reports
      const expression = /expression$/i.test(e.path) ? text(valueAt(doc, e.path)) : undefined;
      out.push({ field: e.path, detail: e.detail, ...(expression !== undefined ? { expression } : {}) });
    }
  });
  return out;
}

function authorizationProblems(doc: Json): ExpressionProblem[] {
  const out: ExpressionProblem[] = [];
  list(doc.authorizers).forEach((a, i) => {
    if (!isObject(a) || !isObject(a.webhook)) return;
    list(a.webhook.matchConditions).forEach((c, j) => {
      if (isObject(c)) {
        compile(
          out,
          `authorizers[${i}].webhook.matchConditions[${j}].expression`,
          c.expression,
          { request: SUBJECT_ACCESS_REVIEW_SPEC_SCHEMA },
          BOOL,
        );
      }
    });
  });
  return out;
}

/** The value at a JSON path such as `jwt[0].claimMappings.username.expression`. */
function valueAt(doc: unknown, path: string): unknown {
  let v = doc;
  for (const part of path.match(/[^.[\]]+/g) ?? []) {
    if (Array.isArray(v)) v = v[Number(part)];
    else if (isObject(v)) v = v[part];
    else return undefined;
  }
  return v;
}
