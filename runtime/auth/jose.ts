/**
 * jose, imported on first use: a server checks or signs JWTs only once a bearer token arrives or a
 * token is requested, and jose is some 45 modules that `svckit serve` need not load to start
 * (issue 27).
 */
import type * as Jose from 'jose';

let loading: Promise<typeof Jose> | undefined;

export function jose(): Promise<typeof Jose> {
  loading ??= import('jose');
  return loading;
}
