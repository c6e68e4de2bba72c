/**
 * From verified claims to a user: the claim mappings, the email_verified rule, the claim
 * validation rules and the user validation rules, in the order the real system applies them. Every
 * failure is an Error whose message says which rule or mapping failed; the authenticator turns it
 * into a rejected credential.
 */
import type { CompiledExpressionProgram } from '../../cel/index.js';
import type { UserInfo } from '../user.js';
import type { AttributeSource, CompiledJwtRules } from './config.js';

type Claims = Readonly<Record<string, unknown>>;

function evaluate(program: CompiledExpressionProgram, path: string, inputs: Record<string, unknown>): unknown {
  try {
    return program.evaluate(inputs);
  } catch (e) {
    throw new Error(`${path}: ${(e as { summary?: string }).summary ?? (e instanceof Error ? e.message : String(e))}`);
  }
}

/** A string, a list of strings, or absent (null, "", []); anything else is an error. */
function stringList(value: unknown, what: string): string[] {
  if (value === null || value === undefined) return [];
  if (typeof value === 'string') return value === '' ? [] : [value];
  if (Array.isArray(value) && value.every((v) => typeof v === 'string')) return value.filter((v) => v !== '');
  throw new Error(`${what} must be a string or a list of strings`);
}

function singleString(value: unknown, what: string): string {
  if (typeof value !== 'string') throw new Error(`${what} must be a string`);
  return value;
}

function readClaim(claims: Claims, claim: string): unknown {
  if (!Object.hasOwn(claims, claim)) throw new Error(`claim ${JSON.stringify(claim)} not present`);
  return claims[claim];
}

function checkClaimRules(rules: CompiledJwtRules, claims: Claims): void {
  for (const rule of rules.claimRules) {
    if (rule.kind === 'required') {
      const value = claims[rule.claim];
      if (value === undefined) throw new Error(`required claim ${JSON.stringify(rule.claim)} not present`);
      if (value !== rule.requiredValue) {
        throw new Error(`required claim ${JSON.stringify(rule.claim)} value does not match, want ${JSON.stringify(rule.requiredValue)}`);
      }
      continue;
    }
    const ok = evaluate(rule.program, rule.path, { claims });
    if (typeof ok !== 'boolean') throw new Error(`${rule.path}: must evaluate to bool`);
    if (!ok) throw new Error(rule.message ?? `claim validation rule failed: ${rule.program.expression}`);
  }
}

/** With username from the `email` claim, an `email_verified` claim that is present must be true. */
function checkEmailVerified(claims: Claims): void {
  if (!Object.hasOwn(claims, 'email_verified')) return;
  const v = claims.email_verified;
  if (typeof v !== 'boolean') throw new Error('claim "email_verified" must be a boolean');
  if (!v) throw new Error('email not verified');
}

function mapSingle(source: AttributeSource, claims: Claims, what: string): string {
  if (source.kind === 'claim')
    return source.prefix + singleString(readClaim(claims, source.claim), `claim ${JSON.stringify(source.claim)}`);
  return singleString(evaluate(source.program, source.path, { claims }), what);
}

function mapGroups(source: AttributeSource, claims: Claims): string[] {
  if (source.kind === 'claim') {
    const groups = stringList(claims[source.claim], `claim ${JSON.stringify(source.claim)}`);
    return groups.map((g) => source.prefix + g);
  }
  return stringList(evaluate(source.program, source.path, { claims }), 'groups expression result');
}

/**
 * Applies the rules to verified claims; throws an Error saying what failed. The order is the real
 * system's: the mappings (username with its email_verified check, groups, uid, extra), then the
 * claim validation rules, then the user validation rules over the mapped user.
 */
export function userFromClaims(rules: CompiledJwtRules, claims: Claims): UserInfo {
  const username = mapSingle(rules.username, claims, 'username expression result');
  if (rules.checkEmailVerified) checkEmailVerified(claims);
  if (username === '') throw new Error('username is empty');
  const groups = rules.groups ? mapGroups(rules.groups, claims) : [];
  const uid = rules.uid ? mapSingle(rules.uid, claims, 'uid expression result') : undefined;
  const extra: Record<string, string[]> = {};
  for (const e of rules.extra) {
    const values = stringList(evaluate(e.program, e.path, { claims }), `extra ${JSON.stringify(e.key)}`);
    if (values.length > 0) extra[e.key] = values;
  }
  const user: UserInfo = { username, ...(uid !== undefined ? { uid } : {}), groups, extra };
  checkClaimRules(rules, claims);

  for (const rule of rules.userRules) {
    const ok = evaluate(rule.program, rule.path, { user: { username, uid: uid ?? '', groups, extra } });
    if (typeof ok !== 'boolean') throw new Error(`${rule.path}: must evaluate to bool`);
    if (!ok) throw new Error(rule.message ?? `user validation rule failed: ${rule.program.expression}`);
  }
  return user;
}
