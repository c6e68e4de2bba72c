import { afterEach, describe, expect, it } from 'vitest';
import { openApiDocuments } from '../../generated/openapi.js';
import { type Harness, startServer } from './server.testing.js';

let h: Harness | undefined;
afterEach(() => h?.close());

/** The group/versions discovery lists, as OpenAPI documents are keyed (`api/v1`, `apis/<group>/<version>`). */
async function discoveredPaths(server: Harness): Promise<string[]> {
  const core = (await server.read('/api')).versions as string[];
  const groups = (await server.read('/apis')).groups as { versions: { groupVersion: string }[] }[];
  return [...core.map((v) => `api/${v}`), ...groups.flatMap((g) => g.versions.map((v) => `apis/${v.groupVersion}`))].sort();
}

describe('/openapi/v3 publishes what discovery serves', () => {
  it('lists exactly the served group/versions: none of the spec that the release does not serve', async () => {
    h = await startServer({ createNamespace: false, server: { openApiDocuments } });
    const index = (await h.read('/openapi/v3')).paths as Record<string, unknown>;
    expect(Object.keys(index).sort()).toEqual(await discoveredPaths(h));
    // The spec describes batch/v1beta1 (CronJob), which a 1.30 server no longer serves.
    expect(Object.keys(openApiDocuments)).toContain('apis/batch/v1beta1');
    expect((await h.get('/openapi/v3/apis/batch/v1beta1')).status).toBe(404);
  });

  it('follows --runtime-config', async () => {
    h = await startServer({ createNamespace: false, server: { openApiDocuments, runtimeConfig: 'batch/v1=false' } });
    const index = (await h.read('/openapi/v3')).paths as Record<string, unknown>;
    expect(Object.keys(index)).not.toContain('apis/batch/v1');
    expect(Object.keys(index).sort()).toEqual(await discoveredPaths(h));
    expect((await h.get('/openapi/v3/apis/batch/v1')).status).toBe(404);
    expect((await h.get('/openapi/v3/apis/apps/v1')).status).toBe(200);
  });
});

describe('/openapi/v2', () => {
  it('is one Swagger 2.0 document of the served group/versions, named as upstream names them', async () => {
    h = await startServer({ createNamespace: false, server: { openApiDocuments } });
    const doc = (await h.read('/openapi/v2')) as {
      swagger: string;
      info: { title: string; version: string };
      definitions: Record<
        string,
        {
          properties?: Record<string, { $ref?: string; description?: string; type?: string; format?: string }>;
          'x-kubernetes-group-version-kind'?: unknown;
        }
      >;
      paths: Record<
        string,
        Record<
          string,
          {
            'x-kubernetes-action'?: string;
            'x-kubernetes-group-version-kind'?: unknown;
            parameters?: { in: string; schema?: { $ref?: string }; type?: string; name: string }[];
          }
        >
      >;
    };
    expect(doc.swagger).toBe('2.0');
    expect(doc.info).toEqual({ title: 'Kubernetes', version: 'v1.30.0-svckit' });
    const deployment = doc.definitions['io.k8s.api.apps.v1.Deployment']!;
    expect(deployment['x-kubernetes-group-version-kind']).toEqual([{ group: 'apps', version: 'v1', kind: 'Deployment' }]);
    expect(deployment.properties!.metadata).toMatchObject({
      $ref: '#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta',
      description: expect.any(String),
    });
    expect(deployment.properties!.spec!.$ref).toBe('#/definitions/io.k8s.api.apps.v1.DeploymentSpec');
    expect(doc.definitions['io.k8s.api.apps.v1.RollingUpdateDeployment']!.properties!.maxSurge).toMatchObject({
      type: 'string',
      format: 'int-or-string',
    });
    // Every reference resolves, and no v3 construct is left.
    const text = JSON.stringify(doc);
    for (const [, name] of text.matchAll(/"#\/definitions\/([^"]+)"/g)) expect(doc.definitions, name).toHaveProperty([name!]);
    expect(text).not.toMatch(/#\/components\/|"requestBody"|"anyOf"|"nullable"/);
    // Only what discovery serves: no batch/v1beta1.
    expect(Object.keys(doc.paths).some((p) => p.startsWith('/apis/batch/v1beta1/'))).toBe(false);
    const put = doc.paths['/apis/apps/v1/namespaces/{namespace}/deployments/{name}']!.put!;
    expect(put['x-kubernetes-action']).toBe('put');
    expect(put['x-kubernetes-group-version-kind']).toEqual({ group: 'apps', version: 'v1', kind: 'Deployment' });
    expect(put.parameters).toContainEqual({
      name: 'body',
      in: 'body',
      required: true,
      schema: { $ref: '#/definitions/io.k8s.api.apps.v1.Deployment' },
    });
    expect(put.parameters).toContainEqual(expect.objectContaining({ name: 'dryRun', in: 'query', type: 'string' }));
  });

  it("answers client-go's Protobuf type (gnostic's Document) with upstream's content type", async () => {
    h = await startServer({ createNamespace: false, server: { openApiDocuments } });
    const res = await h
      .get('/openapi/v2')
      .set('Accept', 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf')
      .buffer(true)
      .parse((r, done) => {
        const chunks: Buffer[] = [];
        r.on('data', (c: Buffer) => chunks.push(c));
        r.on('end', () => done(null, Buffer.concat(chunks)));
      });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/com.github.proto-openapi.spec.v2.v1.0+protobuf');
    const bytes = res.body as Buffer;
    // Field 1 (swagger, length-delimited): "2.0".
    expect([...bytes.subarray(0, 5)]).toEqual([0x0a, 3, ...Buffer.from('2.0')]);
    const text = bytes.toString('latin1');
    expect(text).toContain('io.k8s.api.apps.v1.Deployment');
    expect(text).toContain('x-kubernetes-group-version-kind');
    expect(text).toContain('[{"group":"apps","version":"v1","kind":"Deployment"}]');
  });
});
