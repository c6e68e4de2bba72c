import { describe, expect, it } from 'vitest';
import { fromFieldsV1 } from './fields-v1.js';
import { fieldElement as f } from './path-element.js';
import { topology, withSpecField } from './pod-schema.testing.js';
import { reconcileWithSchema } from './reconcile.js';
import { rootShape } from './shape.js';

const granular = rootShape(withSpecField('tolerations', topology.tolerationsGranular));
const atomic = rootShape(withSpecField('tolerations', topology.tolerationsAtomic));

describe('reconciling a decoded set with the schema', () => {
  it('reconcile/cached-per-shape: a decoded set read under one schema, another and the first again gives each its own reading', () => {
    const set = fromFieldsV1({ 'f:spec': { 'f:tolerations': { 'i:0': { 'f:key': {} } } } });
    expect(reconcileWithSchema(set, granular)).toBe(set);
    const collapsed = reconcileWithSchema(set, atomic);
    expect(collapsed).not.toBe(set);
    expect(collapsed.paths()).toEqual([[f('spec'), f('tolerations')]]);
    expect(reconcileWithSchema(set, atomic)).toBe(collapsed);
    expect(reconcileWithSchema(set, granular)).toBe(set);
    // The decoded set itself is untouched by the atomic reading.
    expect(set.has([f('spec'), f('tolerations')])).toBe(false);
  });
});
