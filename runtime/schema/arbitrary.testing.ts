import fc from 'fast-check';
import { type SchemaNode, deref } from './types.js';

/**
 * Documents for a schema descriptor, for property tests that compare two implementations of the
 * schema's checks: mostly well-typed values near the schema's bounds, and with a small chance at
 * every node a mutation (a wrong type, null, a value outside the bounds or the enum, an unknown
 * field, a missing required field). Below `maxDepth` objects are left empty.
 */
export function documentOf(schema: SchemaNode, maxDepth = 6): fc.Arbitrary<unknown> {
  return node(schema, 0, maxDepth);
}

const junk = fc.oneof(
  fc.constant(null),
  fc.constant(true),
  fc.integer({ min: -3, max: 3 }),
  fc.double({ noNaN: true, min: -1e10, max: 1e10 }),
  fc.constantFrom('', 'x', '1Gi', '2024-01-01', '2024-01-01T00:00:00Z', '30s', 'aGk=', 'not base64!', 'é'),
  fc.constant([]),
  fc.constant({}),
);

function node(schema: SchemaNode, depth: number, maxDepth: number): fc.Arbitrary<unknown> {
  const well = wellTyped(schema, depth, maxDepth);
  return fc.oneof({ arbitrary: well, weight: 12 }, { arbitrary: junk, weight: 1 });
}

function wellTyped(schema: SchemaNode, depth: number, maxDepth: number): fc.Arbitrary<unknown> {
  const n = deref(schema);
  const enumValues = n.enum ?? schema.enum;
  if (enumValues && enumValues.length > 0)
    return fc.oneof({ arbitrary: fc.constantFrom(...enumValues), weight: 4 }, { arbitrary: fc.constant('not-in-enum'), weight: 1 });
  switch (n.type) {
    case 'object': {
      if (depth >= maxDepth) return fc.constant({});
      const fields: Record<string, fc.Arbitrary<unknown>> = {};
      for (const f of n.fields) fields[f.name] = node(f.schema, depth + 1, maxDepth);
      const required = n.fields.filter((f) => f.required).map((f) => f.name);
      return fc
        .tuple(
          fc.record(fields, { requiredKeys: [] }),
          fc.boolean(),
          fc.subarray(required),
          fc.option(fc.constantFrom('unknownField', 'toString', '__proto__', 'a.b'), { freq: 6 }),
        )
        .map(([value, fill, missing, extra]) => {
          const out: Record<string, unknown> = { ...value };
          // Usually every required field is there; sometimes some are left out.
          if (fill)
            for (const r of required)
              if (!missing.includes(r) && out[r] === undefined) out[r] = sample(n.fields.find((f) => f.name === r)!.schema);
          if (extra) Object.defineProperty(out, extra, { value: 'extra', enumerable: true, writable: true, configurable: true });
          return out;
        });
    }
    case 'map':
      if (depth >= maxDepth) return fc.constant({});
      return fc.dictionary(fc.constantFrom('a', 'b', 'key.with.dots', ''), node(n.values, depth + 1, maxDepth), { maxKeys: 3 });
    case 'list': {
      if (depth >= maxDepth) return fc.constant([]);
      const items = node(n.items, depth + 1, maxDepth);
      const max = Math.min(n.maxItems ?? 4, 4) + 1;
      return fc.oneof(
        fc.array(items, { maxLength: max }),
        fc.array(items, { maxLength: 3 }).map((a) => [...a, ...a]),
      );
    }
    case 'string':
      return stringNear(n);
    case 'integer':
    case 'number':
      return numberNear(n, n.type === 'integer');
    case 'boolean':
      return fc.boolean();
    case 'int-or-string':
      return fc.oneof(fc.integer({ min: -5, max: 100 }), stringNear(n), fc.constant(1.5));
    case 'quantity':
      return fc.constantFrom('1Gi', '500m', '1e3', '1.5', 'x1', '', 3, 2.5);
    case 'bytes':
      return fc.constantFrom('aGk=', '', 'a', '=====', 'not base64!');
    case 'date':
      return fc.constantFrom('2024-01-01', '2024-13-01', 'today', '');
    case 'date-time':
      return fc.constantFrom('2024-01-01T00:00:00Z', '2024-01-01T00:00:00.5+02:00', '2024-01-01', 'now');
    case 'duration':
      return fc.constantFrom('30s', '1m30s', '500ms', '0s', '-1h', '3 days', '');
    default:
      return fc.anything({ maxDepth: 2 });
  }
}

function stringNear(n: SchemaNode): fc.Arbitrary<string> {
  const lengths = [n.minLength, n.maxLength].filter((l): l is number => l !== undefined);
  const near = lengths.flatMap((l) => [Math.max(0, l - 1), l, l + 1]).map((l) => 'a'.repeat(Math.min(l, 300)));
  return fc.oneof(fc.string({ maxLength: 8 }), fc.constantFrom('abc', 'a-b.c', 'A_B', '', '😀😀', ...near));
}

function numberNear(n: SchemaNode, integer: boolean): fc.Arbitrary<number> {
  const bounds = [n.minimum, n.maximum].filter((b): b is number => b !== undefined);
  const near = bounds.flatMap((b) => [b - 1, b, b + 1]);
  const edges = [0, -1, 2147483647, 2147483648, -2147483649, 2 ** 53, ...near];
  return fc.oneof(
    fc.integer({ min: -100, max: 100 }),
    fc.constantFrom(...edges),
    integer ? fc.constant(0.5) : fc.double({ noNaN: true, noDefaultInfinity: true }),
  );
}

/** One value of a schema, for a required field the generator chose to fill. */
function sample(schema: SchemaNode): unknown {
  return fc.sample(wellTyped(schema, 5, 5), { numRuns: 1, seed: 1 })[0];
}
