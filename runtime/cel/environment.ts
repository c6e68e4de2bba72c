/**
 * The base expression environment: the standard library of @marcbachmann/cel-js (macros, optional
 * types, cross-type numeric comparison, UTC time) plus the cluster libraries. It is built once and
 * frozen; every compilation works in a clone that declares its own variables and schema types.
 */
import { Environment } from '@marcbachmann/cel-js';
import { registerAuthz } from './lib/authz.js';
import { registerConversions } from './lib/conversions.js';
import { registerLists } from './lib/lists.js';
import { registerOptionals } from './lib/optionals.js';
import { registerQuantity } from './lib/quantity.js';
import { registerRegex } from './lib/regex.js';
import { registerStrings } from './lib/strings.js';
import { registerUrls } from './lib/urls.js';

let base: Environment | undefined;

function createBase(): Environment {
  const env = new Environment({
    enableOptionalTypes: true,
    homogeneousAggregateLiterals: true,
    unlistedVariablesAreDyn: false,
  });
  registerConversions(env);
  registerStrings(env);
  registerLists(env);
  registerOptionals(env);
  registerRegex(env);
  registerUrls(env);
  registerQuantity(env);
  registerAuthz(env);
  return env;
}

/** A fresh environment with every library, ready for variable and type declarations. */
export function newEnvironment(): Environment {
  base ??= createBase();
  return base.clone();
}
