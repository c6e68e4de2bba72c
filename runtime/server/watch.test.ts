import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { allProtobufPackages } from '../../generated/protobuf.js';
import { MEDIA_PROTOBUF, ProtobufCodecs, WatchFrameReader } from '../codec/index.js';
import { INITIAL_EVENTS_END } from './watch.js';
import {
  CRONTABS,
  type Harness,
  type Json,
  type WatchEvent,
  type WatchReader,
  crontab,
  crontabs,
  expectStatus,
  qs,
  startServer,
} from './server.testing.js';

let h: Harness;
const open: WatchReader[] = [];
beforeEach(async () => {
  h = await startServer();
});
afterEach(async () => {
  for (const w of open.splice(0)) w.close();
  await h.close();
});

async function watch(params: Record<string, string | number | boolean | undefined>, path = crontabs(h.ns)): Promise<WatchReader> {
  const w = await h.watch(`${path}${qs({ watch: 1, ...params })}`);
  open.push(w);
  return w;
}

const summary = (events: WatchEvent[]) => events.map((e) => `${e.type} ${e.object.metadata?.name ?? ''}`.trim());
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('the event stream', () => {
  it('is a chunked 200 response of JSON lines: ADDED, MODIFIED, DELETED in order with the object', async () => {
    const start = await h.currentRv();
    const w = await watch({ resourceVersion: start });
    expect(w.status).toBe(200);
    expect(w.res.headers['transfer-encoding']).toBe('chunked');
    expect(w.res.headers['content-type']).toBe('application/json');
    const created = await h.createCronTab('a');
    const patched = (await h.patch(crontab(h.ns, 'a'), { spec: { image: 'next' } })).body;
    await h.delete(crontab(h.ns, 'a'));
    const events = await w.take(3);
    expect(events.map((e) => e.type)).toEqual(['ADDED', 'MODIFIED', 'DELETED']);
    expect(events[0]!.object).toEqual(created);
    expect(events[1]!.object).toEqual(patched);
    expect(events[2]!.object.kind).toBe('CronTab');
    expect(events[2]!.object.spec.image).toBe('next');
    expect(Number(events[2]!.object.metadata.resourceVersion)).toBe(Number(patched.metadata.resourceVersion) + 1);
  });

  it('accepts watch=true and a bare watch flag', async () => {
    const start = await h.currentRv();
    const a = await h.watch(`${crontabs(h.ns)}?watch=true&resourceVersion=${start}`);
    const b = await h.watch(`${crontabs(h.ns)}?watch&resourceVersion=${start}`);
    open.push(a, b);
    await h.createCronTab('a');
    expect((await a.next()).type).toBe('ADDED');
    expect((await b.next()).type).toBe('ADDED');
  });

  it('only reports its own collection: other namespaces and kinds are not in it; the all-namespaces watch sees both', async () => {
    await h.createNamespace('other');
    const start = await h.currentRv();
    const mine = await watch({ resourceVersion: start });
    const all = await watch({ resourceVersion: start }, `${CRONTABS}/crontabs`);
    await h.createCronTab('x', {}, 'other');
    await h.create(`/api/v1/namespaces/${h.ns}/services`, { metadata: { name: 'svc' }, spec: { ports: [{ port: 80 }] } });
    await h.createCronTab('y');
    expect(summary([await mine.next()])).toEqual(['ADDED y']);
    expect(summary(await all.take(2))).toEqual(['ADDED x', 'ADDED y']);
    await mine.quiet(100);
  });
});

describe('where a watch starts', () => {
  it('resourceVersion unset: synthetic ADDED for every object at the most recent version, then changes', async () => {
    await h.createCronTab('a');
    const b = await h.createCronTab('b');
    await h.patch(crontab(h.ns, 'a'), { metadata: { labels: { v: '2' } } });
    const current = await h.read(crontab(h.ns, 'a'));
    const w = await watch({});
    const initial = await w.take(2);
    expect(initial).toEqual([
      { type: 'ADDED', object: current },
      { type: 'ADDED', object: b },
    ]);
    await h.createCronTab('c');
    expect(summary([await w.next()])).toEqual(['ADDED c']);
  });

  it('resourceVersion "0": synthetic ADDED events too', async () => {
    await h.createCronTab('a');
    await h.createCronTab('b');
    const w = await watch({ resourceVersion: '0' });
    expect(summary(await w.take(2))).toEqual(['ADDED a', 'ADDED b']);
    await h.delete(crontab(h.ns, 'a'));
    expect(summary([await w.next()])).toEqual(['DELETED a']);
  });

  it('an exact resourceVersion: no synthetic events, only what happened after it', async () => {
    await h.createCronTab('a');
    const rv = await h.currentRv();
    await h.createCronTab('b');
    const w = await watch({ resourceVersion: rv });
    expect(summary([await w.next()])).toEqual(['ADDED b']);
    await w.quiet(100);
    const now = await watch({ resourceVersion: await h.currentRv() });
    await now.quiet(100);
  });

  it('resumes from the last received resourceVersion without gaps or duplicates', async () => {
    const start = await h.currentRv();
    const first = await watch({ resourceVersion: start });
    await h.createCronTab('a');
    await h.createCronTab('b');
    const seen = await first.take(2);
    first.close();
    // Changes while disconnected.
    await h.patch(crontab(h.ns, 'a'), { metadata: { labels: { x: '1' } } });
    await h.createCronTab('c');
    await h.delete(crontab(h.ns, 'b'));
    const last = seen[1]!.object.metadata.resourceVersion;
    const second = await watch({ resourceVersion: last });
    await h.createCronTab('d');
    const rest = await second.take(4);
    expect(summary(rest)).toEqual(['MODIFIED a', 'ADDED c', 'DELETED b', 'ADDED d']);
    const versions = [...seen, ...rest].map((e) => Number(e.object.metadata.resourceVersion));
    expect(versions).toEqual([...versions].sort((x, y) => x - y));
    expect(new Set(versions).size).toBe(versions.length);
    await second.quiet(100);
  });

  it('a start version older than the history: an ERROR event carrying a 410 Expired Status, then the end', async () => {
    const a = await h.createCronTab('a');
    await h.createCronTab('b');
    await h.expireHistory();
    const w = await watch({ resourceVersion: a.metadata.resourceVersion });
    expect(w.status).toBe(200);
    const events = await w.rest();
    expect(events).toHaveLength(1);
    expect(events[0]!.type).toBe('ERROR');
    expect(events[0]!.object).toMatchObject({ kind: 'Status', apiVersion: 'v1', status: 'Failure', code: 410, reason: 'Expired' });
    expect(events[0]!.object.message).toMatch(new RegExp(`^too old resource version: ${a.metadata.resourceVersion} \\(\\d+\\)$`));
  });

  it('a start version the server has not reached: waits, then ends with an ERROR carrying 504', async () => {
    const rv = Number(await h.currentRv());
    const w = await watch({ resourceVersion: rv + 10 });
    const events = await w.rest();
    expect(events.map((e) => e.type)).toEqual(['ERROR']);
    expect(events[0]!.object).toMatchObject({ kind: 'Status', code: 504, reason: 'Timeout' });
    expect(events[0]!.object.message).toContain('Too large resource version');
  });

  it('a malformed resourceVersion is 400 before any stream', async () => {
    expectStatus(await h.get(`${crontabs(h.ns)}?watch=1&resourceVersion=x1`), 400, 'BadRequest');
  });
});

describe('bookmarks', () => {
  it('with allowWatchBookmarks: BOOKMARK events carry only metadata.resourceVersion, in an object of the watched kind', async () => {
    await h.createCronTab('a');
    const rv = await h.currentRv();
    const w = await watch({ resourceVersion: rv, allowWatchBookmarks: true });
    const bookmark = await w.next();
    expect(bookmark).toEqual({
      type: 'BOOKMARK',
      object: { kind: 'CronTab', apiVersion: 'stable.example.svc.io/v1', metadata: { resourceVersion: rv } },
    });
    const created = await h.createCronTab('b');
    expect(await w.nextChange()).toEqual({ type: 'ADDED', object: created });
    // Later bookmarks carry the version of what was sent.
    const next = await w.next();
    expect(next.type).toBe('BOOKMARK');
    expect(next.object.metadata.resourceVersion).toBe(created.metadata.resourceVersion);
  });

  it("carry the store's revision, not the watch's last event's, from the first one: resuming from it after the history window is no 410", async () => {
    const start = await h.currentRv();
    // Writes to another resource move the store on; the watched collection stays quiet.
    for (const name of ['s1', 's2', 's3']) await h.create(`/api/v1/namespaces/${h.ns}/configmaps`, { metadata: { name } });
    const current = await h.currentRv();
    const w = await watch({ resourceVersion: start, allowWatchBookmarks: true });
    const bookmark = await w.next();
    expect(bookmark.type).toBe('BOOKMARK');
    expect(bookmark.object.metadata.resourceVersion).toBe(current);
    w.close();
    await h.expireHistory();
    const resumed = await watch({ resourceVersion: bookmark.object.metadata.resourceVersion });
    await h.createCronTab('a');
    expect(summary([await resumed.next()])).toEqual(['ADDED a']);
  });

  it('without allowWatchBookmarks: none', async () => {
    const w = await watch({ resourceVersion: await h.currentRv() });
    await sleep(200);
    expect(w.pending()).toEqual([]);
  });
});

describe('sendInitialEvents', () => {
  it('with NotOlderThan and bookmarks: ADDED for every object, then a BOOKMARK annotated as the end of initial events, then changes', async () => {
    await h.createCronTab('a');
    await h.createCronTab('b');
    const rv = await h.currentRv();
    const w = await watch({ sendInitialEvents: true, resourceVersionMatch: 'NotOlderThan', allowWatchBookmarks: true });
    const [a, b, end] = await w.take(3);
    expect(summary([a!, b!])).toEqual(['ADDED a', 'ADDED b']);
    expect(end).toEqual({
      type: 'BOOKMARK',
      object: {
        kind: 'CronTab',
        apiVersion: 'stable.example.svc.io/v1',
        metadata: { resourceVersion: rv, annotations: { [INITIAL_EVENTS_END]: 'true' } },
      },
    });
    expect(INITIAL_EVENTS_END).toBe('svc.io/initial-events-end');
    await h.createCronTab('c');
    expect(summary([await w.nextChange()])).toEqual(['ADDED c']);
  });

  it('with a resourceVersion: the end bookmark is at least that version', async () => {
    const a = await h.createCronTab('a');
    await h.createCronTab('b');
    const w = await watch({
      sendInitialEvents: true,
      resourceVersionMatch: 'NotOlderThan',
      resourceVersion: a.metadata.resourceVersion,
      allowWatchBookmarks: true,
    });
    const events = await w.take(3);
    expect(summary(events.slice(0, 2))).toEqual(['ADDED a', 'ADDED b']);
    expect(events[2]!.type).toBe('BOOKMARK');
    expect(events[2]!.object.metadata.annotations).toEqual({ [INITIAL_EVENTS_END]: 'true' });
    expect(Number(events[2]!.object.metadata.resourceVersion)).toBeGreaterThanOrEqual(Number(a.metadata.resourceVersion));
  });

  it('with a resourceVersion the server has not reached: never claims to be synced before it', async () => {
    await h.createCronTab('a');
    const ahead = Number(await h.currentRv()) + 5;
    const w = await watch({
      sendInitialEvents: true,
      resourceVersionMatch: 'NotOlderThan',
      resourceVersion: ahead,
      allowWatchBookmarks: true,
    });
    const events = await w.rest();
    const ends = events.filter((e) => e.type === 'BOOKMARK' && e.object.metadata.annotations?.[INITIAL_EVENTS_END]);
    for (const e of ends) expect(Number(e.object.metadata.resourceVersion)).toBeGreaterThanOrEqual(ahead);
    expect(events.at(-1)).toMatchObject({ type: 'ERROR', object: { code: 504, reason: 'Timeout' } });
  });

  it('sendInitialEvents=false: no initial events', async () => {
    await h.createCronTab('a');
    const w = await watch({ sendInitialEvents: false, resourceVersionMatch: 'NotOlderThan' });
    await w.quiet(100);
    await h.createCronTab('b');
    expect(summary([await w.nextChange()])).toEqual(['ADDED b']);
  });

  it('requires resourceVersionMatch=NotOlderThan, and resourceVersionMatch needs sendInitialEvents on a watch: 422 on ListOptions as upstream', async () => {
    const rv = await h.currentRv();
    const causes = async (params: Record<string, string | number | boolean>) =>
      expectStatus(await h.get(`${crontabs(h.ns)}${qs({ watch: 1, ...params })}`), 422, 'Invalid').details.causes.map(
        (c: { field: string; message: string }) => `${c.field}: ${c.message}`,
      );
    expect(await causes({ sendInitialEvents: true })).toEqual([
      'resourceVersionMatch: Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan',
    ]);
    expect(await causes({ sendInitialEvents: true, resourceVersion: rv, resourceVersionMatch: 'Exact' })).toEqual([
      'resourceVersionMatch: Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan',
      'resourceVersionMatch: Unsupported value: "Exact": supported values: "NotOlderThan"',
    ]);
    expect(await causes({ resourceVersion: rv, resourceVersionMatch: 'NotOlderThan' })).toEqual([
      'resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided',
    ]);
  });
});

describe('timeoutSeconds', () => {
  it('ends the stream after the given time', async () => {
    const started = Date.now();
    const w = await watch({ resourceVersion: await h.currentRv(), timeoutSeconds: 1 });
    expect(await w.rest(3000)).toEqual([]);
    const took = Date.now() - started;
    expect(took).toBeGreaterThanOrEqual(900);
    expect(took).toBeLessThan(2500);
  });

  it('timeoutSeconds=0 means the default: the stream stays open', async () => {
    const w = await watch({ resourceVersion: await h.currentRv(), timeoutSeconds: 0 });
    await sleep(150);
    expect(w.ended).toBe(false);
    await h.createCronTab('a');
    expect(summary([await w.next()])).toEqual(['ADDED a']);
  });
});

describe('selectors on watch', () => {
  it('label selector: an object that starts matching is ADDED, one that stops matching is DELETED, others are not sent', async () => {
    await h.createCronTab('a', { labels: { app: 'x' } });
    await h.createCronTab('b', { labels: { app: 'y' } });
    const w = await watch({ labelSelector: 'app=x' });
    expect(summary([await w.next()])).toEqual(['ADDED a']);
    await h.patch(crontab(h.ns, 'b'), { spec: { image: 'ignored' } });
    await h.patch(crontab(h.ns, 'b'), { metadata: { labels: { app: 'x' } } });
    const stop = await h.patch(crontab(h.ns, 'a'), { metadata: { labels: { app: 'z' } } });
    await h.patch(crontab(h.ns, 'a'), { spec: { image: 'ignored-too' } });
    await h.createCronTab('c', { labels: { app: 'x' } });
    const events = await w.take(3);
    expect(summary(events)).toEqual(['ADDED b', 'DELETED a', 'ADDED c']);
    // The DELETED event carries the last state that matched, at the version of the change.
    expect(events[1]!.object.metadata.labels).toEqual({ app: 'x' });
    expect(events[1]!.object.metadata.resourceVersion).toBe(stop.body.metadata.resourceVersion);
    await w.quiet(100);
  });

  it('field selector on metadata.name', async () => {
    const w = await watch({ resourceVersion: await h.currentRv(), fieldSelector: 'metadata.name=b' });
    await h.createCronTab('a');
    await h.createCronTab('b');
    await h.delete(crontab(h.ns, 'a'));
    await h.delete(crontab(h.ns, 'b'));
    expect(summary(await w.take(2))).toEqual(['ADDED b', 'DELETED b']);
    await w.quiet(100);
  });

  it('field selector on metadata.namespace across all namespaces', async () => {
    await h.createNamespace('other');
    const w = await watch({ resourceVersion: await h.currentRv(), fieldSelector: 'metadata.namespace=other' }, `${CRONTABS}/crontabs`);
    await h.createCronTab('a');
    await h.createCronTab('b', {}, 'other');
    const [event] = await w.take(1);
    expect(event!.object.metadata).toMatchObject({ name: 'b', namespace: 'other' });
    await w.quiet(100);
  });

  it('an unsupported field or a malformed selector is 400 before any stream', async () => {
    expectStatus(await h.get(`${crontabs(h.ns)}${qs({ watch: 1, fieldSelector: 'spec.image=x' })}`), 400, 'BadRequest');
    expectStatus(await h.get(`${crontabs(h.ns)}${qs({ watch: 1, labelSelector: 'a in (' })}`), 400, 'BadRequest');
  });
});

describe('one store event, many watchers', () => {
  it('each encoding gets its own bytes: JSON, Protobuf, another version, Table, and label selectors that see it arrive or leave', async () => {
    const s = await startServer({ createNamespace: false, server: { protobufPackages: allProtobufPackages } });
    try {
      const rv = await s.currentRv();
      const path = (version: string, params: Record<string, string> = {}) =>
        `${s.url}${FC}/${version}/prioritylevelconfigurations${qs({ watch: 1, resourceVersion: rv, timeoutSeconds: 1, ...params })}`;
      const open = (url: string, accept = 'application/json') => fetch(url, { headers: { accept } });
      const [json1, json2, proto, beta, table, leaving, arriving] = await Promise.all([
        open(path('v1')),
        open(path('v1')),
        open(path('v1'), `${MEDIA_PROTOBUF};stream=watch`),
        open(path('v1beta3')),
        open(path('v1'), 'application/json;as=Table;g=meta.svc.io;v=v1'),
        open(path('v1', { labelSelector: 'tier=a' })),
        open(path('v1', { labelSelector: 'tier=b' })),
      ]);
      const created = await s.create(`${FC}/v1/prioritylevelconfigurations`, priorityLevel('p', 'a', 0));
      const updated = (
        await s
          .put(`${FC}/v1/prioritylevelconfigurations/p`, { ...created, metadata: { ...created.metadata, labels: { tier: 'b' } } })
          .expect(200)
      ).body as Json;

      const lines = async (res: Response) =>
        (await res.text())
          .trim()
          .split('\n')
          .map((l) => JSON.parse(l) as WatchEvent);
      const v1 = [
        { type: 'ADDED', object: created },
        { type: 'MODIFIED', object: updated },
      ];
      expect(await lines(json1)).toEqual(v1);
      expect(await lines(json2)).toEqual(v1);

      const frames = new WatchFrameReader().push(new Uint8Array(await proto!.arrayBuffer()));
      const decoded = frames.map((f) => codecs.decodeWatchEvent(f) as { type: string; object: Json });
      expect(decoded.map((e) => [e.type, e.object.apiVersion, e.object.metadata.labels, e.object.metadata.resourceVersion])).toEqual([
        ['ADDED', 'flowcontrol.apiserver.svc.io/v1', { tier: 'a' }, created.metadata.resourceVersion],
        ['MODIFIED', 'flowcontrol.apiserver.svc.io/v1', { tier: 'b' }, updated.metadata.resourceVersion],
      ]);

      const betaEvents = await lines(beta!);
      expect(betaEvents.map((e) => [e.type, e.object.apiVersion, e.object.metadata.labels])).toEqual([
        ['ADDED', 'flowcontrol.apiserver.svc.io/v1beta3', { tier: 'a' }],
        ['MODIFIED', 'flowcontrol.apiserver.svc.io/v1beta3', { tier: 'b' }],
      ]);
      expect(Object.keys(betaEvents[0]!.object.metadata.annotations ?? {})).toContain(PRESERVE_ZERO);

      const tableEvents = await lines(table!);
      expect(tableEvents.map((e) => [e.type, e.object.kind, e.object.rows?.[0]?.cells?.[0]])).toEqual([
        ['ADDED', 'Table', 'p'],
        ['MODIFIED', 'Table', 'p'],
      ]);

      // The last state that matched, at the version of the change (upstream's cacher).
      expect(await lines(leaving!)).toEqual([
        { type: 'ADDED', object: created },
        { type: 'DELETED', object: { ...created, metadata: { ...created.metadata, resourceVersion: updated.metadata.resourceVersion } } },
      ]);
      expect(await lines(arriving!)).toEqual([{ type: 'ADDED', object: updated }]);
    } finally {
      await s.close();
    }
  });
});

const FC = '/apis/flowcontrol.apiserver.svc.io';
const PRESERVE_ZERO = 'flowcontrol.svc.io/v1beta3-preserve-zero-concurrency-shares';
const codecs = new ProtobufCodecs(allProtobufPackages);

function priorityLevel(name: string, tier: string, shares: number) {
  return {
    apiVersion: 'flowcontrol.apiserver.svc.io/v1',
    kind: 'PriorityLevelConfiguration',
    metadata: { name, labels: { tier } },
    spec: { type: 'Limited', limited: { nominalConcurrencyShares: shares, limitResponse: { type: 'Reject' } } },
  };
}
