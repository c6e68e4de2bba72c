/**
 * Compiling the CEL expressions of authentication and authorization configuration: each is
 * compiled once, when the configuration is loaded, with the variables its field declares and the
 * result types it may have, so a typo fails the server's start naming the field
 * (`jwt[0].claimMappings.username.expression`) instead of failing every request later.
 */
import { Environment } from '@marcbachmann/cel-js';
import { type CompiledExpressionProgram, compileExpression, type VariableType } from '../cel/index.js';
import type { SchemaNode } from '../schema/index.js';

/** A configuration document that cannot be loaded; `path` is the JSON path of the offending field. */
export class AuthConfigError extends Error {
  override readonly name = 'AuthConfigError';
  constructor(
    readonly path: string,
    readonly detail: string,
  ) {
    super(`${path}: ${detail}`);
  }
}

/** `claims`: the token's payload, a map from claim name to any JSON value (as upstream). */
export const CLAIMS_VARIABLES: Readonly<Record<string, VariableType>> = { claims: 'map<string, dyn>' };

/** `user`: the mapped user, typed, so `user.usrname` fails to compile. */
export const USER_SCHEMA: SchemaNode = {
  type: 'object',
  typeName: 'authentication.UserInfo',
  fields: [
    { name: 'username', schema: { type: 'string' } },
    { name: 'uid', schema: { type: 'string' } },
    { name: 'groups', schema: { type: 'list', items: { type: 'string' } } },
    { name: 'extra', schema: { type: 'map', values: { type: 'list', items: { type: 'string' } } } },
  ],
};

/**
 * Compiles `expression` and checks its type is one of `allowed`. `dyn` is always accepted (a claim
 * read from the `claims` map is dyn); its value is checked when it is evaluated.
 */
export function compileAt(
  path: string,
  expression: string,
  variables: Readonly<Record<string, VariableType>>,
  allowed: readonly string[],
): CompiledExpressionProgram {
  let program: CompiledExpressionProgram;
  try {
    // No compile-time cost estimate: the inputs (a token's claims, a request's attributes) are
    // bounded by the request's header size, not by a schema, so every list would count as
    // unbounded. The per-evaluation runtime limit still stops a runaway expression.
    program = compileExpression(expression, { variables, costLimits: { estimated: Number.POSITIVE_INFINITY } });
  } catch (e) {
    const summary = (e as { summary?: string }).summary ?? (e instanceof Error ? e.message : String(e));
    const at = (e as { position?: { line: number; column: number } }).position;
    throw new AuthConfigError(path, `compilation failed: ${summary}${at ? ` at line ${at.line}, column ${at.column}` : ''}`);
  }
  if (program.type !== 'dyn' && !allowed.includes(program.type)) {
    throw new AuthConfigError(path, `must evaluate to ${allowed.join(' or ')}, but evaluates to ${program.type}`);
  }
  return program;
}

let parser: Environment | undefined;

interface SyntaxNode {
  readonly op: string;
  readonly args: unknown;
}

function isSyntaxNode(v: unknown): v is SyntaxNode {
  return typeof v === 'object' && v !== null && typeof (v as { op?: unknown }).op === 'string' && 'args' in v;
}

/**
 * The claims an expression selects directly from `claims` (`claims.email`, `claims.?email`,
 * `claims["email"]`), read from its syntax tree, so that text like `"claims.email"` inside a string
 * literal or a variable named `myclaims` does not count.
 */
export function selectedClaims(expression: string): Set<string> {
  parser ??= new Environment({ enableOptionalTypes: true });
  const root: unknown = parser.parse(expression).ast;
  const out = new Set<string>();
  const seen = new Set<unknown>();
  const visit = (v: unknown): void => {
    if (typeof v !== 'object' || v === null || seen.has(v)) return;
    seen.add(v);
    if (Array.isArray(v)) {
      for (const x of v) visit(x);
      return;
    }
    if (!isSyntaxNode(v)) return;
    const args = v.args;
    if (Array.isArray(args) && args.length === 2 && isSyntaxNode(args[0]) && args[0].op === 'id' && args[0].args === 'claims') {
      if ((v.op === '.' || v.op === '.?') && typeof args[1] === 'string') out.add(args[1]);
      if (v.op === '[]' && isSyntaxNode(args[1]) && args[1].op === 'value' && typeof args[1].args === 'string') out.add(args[1].args);
    }
    visit(args);
  };
  visit(root);
  return out;
}
