import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningServer, startReferenceServer } from '../reference-server.js';
import { CRDS, createEstablished, jsonCaller, until } from './definitions.testing.js';

/**
 * A definition's kinds are built in memory: replacing its schema leaves nothing behind (code
 * generated and imported at run time stayed loaded for the life of the process).
 */
let server: RunningServer;
beforeAll(async () => {
  server = await startReferenceServer({ store: 'memory' });
});
afterAll(() => server.close());

const call = jsonCaller(() => server.url);
const group = 'memory.example.io';
const name = `gadgets.${group}`;

/** Version `size` of the definition: the schema changes with every update. */
function versions(size: number) {
  const properties = { size: { type: 'integer', maximum: size }, label: { type: 'string', maxLength: size + 10, default: `l${size}` } };
  const schema = { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties } } } };
  return [{ name: 'v1', served: true, storage: true, schema }];
}

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

function heapAfterGc(): number {
  for (let i = 0; i < 3; i++) gc();
  return process.memoryUsage().heapUsed;
}

describe('a definition updated many times', () => {
  it('leaves the heap flat over 1,000 schema updates, and serves the last schema', async () => {
    const definition = {
      apiVersion: 'apiextensions.svc.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name },
      spec: { group, scope: 'Cluster', names: { plural: 'gadgets', singular: 'gadget', kind: 'Gadget' }, versions: versions(1) },
    };
    await createEstablished(call, definition);
    const update = async (size: number) => {
      const res = await call('PATCH', `${CRDS}/${name}`, { spec: { versions: versions(size) } }, 'application/merge-patch+json');
      expect(res.status, JSON.stringify(res.body)).toBe(200);
    };
    for (let size = 2; size <= 50; size++) await update(size); // warm: every code path has run
    const before = heapAfterGc();
    for (let size = 51; size <= 1050; size++) await update(size);
    // The registrar has applied the last update: the default it serves is the last schema's.
    const made = await until(
      async () => {
        await call('DELETE', `/apis/${group}/v1/gadgets/g`);
        return call('POST', `/apis/${group}/v1/gadgets`, { apiVersion: `${group}/v1`, kind: 'Gadget', metadata: { name: 'g' }, spec: {} });
      },
      (res) => res.body?.spec?.label === 'l1050',
      'the last schema served',
    );
    expect(made.status).toBe(201);
    const growth = heapAfterGc() - before;
    expect(growth).toBeLessThan(30 * 1024 * 1024);
  }, 300_000);
});
