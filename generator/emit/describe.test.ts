import { describe, expect, it } from 'vitest';
import { loadSchemas } from '../load/index.js';
import { describeModel } from './describe.js';

const CRDS = new URL('../testdata/crds/traffic.example.io_routepolicies.yaml', import.meta.url).pathname;

type Node = { type: string; typeName?: string; fields?: { name: string; schema: Node & { ref?: () => Node } }[] };

describe('describeModel', () => {
  const model = loadSchemas({ inputs: [CRDS] });
  const metadataOf = (schema: unknown) => (schema as Node).fields!.find((f) => f.name === 'metadata')!.schema;

  it('resolves references to external group/versions through the caller, others to its own descriptors', () => {
    const objectMeta = { type: 'object', typeName: 'theirs', fields: [] };
    const described = describeModel(model, { external: (id) => (id.name === 'ObjectMeta' ? objectMeta : undefined) });
    const policy = described.kinds.find((k) => k.kind === 'RoutePolicy')!;
    expect(metadataOf(policy.schema).ref!()).toBe(objectMeta);
    const list = described.kinds.find((k) => k.kind === 'RoutePolicyList')!;
    const items = (list.schema as Node).fields!.find((f) => f.name === 'items')!.schema as unknown as { items: { ref: () => unknown } };
    expect(items.items.ref()).toBe(policy.schema);
  });

  it('without a resolver, describes the external types from the model', () => {
    const { kinds } = describeModel(model);
    expect(metadataOf(kinds[0]!.schema).ref!()).toMatchObject({ type: 'object', typeName: 'meta.svc.io.v1.ObjectMeta' });
  });

  it('builds each OpenAPI document on first use, once', () => {
    const { openApiDocuments } = describeModel(model);
    expect(Object.keys(openApiDocuments)).toEqual(['apis/traffic.example.io/v1']);
    const doc = openApiDocuments['apis/traffic.example.io/v1']!();
    expect(Object.keys(doc.components.schemas)).toContain('traffic.example.io.v1.RoutePolicy');
    expect(openApiDocuments['apis/traffic.example.io/v1']!()).toBe(doc);
  });
});
