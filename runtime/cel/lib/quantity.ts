/** The quantity library: `quantity`, `isQuantity` and the members of the `kubernetes.Quantity` type. */
import type { Environment } from '@marcbachmann/cel-js';
import { spend, traversalCost } from '../cost.js';
import { Quantity } from './quantity-value.js';
import { defineFunction, fail } from './register.js';

export { Quantity };

const Q = 'kubernetes.Quantity';

function parse(text: string): Quantity {
  spend(traversalCost(text.length));
  return Quantity.parse(text) ?? fail(`invalid quantity: ${JSON.stringify(text)}`);
}

export function registerQuantity(env: Environment): void {
  env.registerType(Q, { ctor: Quantity, fields: {} });
  env.registerOperator(`${Q} == ${Q}`, (a: Quantity, b: Quantity) => a.celEquals(b));
  defineFunction(env, `quantity(string): ${Q}`, parse);
  defineFunction(env, 'isQuantity(string): bool', (s: string) => {
    spend(traversalCost(s.length));
    return Quantity.parse(s) !== undefined;
  });
  defineFunction(env, `${Q}.isInteger(): bool`, (q: Quantity) => q.asInt64() !== undefined);
  defineFunction(
    env,
    `${Q}.asInteger(): int`,
    (q: Quantity) => q.asInt64() ?? fail(`cannot convert quantity ${q} to an integer: not a whole number in the int64 range`),
  );
  defineFunction(env, `${Q}.asApproximateFloat(): double`, (q: Quantity) => q.asApproximateFloat());
  defineFunction(env, `${Q}.sign(): int`, (q: Quantity) => BigInt(q.sign()));
  defineFunction(env, `${Q}.add(${Q}): ${Q}`, (a: Quantity, b: Quantity) => a.add(b));
  defineFunction(env, `${Q}.add(int): ${Q}`, (a: Quantity, b: bigint) => a.add(Quantity.fromInt(b)));
  defineFunction(env, `${Q}.sub(${Q}): ${Q}`, (a: Quantity, b: Quantity) => a.sub(b));
  defineFunction(env, `${Q}.sub(int): ${Q}`, (a: Quantity, b: bigint) => a.sub(Quantity.fromInt(b)));
  defineFunction(env, `${Q}.isLessThan(${Q}): bool`, (a: Quantity, b: Quantity) => a.compareTo(b) < 0);
  defineFunction(env, `${Q}.isGreaterThan(${Q}): bool`, (a: Quantity, b: Quantity) => a.compareTo(b) > 0);
  defineFunction(env, `${Q}.compareTo(${Q}): int`, (a: Quantity, b: Quantity) => BigInt(a.compareTo(b)));
}
