import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { projectKinds } from '../../scripts/commands/project-kinds.js';
import { Collector } from '../validate/index.js';
import { documentOf } from './arbitrary.testing.js';
import { validatorOf } from './validator.js';

const FIXTURE_CRDS = new URL('../../generator/testdata/crds', import.meta.url).pathname;

function findings(validate: (v: unknown, p: string, e: Collector) => void, value: unknown): unknown {
  const e = new Collector();
  validate(value, '', e);
  return { errors: e.errors, unknownFields: e.unknownFields };
}

// The fixture CRDs (patterns, bounds, enums, list maps, inline allOf/anyOf/oneOf/not, int-or-string):
// the descriptor-driven validator against the validators generated for them, in kube-openapi's words.
describe('validatorOf on custom resources: the same findings as generated validators', async () => {
  const { kinds } = await projectKinds([FIXTURE_CRDS], 'test', { quiet: true });
  for (const kind of kinds) {
    it(`${kind.apiVersion} ${kind.kind}`, () => {
      expect(kind.schema.customResource).toBe(true);
      const engine = validatorOf(kind.schema);
      fc.assert(
        fc.property(documentOf(kind.schema), (doc) => {
          expect(findings(engine, doc)).toEqual(findings(kind.validate, doc));
        }),
        { numRuns: 100 },
      );
    });
  }
});
