import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createStore } from '../store/index.js';
import { type Harness, NAMESPACES, crontab, crontabs, expectStatus, names, qs, startServer } from './server.testing.js';

let dir: string;
let file: string;
const running: Harness[] = [];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'svckit-restart-'));
  file = join(dir, 'data.db');
});
afterEach(async () => {
  for (const h of running.splice(0)) await h.close();
  rmSync(dir, { recursive: true, force: true });
});

async function start(first: boolean): Promise<Harness> {
  const store = await createStore(`sqlite:${file}`, { compactionIntervalMs: 0 });
  const h = await startServer({ store, createNamespace: first });
  running.push(h);
  return h;
}

async function stop(h: Harness): Promise<void> {
  running.splice(running.indexOf(h), 1);
  await h.close();
}

describe('restart on the same SQLite file', () => {
  it('keeps every acknowledged object and continues the revision sequence', async () => {
    const before = await start(true);
    await before.createCronTab('a', { labels: { v: '1' } });
    await before.createCronTab('b');
    await before.createCronTab('c');
    const patched = await before.patch(crontab('test', 'a'), { metadata: { labels: { v: '2' } } });
    expect(patched.status).toBe(200);
    expect((await before.delete(crontab('test', 'c'))).status).toBe(200);
    const listBefore = await before.read(crontabs('test'));
    const lastRv = await before.currentRv();
    await stop(before);

    const after = await start(false);
    const listAfter = await after.read(crontabs('test'));
    expect(listAfter).toEqual(listBefore);
    expect(names(listAfter)).toEqual(['a', 'b']);
    expect(listAfter.items[0].metadata.labels).toEqual({ v: '2' });
    expect(await after.read(`${NAMESPACES}/test`)).toMatchObject({ metadata: { name: 'test' } });
    expectStatus(await after.get(crontab('test', 'c')), 404, 'NotFound');

    expect(await after.currentRv()).toBe(lastRv);
    const next = await after.createCronTab('d');
    expect(next.metadata.resourceVersion).toBe(String(Number(lastRv) + 1));
    // Names stay unique across the restart.
    expectStatus(
      await after.post(crontabs('test'), { metadata: { name: 'a' }, spec: { cronSpec: '* * * * *', image: 'i' } }),
      409,
      'AlreadyExists',
    );
  });

  it('serves the history written before the restart to a watch that resumes', async () => {
    const before = await start(true);
    const a = await before.createCronTab('a');
    await before.createCronTab('b');
    await before.delete(crontab('test', 'a'));
    await stop(before);

    const after = await start(false);
    const w = await after.watch(`${crontabs('test')}${qs({ watch: 1, resourceVersion: a.metadata.resourceVersion })}`);
    await after.createCronTab('c');
    const events = await w.take(3);
    expect(events.map((e) => `${e.type} ${e.object.metadata.name}`)).toEqual(['ADDED b', 'DELETED a', 'ADDED c']);
    w.close();
  });

  // server.ts signs continue tokens with a random secret per process, so a restart turns every
  // outstanding token into a 400 (a client error clients do not retry). Upstream's tokens survive
  // a restart; at worst a client should get 410 Expired, which pagers answer by relisting.
  it('a continue token issued before the restart still pages, or is 410 Expired (server.ts)', async () => {
    const before = await start(true);
    await before.createCronTab('a');
    await before.createCronTab('b');
    const first = await before.read(`${crontabs('test')}${qs({ limit: 1 })}`);
    await stop(before);
    const after = await start(false);
    const res = await after.get(`${crontabs('test')}${qs({ limit: 1, continue: first.metadata.continue })}`);
    expect([200, 410]).toContain(res.status);
  });

  it('finishes the deletion of a namespace that was terminating when the server stopped', async () => {
    const before = await start(true);
    await before.createCronTab('held', { metadata: { finalizers: ['example.svc.io/hold'] } });
    await before.delete(`${NAMESPACES}/test`);
    await before.server.context.hooks.idle();
    await stop(before);

    const after = await start(false);
    expect((await after.read(`${NAMESPACES}/test`)).status.phase).toBe('Terminating');
    expect((await after.patch(crontab('test', 'held'), { metadata: { finalizers: null } })).status).toBe(200);
    await after.server.context.hooks.idle();
    expectStatus(await after.get(`${NAMESPACES}/test`), 404, 'NotFound');
  });
});
