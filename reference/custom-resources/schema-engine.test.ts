import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { closureValidator, defaulterOf, validatorOf } from '../../runtime/schema/index.js';
import { projectKinds } from './compile.js';
import { Collector } from '../../runtime/validate/index.js';
import { documentOf } from '../../runtime/schema/arbitrary.testing.js';

function defaulted(setDefaults: (v: unknown) => void, doc: unknown): string {
  const copy = structuredClone(doc);
  setDefaults(copy);
  return JSON.stringify(copy);
}

const FIXTURE_CRDS = new URL('../../generator/testdata/crds', import.meta.url).pathname;

function findings(validate: (v: unknown, p: string, e: Collector) => void, value: unknown): unknown {
  const e = new Collector();
  validate(value, '', e);
  return { errors: e.errors, unknownFields: e.unknownFields };
}

// The fixture CRDs (patterns, bounds, enums, list maps, inline allOf/anyOf/oneOf/not, int-or-string,
// defaults), in kube-openapi's words: the validator compiled to source against its closures.
describe('the schema engine on custom resources: compiled source and closures find the same', async () => {
  const { kinds } = await projectKinds([FIXTURE_CRDS], 'test', { quiet: true });
  for (const kind of kinds) {
    it(`${kind.apiVersion} ${kind.kind}`, () => {
      expect(kind.schema.customResource).toBe(true);
      const [engine, closures] = [validatorOf(kind.schema), closureValidator(kind.schema)];
      fc.assert(
        fc.property(documentOf(kind.schema), (doc) => {
          expect(findings(engine, doc)).toEqual(findings(closures, doc));
          // Defaulting is idempotent: a second pass changes nothing.
          const once = defaulted(defaulterOf(kind.schema), doc);
          expect(defaulted(defaulterOf(kind.schema), JSON.parse(once))).toBe(once);
        }),
        { numRuns: 100 },
      );
    });
  }
});
