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
