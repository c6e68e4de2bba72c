import { describe, expect, it } from 'vitest';
import { openApiDocuments } from '../../generated/openapi.js';

type Json = any;

/** What kubectl reads in the OpenAPI v3 documents (client-go openapi3, cli-runtime's query param verifier, apply's patcher). */
describe('the generated OpenAPI v3 documents', () => {
  it('declare fieldValidation on every PATCH, PUT and POST, so kubectl validates on the server', async () => {
    for (const [path, load] of Object.entries(openApiDocuments)) {
      const doc = (await load()) as Json;
      for (const [url, item] of Object.entries(doc.paths as Record<string, Json>)) {
        for (const method of ['patch', 'put', 'post']) {
          const op = item[method];
          if (!op) continue;
          const where = `${path} ${method} ${url}`;
          expect(op.parameters, where).toContainEqual(expect.objectContaining({ name: 'fieldValidation', in: 'query' }));
          expect(op['x-kubernetes-group-version-kind'], where).toBeDefined();
        }
      }
    }
  });

  it('list strategic merge among the patch types of built-in kinds only, and every body and response names a schema', async () => {
    const core = (await openApiDocuments['api/v1']!()) as Json;
    const patch = core.paths['/api/v1/namespaces/{namespace}/configmaps/{name}'].patch;
    expect(Object.keys(patch.requestBody.content)).toEqual([
      'application/apply-patch+yaml',
      'application/json-patch+json',
      'application/merge-patch+json',
      'application/strategic-merge-patch+json',
    ]);
    expect(Object.keys(patch.responses['200'].content)).toContain('application/vnd.svc.protobuf');
    const list = core.paths['/api/v1/namespaces/{namespace}/configmaps'].get;
    expect(list.responses['200'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/core.v1.ConfigMapList' });
    expect(list.parameters.map((p: Json) => p.name)).toContain('watch');

    const custom = (await openApiDocuments['apis/stable.example.svc.io/v1']!()) as Json;
    const ct = custom.paths['/apis/stable.example.svc.io/v1/namespaces/{namespace}/crontabs/{name}'].patch;
    expect(Object.keys(ct.requestBody.content)).not.toContain('application/strategic-merge-patch+json');
    expect(Object.keys(ct.responses['200'].content)).not.toContain('application/vnd.svc.protobuf');

    for (const doc of [core, custom]) {
      const refs = JSON.stringify(doc).match(/#\/components\/schemas\/[^"]+/g) ?? [];
      for (const ref of new Set(refs)) expect(doc.components.schemas, ref).toHaveProperty([ref.slice('#/components/schemas/'.length)]);
    }
  });
});
