import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { SVCKIT_ROOT, codegen } from '../../generator/index.js';
import { type KindRegistration, closureValidator, defaulterOf, validatorOf } from '../../runtime/schema/index.js';
import { Collector } from '../../runtime/validate/index.js';
import { documentOf } from '../../runtime/schema/arbitrary.testing.js';
import { projectKinds } from './compile.js';

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

/** The code codegen writes for the fixture CRDs, imported: the evidence the in-memory kinds are checked against. */
async function generatedKinds(): Promise<readonly KindRegistration[]> {
  const out = mkdtempSync(join(tmpdir(), 'svckit-engine-'));
  afterAll(() => rmSync(out, { recursive: true, force: true }));
  codegen({ schemas: [FIXTURE_CRDS], out, runtime: { root: SVCKIT_ROOT } });
  return ((await import(pathToFileURL(join(out, 'kinds.ts')).href)) as { allKinds: readonly KindRegistration[] }).allKinds;
}

// The fixture CRDs (patterns, bounds, enums, list maps, inline allOf/anyOf/oneOf/not, int-or-string,
// defaults): the kinds built in memory against the descriptors generated for them, and the schema
// engine's compiled validator against its closures, in kube-openapi's words.
describe('custom resources in memory: the same descriptors as generated code, checked alike', async () => {
  const { kinds } = await projectKinds([FIXTURE_CRDS], 'test', { quiet: true });
  const generated = await generatedKinds();
  it('declares the same kinds, with the same registrations and descriptors (references aside)', () => {
    const plain = (k: KindRegistration) => JSON.stringify(k);
    expect(kinds.map(plain)).toEqual(generated.map(plain));
  });
  for (const kind of kinds) {
    it(`${kind.apiVersion} ${kind.kind}`, () => {
      const code = generated.find((g) => g.apiVersion === kind.apiVersion && g.kind === kind.kind)!;
      expect(kind.schema.customResource).toBe(true);
      fc.assert(
        fc.property(documentOf(kind.schema), (doc) => {
          const inMemory = findings(validatorOf(kind.schema), doc);
          expect(inMemory).toEqual(findings(validatorOf(code.schema), doc));
          expect(inMemory).toEqual(findings(closureValidator(kind.schema), doc));
          const once = defaulted(defaulterOf(kind.schema), doc);
          expect(once).toBe(defaulted(defaulterOf(code.schema), doc));
          // Defaulting is idempotent: a second pass changes nothing.
          expect(defaulted(defaulterOf(kind.schema), JSON.parse(once))).toBe(once);
        }),
        { numRuns: 100 },
      );
    });
  }
});
