import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { allProtobufPackages } from '../../generated/protobuf.js';
import type { ObjectSchema } from '../schema/index.js';
import { MessageCompiler } from './protobuf-message.js';
import { compilePlans } from './protobuf-source.js';
import { newReader, newWriter } from './protobuf-wire.js';
import { documentArbitrary } from './schema-arbitrary.testing.js';

// The compiled write and read of every built-in kind against the plan's closures: the same bytes,
// the same objects with their keys in the same order, the same refusals.
const embedded = new Map<ObjectSchema, Map<number, ObjectSchema>>();
for (const p of allProtobufPackages)
  for (const e of p.embedded) embedded.set(e.owner, (embedded.get(e.owner) ?? new Map<number, ObjectSchema>()).set(e.number, e.type));
const compiler = new MessageCompiler((owner, number) => embedded.get(owner)?.get(number));
const kinds = allProtobufPackages.flatMap((p) => p.kinds);
const RUNS = Number(process.env.SVCKIT_PROPERTY_RUNS ?? 10);

type JsonObject = Record<string, unknown>;

function outcome(run: () => unknown): { value: unknown } | { error: string } {
  try {
    return { value: run() };
  } catch (error) {
    return { error: String(error) };
  }
}

describe('compiled message plans', () => {
  it.each(kinds.map((k) => [`${k.apiVersion} ${k.kind}`, k] as const))('%s: writes and reads as the closures do', (_name, kind) => {
    const plan = compiler.plan(kind.schema);
    compilePlans(plan);
    expect(plan.fastWrite).not.toBe(plan.write);
    fc.assert(
      fc.property(documentArbitrary(kind, { canonical: false }), (doc) => {
        const json = JSON.parse(JSON.stringify(doc)) as JsonObject;
        const slow = newWriter();
        plan.write(slow, json);
        const bytes = slow.finish();
        const fast = newWriter();
        plan.fastWrite(fast, json);
        expect(Buffer.from(fast.finish()).equals(Buffer.from(bytes))).toBe(true);
        const read = (fn: typeof plan.read, b: Uint8Array) => () => JSON.stringify(fn.call(plan, newReader(b), b.length, {}));
        expect(outcome(read(plan.fastRead, bytes))).toEqual(outcome(read(plan.read, bytes)));
        // Cut short, both refuse (or read the same shorter message).
        const cut = bytes.subarray(0, bytes.length >> 1);
        expect('error' in outcome(read(plan.fastRead, cut))).toBe('error' in outcome(read(plan.read, cut)));
      }),
      { numRuns: RUNS },
    );
  });

  it('refuses what the closures refuse (the codec then asks them where)', () => {
    const pod = kinds.find((k) => k.kind === 'Pod')!;
    const plan = compiler.plan(pod.schema);
    compilePlans(plan);
    for (const bad of [
      { spec: { containers: [{ name: 'c', ports: [{ containerPort: 2 ** 31 }] }] } },
      { spec: { containers: [{ name: 'c', ports: [{ containerPort: 1.5 }] }] } },
      { spec: { containers: [null] } },
      { spec: { containers: {} } },
      { metadata: { labels: { a: 1 } } },
      { metadata: { labels: [] } },
      { metadata: { name: 7 } },
      { metadata: 'p' },
      { spec: { hostNetwork: 'yes' } },
      { spec: { activeDeadlineSeconds: 2 ** 63 } },
      { metadata: { creationTimestamp: 'yesterday' } },
    ]) {
      expect(() => plan.fastWrite(newWriter(), bad), JSON.stringify(bad)).toThrow();
      expect(() => plan.write(newWriter(), bad), JSON.stringify(bad)).toThrow();
    }
  });
});
