/**
 * The authorizer library. Expressions build a check (`authorizer.group(g).resource(r)` with optional
 * `subresource`, `namespace`, `name`, then `check(verb)`; or `authorizer.path(p).check(httpVerb)`;
 * `authorizer.serviceAccount(ns, name)` to ask as a service account) and read the decision with
 * `allowed()` and `reason()`. The server supplies the actual decision through an AuthorizerBinding.
 */
import type { Environment } from '@marcbachmann/cel-js';
import { COST, spend } from '../cost.js';
import { defineFunction } from './register.js';

/** What one check asks. `user` is set only when the expression asked as a service account. */
export interface AuthorizationAttributes {
  user?: { name: string; groups: readonly string[] };
  verb: string;
  /** True for group/resource checks, false for path checks. */
  resourceRequest: boolean;
  group?: string;
  resource?: string;
  subresource?: string;
  namespace?: string;
  name?: string;
  /** Non-resource URL path, for path checks. */
  path?: string;
}

export interface AuthorizationDecision {
  allowed: boolean;
  reason: string;
  /** Set when the authorizer failed to decide. */
  error?: string;
}

/** Implemented by the server: answers a check for the user of the request being evaluated. */
export interface AuthorizerBinding {
  check(attributes: AuthorizationAttributes): AuthorizationDecision;
}

const NS = 'kubernetes.authorization';
/** The CEL type of the `authorizer` variable. */
export const AUTHORIZER_TYPE = `${NS}.Authorizer`;

export class AuthorizerValue {
  constructor(
    readonly binding: AuthorizerBinding,
    readonly user?: { name: string; groups: readonly string[] },
  ) {}
}

export class PathCheck {
  constructor(
    readonly authorizer: AuthorizerValue,
    readonly path: string,
  ) {}
}

export class GroupCheck {
  constructor(
    readonly authorizer: AuthorizerValue,
    readonly group: string,
  ) {}
}

export class ResourceCheck {
  constructor(
    readonly authorizer: AuthorizerValue,
    readonly group: string,
    readonly resource: string,
    readonly subresource = '',
    readonly namespace = '',
    readonly name = '',
  ) {}

  with(part: 'subresource' | 'namespace' | 'name', value: string): ResourceCheck {
    const { authorizer, group, resource, subresource, namespace, name } = this;
    const next = { subresource, namespace, name, [part]: value };
    return new ResourceCheck(authorizer, group, resource, next.subresource, next.namespace, next.name);
  }
}

export class DecisionValue {
  constructor(readonly result: AuthorizationDecision) {}
}

function decide(authorizer: AuthorizerValue, attributes: AuthorizationAttributes): DecisionValue {
  spend(COST.authorizationCheck);
  const request = authorizer.user ? { ...attributes, user: authorizer.user } : attributes;
  try {
    return new DecisionValue(authorizer.binding.check(request));
  } catch (e) {
    return new DecisionValue({ allowed: false, reason: '', error: e instanceof Error ? e.message : String(e) });
  }
}

function checkResource(c: ResourceCheck, verb: string): DecisionValue {
  const attributes: AuthorizationAttributes = { verb, resourceRequest: true, group: c.group, resource: c.resource };
  if (c.subresource) attributes.subresource = c.subresource;
  if (c.namespace) attributes.namespace = c.namespace;
  if (c.name) attributes.name = c.name;
  return decide(c.authorizer, attributes);
}

function serviceAccount(a: AuthorizerValue, namespace: string, name: string): AuthorizerValue {
  return new AuthorizerValue(a.binding, {
    name: `system:serviceaccount:${namespace}:${name}`,
    groups: ['system:serviceaccounts', `system:serviceaccounts:${namespace}`, 'system:authenticated'],
  });
}

export function registerAuthz(env: Environment): void {
  const A = AUTHORIZER_TYPE;
  const P = `${NS}.PathCheck`;
  const G = `${NS}.GroupCheck`;
  const R = `${NS}.ResourceCheck`;
  const D = `${NS}.Decision`;
  env.registerType(A, { ctor: AuthorizerValue, fields: {} });
  env.registerType(P, { ctor: PathCheck, fields: {} });
  env.registerType(G, { ctor: GroupCheck, fields: {} });
  env.registerType(R, { ctor: ResourceCheck, fields: {} });
  env.registerType(D, { ctor: DecisionValue, fields: {} });
  defineFunction(env, `${A}.path(string): ${P}`, (a: AuthorizerValue, p: string) => new PathCheck(a, p));
  defineFunction(env, `${A}.group(string): ${G}`, (a: AuthorizerValue, g: string) => new GroupCheck(a, g));
  defineFunction(env, `${A}.serviceAccount(string, string): ${A}`, serviceAccount);
  defineFunction(env, `${G}.resource(string): ${R}`, (g: GroupCheck, r: string) => new ResourceCheck(g.authorizer, g.group, r));
  defineFunction(env, `${R}.subresource(string): ${R}`, (c: ResourceCheck, v: string) => c.with('subresource', v));
  defineFunction(env, `${R}.namespace(string): ${R}`, (c: ResourceCheck, v: string) => c.with('namespace', v));
  defineFunction(env, `${R}.name(string): ${R}`, (c: ResourceCheck, v: string) => c.with('name', v));
  defineFunction(env, `${R}.check(string): ${D}`, checkResource);
  defineFunction(env, `${P}.check(string): ${D}`, (p: PathCheck, verb: string) =>
    decide(p.authorizer, { verb: verb.toLowerCase(), resourceRequest: false, path: p.path }),
  );
  defineFunction(env, `${D}.allowed(): bool`, (d: DecisionValue) => d.result.allowed);
  defineFunction(env, `${D}.reason(): string`, (d: DecisionValue) => d.result.reason);
  defineFunction(env, `${D}.errored(): bool`, (d: DecisionValue) => d.result.error !== undefined);
  defineFunction(env, `${D}.error(): string`, (d: DecisionValue) => d.result.error ?? '');
}
