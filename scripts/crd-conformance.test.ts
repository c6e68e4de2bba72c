import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runConformanceCli } from '../conformance/index.js';
import { allKinds } from '../generated/kinds.js';
import { openApiDocuments } from '../generated/openapi.js';
import { crdsFromFlags } from './commands/serve-crds.js';
import { type RunningServer, startReferenceServer } from '../reference/index.js';

/**
 * The kit's CronTab scenarios against a server that was NOT built with the CronTab kind: the
 * CronTab comes from its CustomResourceDefinition, created through the API at start (`--crds`).
 * The custom-resource behaviour the kit checks (CEL rules, apply, pruning, selectors, watches)
 * then runs on kinds compiled at run time.
 */
const ROOT = new URL('../', import.meta.url).pathname;
const CRONTAB_GROUP = 'stable.example.svc.io';

let server: RunningServer;
beforeAll(async () => {
  const documents = Object.fromEntries(Object.entries(openApiDocuments).filter(([key]) => !key.includes(CRONTAB_GROUP)));
  server = await startReferenceServer({
    store: 'memory',
    // As the kit's in-process server: its watch scenarios use sendInitialEvents (alpha in 1.30).
    featureGates: 'WatchList=true',
    project: { kinds: allKinds.filter((k) => k.group !== CRONTAB_GROUP), openApiDocuments: documents },
    ...(await crdsFromFlags({ crds: [join(ROOT, 'schemas/stable.example.svc.io/crontabs.yaml')] })),
  });
}, 60_000);
afterAll(() => server.close());

describe('conformance scenarios on a CronTab defined at run time', () => {
  it('the server did not start with CronTab: it is served from the stored definition', async () => {
    expect(allKinds.some((k) => k.group === CRONTAB_GROUP)).toBe(true);
    const crd = (await (
      await fetch(`${server.url}/apis/apiextensions.svc.io/v1/customresourcedefinitions/crontabs.${CRONTAB_GROUP}`)
    ).json()) as {
      status: { conditions: { type: string; status: string }[] };
    };
    expect(crd.status.conditions.find((c) => c.type === 'Established')?.status).toBe('True');
  });

  it('passes every CronTab scenario of the kit', async () => {
    let out = '';
    let err = '';
    const code = await runConformanceCli(
      ['--server', server.url, '--focus', '**[crontabs]', '--without', 'webhooks', '--without', 'authz'],
      { stdout: (t: string) => void (out += t), stderr: { write: (t: string) => void (err += t) } as never },
    );
    const closing = out.trim().split('\n').at(-1) ?? '';
    expect(code, `${out.slice(-4000)}\n${err.slice(-2000)}`).toBe(0);
    expect(closing).toMatch(/^[1-9]\d* passed, 0 failed/);
  }, 180_000);
});
