import { describe, expect, it } from 'vitest';
import { PodSchema, ProbeSchema } from '../../generated/core/v1/index.js';
import { deref, type ObjectSchema } from './index.js';

/** The generated descriptors are what the runtime reads; spot-check them against the schemas. */
describe('generated schema descriptors', () => {
  const field = (o: ObjectSchema, name: string) => o.fields.find((f) => f.name === name)!;

  it('carry merge markers through references', () => {
    const spec = deref(field(PodSchema, 'spec').schema) as ObjectSchema;
    const containers = field(spec, 'containers');
    expect(containers).toMatchObject({ required: true, patchStrategy: 'merge', patchMergeKey: 'name' });
    expect(containers.schema).toMatchObject({ type: 'list', listType: 'map', listMapKeys: ['name'] });
    const container = deref((containers.schema as { items: ObjectSchema }).items) as ObjectSchema;
    expect(field(container, 'ports').schema).toMatchObject({ listMapKeys: ['containerPort', 'protocol'] });
    const meta = deref(field(PodSchema, 'metadata').schema) as ObjectSchema;
    expect(field(meta, 'finalizers').schema).toMatchObject({ type: 'list', listType: 'set' });
  });

  it('carry Protobuf numbers, with embedded structs nested at their own number', () => {
    expect(field(PodSchema, 'metadata').proto).toBe(1);
    expect(field(PodSchema, 'spec').proto).toBe(2);
    expect(field(ProbeSchema, 'exec').embeddedProto).toBe(1);
    expect(field(ProbeSchema, 'initialDelaySeconds').proto).toBe(2);
  });
});
