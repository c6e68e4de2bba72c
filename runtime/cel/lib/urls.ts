/** The URL library: `url`, `isURL` and the accessors of the `kubernetes.URL` type. */
import type { Environment } from '@marcbachmann/cel-js';
import { spend, traversalCost } from '../cost.js';
import { defineFunction, fail } from './register.js';
import { parseRequestUri, Url } from './url-value.js';

export { Url };

const U = 'kubernetes.URL';

function parse(text: string): Url {
  spend(traversalCost(text.length));
  try {
    return parseRequestUri(text);
  } catch (e) {
    return fail(`URL parse error during conversion from string: ${e instanceof Error ? e.message : String(e)}`);
  }
}

function isUrl(text: string): boolean {
  try {
    parseRequestUri(text);
    return true;
  } catch {
    return false;
  }
}

export function registerUrls(env: Environment): void {
  env.registerType(U, { ctor: Url, fields: {} });
  env.registerOperator(`${U} == ${U}`, (a: Url, b: Url) => a.celEquals(b));
  defineFunction(env, `url(string): ${U}`, parse);
  defineFunction(env, 'isURL(string): bool', isUrl);
  defineFunction(env, `${U}.getScheme(): string`, (u: Url) => u.scheme);
  defineFunction(env, `${U}.getHost(): string`, (u: Url) => u.host);
  defineFunction(env, `${U}.getHostname(): string`, (u: Url) => u.hostname());
  defineFunction(env, `${U}.getPort(): string`, (u: Url) => u.port());
  defineFunction(env, `${U}.getEscapedPath(): string`, (u: Url) => u.escapedPath());
  defineFunction(env, `${U}.getQuery(): map<string, list<string>>`, (u: Url) => u.query());
  defineFunction(env, `svc__string(${U}): string`, (u: Url) => u.toString());
}
