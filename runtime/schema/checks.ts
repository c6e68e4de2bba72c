import type { Collector, PathLike, ValueConstraints } from '../validate/index.js';
import type { SchemaNode } from './types.js';

const CONSTRAINT_KEYS = [
  'enum',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'minLength',
  'maxLength',
  'pattern',
  'minItems',
  'maxItems',
  'minProperties',
  'maxProperties',
] as const satisfies readonly (keyof ValueConstraints)[];

/** False for a node that accepts anything (raw, unconstrained, not nullable): no check is made for it at all. */
export function checks(node: SchemaNode): boolean {
  return !(node.type === 'raw' && !node.nullable && !CONSTRAINT_KEYS.some((k) => node[k] !== undefined));
}

/** Checks a value's structure, bounds and formats (CEL rules are run apart), reporting into `sink`. */
export type Validator = (value: unknown, path: PathLike, sink: Collector) => void;
