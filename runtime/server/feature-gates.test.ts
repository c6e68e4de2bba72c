/** The server honours its feature gates: WatchList (alpha, off by default) and APIResponseCompression (beta, on). */
import { afterEach, describe, expect, it } from 'vitest';
import { parseFeatureGates } from '../features/index.js';
import { type Harness, crontabs, expectStatus, qs, startServer } from './server.testing.js';

const running: Harness[] = [];
afterEach(async () => {
  for (const h of running.splice(0)) await h.close();
});

async function start(featureGates: string | undefined): Promise<Harness> {
  const h = await startServer({ server: { featureGates: featureGates === undefined ? undefined : parseFeatureGates(featureGates).gates } });
  running.push(h);
  return h;
}

const INITIAL_EVENTS = { watch: 1, sendInitialEvents: 'true', resourceVersionMatch: 'NotOlderThan', allowWatchBookmarks: 'true' };

describe('feature gates in the server', () => {
  it('refuses sendInitialEvents under WatchList=false, and with the gate at its 1.30 default (alpha, off)', async () => {
    for (const gates of ['WatchList=false', '']) {
      const h = await start(gates);
      await h.createCronTab('a');
      const res = await h.get(`${crontabs(h.ns)}${qs(INITIAL_EVENTS)}`);
      expectStatus(res, 422, 'Invalid');
      expect(res.body.message).toBe(
        'ListOptions.meta.svc.io "" is invalid: sendInitialEvents: Forbidden: sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled',
      );
      expect(res.body.details?.causes).toEqual([
        {
          reason: 'FieldValueForbidden',
          message: 'Forbidden: sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled',
          field: 'sendInitialEvents',
        },
      ]);
      // Every cause at once, as upstream's ListOptions validation.
      const both = await h.get(`${crontabs(h.ns)}${qs({ watch: 1, sendInitialEvents: 'true' })}`);
      expectStatus(both, 422, 'Invalid');
      expect(both.body.details.causes.map((c: { field: string }) => c.field)).toEqual(['resourceVersionMatch', 'sendInitialEvents']);
      // A watch without it is unaffected.
      const plain = await h.watch(`${crontabs(h.ns)}${qs({ watch: 1, resourceVersion: '0' })}`);
      expect((await plain.take(1))[0]?.type).toBe('ADDED');
      plain.close();
    }
  });

  it('sends the initial events under WatchList=true', async () => {
    const h = await start('WatchList=true');
    await h.createCronTab('a');
    const w = await h.watch(`${crontabs(h.ns)}${qs(INITIAL_EVENTS)}`);
    expect((await w.take(2)).map((e: { type: string }) => e.type)).toEqual(['ADDED', 'BOOKMARK']);
    w.close();
  });

  it('compresses large lists unless APIResponseCompression=false', async () => {
    for (const [gates, encoding] of [
      ['', 'gzip'],
      ['APIResponseCompression=false', undefined],
    ] as const) {
      const h = await start(gates);
      const configMaps = `/api/v1/namespaces/${h.ns}/configmaps`;
      for (let i = 0; i < 30; i++) await h.create(configMaps, { metadata: { name: `c${i}` }, data: { big: 'x'.repeat(5000) } });
      const res = await h.get(configMaps).set('accept-encoding', 'gzip');
      expect(res.status).toBe(200);
      expect(res.headers['content-encoding']).toBe(encoding);
    }
  });
});
