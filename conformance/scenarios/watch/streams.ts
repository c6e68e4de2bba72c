/**
 * Watch rules that need a program rather than a fixed script: resuming after a disconnect without
 * gaps or duplicates, many concurrent writers, initial events followed by the live stream, and a watch
 * held open across a series of writes.
 */
import type { CodeScenarioDefinition } from '../../load.js';
import type { Json, ScenarioContext, WatchEvent } from '../../types.js';
import { isObject } from '../../json.js';

function isEvent(e: WatchEvent | Json | undefined): e is WatchEvent {
  return typeof e === 'object' && e !== null && !Array.isArray(e) && typeof e.type === 'string' && 'object' in e;
}

/** Name and resourceVersion of an event's object, or of an object. */
function meta(e: WatchEvent | Json | undefined): { name: string; resourceVersion: string } {
  const obj: Json | undefined = isEvent(e) ? e.object : e;
  const m = isObject(obj) && isObject(obj.metadata) ? obj.metadata : {};
  return {
    name: typeof m.name === 'string' ? m.name : '',
    resourceVersion: typeof m.resourceVersion === 'string' ? m.resourceVersion : '',
  };
}

function describeEvents(events: readonly WatchEvent[]): string {
  return events.map((e) => `${e.type} ${meta(e).name}@${meta(e).resourceVersion}`).join(', ');
}

async function create(ctx: ScenarioContext, name: string): Promise<string> {
  const res = await ctx.request('POST', ctx.collection(), { body: ctx.sample(name), step: `create ${name}` });
  ctx.check(res, { status: [200, 201] }, `create ${name}`);
  return meta(res.json).resourceVersion;
}

async function update(ctx: ScenarioContext, name: string, rv: string, value: string): Promise<string> {
  const res = await ctx.request('PUT', `${ctx.collection()}/${name}`, {
    body: ctx.sample(name, { metadata: { resourceVersion: rv, annotations: { value } } }),
    step: `update ${name}`,
  });
  ctx.check(res, { status: [200] }, `update ${name}`);
  return meta(res.json).resourceVersion;
}

async function listVersion(ctx: ScenarioContext): Promise<string> {
  const res = await ctx.request('GET', ctx.collection(), { query: { labelSelector: ctx.sub('${scenarioLabel}') }, step: 'list' });
  ctx.check(res, { status: [200] }, 'list');
  const m = isObject(res.json) && isObject(res.json.metadata) ? res.json.metadata : {};
  return typeof m.resourceVersion === 'string' ? m.resourceVersion : ctx.fail('list: no metadata.resourceVersion');
}

function selector(ctx: ScenarioContext, extra: Record<string, Json> = {}): Record<string, Json> {
  return { labelSelector: ctx.sub('${scenarioLabel}'), ...extra };
}

export const scenarios: CodeScenarioDefinition[] = [
  {
    id: 'core/watch/resume-without-gaps',
    rule: ['core-protocol.md#Watch procedure: 3', 'core-protocol.md#Watch procedure: 2'],
    description:
      'A watch closed after some events and resumed from the last received resourceVersion delivers exactly the changes made meanwhile: no gap, no duplicate.',
    resource: ['configmaps', 'nodes', 'crontabs'],
    async run(ctx) {
      const n = ctx.sub('${n}');
      const start = await listVersion(ctx);
      const first = await ctx.watch(ctx.collection(), { query: selector(ctx, { resourceVersion: start }), step: 'watch 1' });
      const rvA = await create(ctx, `${n}-a`);
      await create(ctx, `${n}-b`);
      const got = await first.waitFor(2, ctx.settings.watchTimeoutMs);
      first.close();
      if (got.length < 2) ctx.fail(`first watch: expected 2 events, received ${got.length}: ${describeEvents(got)}`);
      const last = meta(got[got.length - 1]).resourceVersion;
      // Changes while no watch is open.
      await update(ctx, `${n}-a`, rvA, 'changed-while-disconnected');
      await create(ctx, `${n}-c`);
      const del = await ctx.request('DELETE', `${ctx.collection()}/${n}-b`, { step: 'delete b' });
      ctx.check(del, { status: [200, 202] }, 'delete b');
      const second = await ctx.watch(ctx.collection(), { query: selector(ctx, { resourceVersion: last }), step: 'watch 2 (resume)' });
      const resumed = await second.waitFor(3, ctx.settings.watchTimeoutMs);
      const extra = await second.waitFor(4, 700);
      second.close();
      const expected = [
        ['MODIFIED', `${n}-a`],
        ['ADDED', `${n}-c`],
        ['DELETED', `${n}-b`],
      ];
      if (extra.length !== 3 || resumed.length !== 3)
        ctx.fail(
          `resumed watch: expected exactly 3 events (MODIFIED a, ADDED c, DELETED b), received ${extra.length}: ${describeEvents(extra)}`,
        );
      expected.forEach(([type, name], i) => {
        const e = extra[i];
        if (e?.type !== type || meta(e).name !== name)
          ctx.fail(`resumed watch: event ${i} should be ${type} ${name}, received ${describeEvents(extra)}`);
      });
    },
  },
  {
    id: 'core/watch/concurrent-writes-no-gaps',
    rule: ['core-protocol.md#Watch procedure: 2', 'core-protocol.md#Events: notifications'],
    description:
      "Twenty objects created and updated by concurrent writers: a watch from before the writes delivers every write exactly once, each object's events in write order.",
    resource: ['configmaps', 'crontabs'],
    async run(ctx) {
      const n = ctx.sub('${n}');
      const start = await listVersion(ctx);
      const watch = await ctx.watch(ctx.collection(), { query: selector(ctx, { resourceVersion: start }), step: 'watch' });
      const writes = new Map<string, string[]>();
      await Promise.all(
        Array.from({ length: 20 }, async (_, i) => {
          const name = `${n}-w${i}`;
          const rv1 = await create(ctx, name);
          const rv2 = await update(ctx, name, rv1, 'second');
          writes.set(name, [rv1, rv2]);
        }),
      );
      const events = await watch.waitFor(40, 15_000);
      const extra = await watch.waitFor(41, 700);
      watch.close();
      if (extra.length !== 40) ctx.fail(`expected 40 events for 40 writes, received ${extra.length}`);
      const seen = new Set<string>();
      for (const e of events) {
        const m = meta(e);
        const key = `${m.name}@${m.resourceVersion}`;
        if (seen.has(key)) ctx.fail(`duplicate event ${e.type} ${key}`);
        seen.add(key);
      }
      for (const [name, [rv1, rv2]] of writes) {
        const mine = events.filter((e) => meta(e).name === name);
        const got = mine.map((e) => `${e.type}@${meta(e).resourceVersion}`).join(', ');
        if (
          mine.length !== 2 ||
          mine[0]?.type !== 'ADDED' ||
          meta(mine[0]).resourceVersion !== rv1 ||
          mine[1]?.type !== 'MODIFIED' ||
          meta(mine[1]).resourceVersion !== rv2
        ) {
          ctx.fail(`${name}: expected ADDED@${rv1}, MODIFIED@${rv2}; received ${got || 'nothing'}`);
        }
      }
    },
  },
  {
    id: 'core/watch/initial-events-then-live-stream',
    rule: ['core-protocol.md#Watch procedure: 6', 'core-protocol.md#Watch procedure: 5'],
    description:
      'With sendInitialEvents and bookmarks: ADDED for the existing objects, a BOOKMARK carrying only a resourceVersion, then changes made after the bookmark arrive as normal events.',
    needs: ['send-initial-events', 'watch-bookmarks'],
    resource: ['configmaps', 'nodes', 'crontabs'],
    async run(ctx) {
      const n = ctx.sub('${n}');
      await create(ctx, `${n}-a`);
      await create(ctx, `${n}-b`);
      const watch = await ctx.watch(ctx.collection(), {
        query: selector(ctx, { sendInitialEvents: 'true', resourceVersionMatch: 'NotOlderThan', allowWatchBookmarks: 'true' }),
        step: 'watch with initial events',
      });
      const initial = await watch.waitFor(3, ctx.settings.watchTimeoutMs);
      const names = initial
        .slice(0, 2)
        .filter((e) => e.type === 'ADDED')
        .map((e) => meta(e).name)
        .sort();
      if (names.join() !== [`${n}-a`, `${n}-b`].join())
        ctx.fail(`initial events: expected ADDED a and b first, received ${describeEvents(initial)}`);
      const bookmark = initial[2];
      if (bookmark?.type !== 'BOOKMARK')
        return ctx.fail(`expected a BOOKMARK after the initial events, received ${describeEvents(initial)}`);
      const obj = bookmark.object;
      const m = isObject(obj) && isObject(obj.metadata) ? obj.metadata : {};
      if (typeof m.resourceVersion !== 'string' || m.resourceVersion === '') ctx.fail('BOOKMARK: metadata.resourceVersion missing');
      if (m.name !== undefined || m.uid !== undefined)
        ctx.fail(`BOOKMARK must carry only metadata.resourceVersion, found ${JSON.stringify(m)}`);
      if (isObject(obj) && obj.kind !== undefined && obj.kind !== ctx.resource?.kind)
        ctx.fail(`BOOKMARK object kind ${String(obj.kind)}, expected ${ctx.resource?.kind ?? ''}`);
      await create(ctx, `${n}-c`);
      const after = (await watch.waitFor(4, ctx.settings.watchTimeoutMs, [])).filter((e) => e.type !== 'BOOKMARK');
      watch.close();
      const live = after.slice(2);
      if (live.length !== 1 || live[0]?.type !== 'ADDED' || meta(live[0]).name !== `${n}-c`)
        ctx.fail(`after the bookmark: expected ADDED c, received ${describeEvents(live)}`);
    },
  },
  {
    id: 'core/watch/bookmarks-carry-only-resource-version',
    rule: ['core-protocol.md#Watch procedure: 5', 'core-protocol.md#Query parameters: allowWatchBookmarks'],
    description:
      'With allowWatchBookmarks a watch held open for several seconds may receive BOOKMARKs; every one carries only metadata.resourceVersion in an object of the requested kind, and normal events still arrive.',
    needs: ['watch-bookmarks'],
    tags: ['slow'],
    resource: ['configmaps'],
    async run(ctx) {
      const n = ctx.sub('${n}');
      const start = await listVersion(ctx);
      const watch = await ctx.watch(ctx.collection(), {
        query: selector(ctx, { resourceVersion: start, allowWatchBookmarks: 'true' }),
        step: 'watch',
      });
      await create(ctx, `${n}-a`);
      await ctx.sleep(4000);
      await create(ctx, `${n}-b`);
      await watch.waitFor(2, ctx.settings.watchTimeoutMs, ['BOOKMARK']);
      watch.close();
      const normal = watch.events.filter((e) => e.type !== 'BOOKMARK');
      if (normal.map((e) => `${e.type} ${meta(e).name}`).join() !== `ADDED ${n}-a,ADDED ${n}-b`)
        ctx.fail(`expected ADDED a, ADDED b; received ${describeEvents(normal)}`);
      for (const b of watch.events.filter((e) => e.type === 'BOOKMARK')) {
        const obj = b.object;
        const m = isObject(obj) && isObject(obj.metadata) ? obj.metadata : {};
        if (typeof m.resourceVersion !== 'string' || m.name !== undefined)
          ctx.fail(`BOOKMARK must carry only metadata.resourceVersion: ${JSON.stringify(obj)}`);
        if (isObject(obj) && obj.kind !== undefined && obj.kind !== 'ConfigMap')
          ctx.fail(`BOOKMARK object is not of the requested kind: ${JSON.stringify(obj)}`);
      }
    },
  },
  {
    id: 'core/watch/long-watch-follows-writes',
    rule: ['core-protocol.md#What the service does: 4', 'core-protocol.md#Events: MODIFIED'],
    description:
      'A watch held open for eight seconds while an object is updated every second delivers each update, in order, as it happens.',
    tags: ['slow'],
    resource: ['configmaps', 'nodes'],
    async run(ctx) {
      const n = ctx.sub('${n}');
      let rv = await create(ctx, `${n}-a`);
      const watch = await ctx.watch(ctx.collection(), { query: selector(ctx, { resourceVersion: rv }), step: 'watch' });
      const written: string[] = [];
      for (let i = 1; i <= 8; i++) {
        await ctx.sleep(1000);
        rv = await update(ctx, `${n}-a`, rv, `v${i}`);
        written.push(rv);
        const got = await watch.waitFor(i, 3000);
        if (got.length < i) ctx.fail(`update ${i}: its event did not arrive within 3 s (received ${describeEvents(got)})`);
      }
      watch.close();
      const versions = watch.events.map((e) => meta(e).resourceVersion);
      if (versions.join() !== written.join())
        ctx.fail(`expected MODIFIED events at ${written.join(', ')}; received ${describeEvents(watch.events)}`);
    },
  },
];
