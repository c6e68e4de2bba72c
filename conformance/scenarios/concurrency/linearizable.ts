/**
 * Optimistic concurrency under load, judged by a linearizability check rather than by a script:
 * several clients read and conditionally update (PUT with the resourceVersion they last saw) a few
 * objects at once; the recorded history of each object must have one order, consistent with real
 * time, in which every read saw the last write and every 409 met a version that had moved on
 * (conformance/linearizability.ts). A watch opened before the first write must then deliver the
 * successful writes of each object in that order, once each, and a watch resumed from any
 * delivered version must deliver exactly the rest.
 */
import { type Operation, type RegisterInput, type RegisterOutput, checkLinearizable, registerModel } from '../../linearizability.js';
import type { CodeScenarioDefinition } from '../../load.js';
import type { Json, ScenarioContext, WatchEvent } from '../../types.js';

const OBJECTS = 3;
const CLIENTS = 6;
const OPERATIONS_PER_CLIENT = 16;
// The kit's own prefix (as its labels), so that --group-suffix leaves it as written.
const VALUE_ANNOTATION = 'conformance.svckit/value';

type Op = Operation<RegisterInput, RegisterOutput>;

function isObject(v: Json | undefined): v is { [key: string]: Json } {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** resourceVersion and the value annotation of an object. */
function versionAndValue(obj: Json | undefined): { version: string; value: string } {
  const m = isObject(obj) && isObject(obj.metadata) ? obj.metadata : {};
  const annotations = isObject(m.annotations) ? m.annotations : {};
  return {
    version: typeof m.resourceVersion === 'string' ? m.resourceVersion : '',
    value: typeof annotations[VALUE_ANNOTATION] === 'string' ? annotations[VALUE_ANNOTATION] : '',
  };
}

function nameOf(obj: Json | undefined): string {
  return isObject(obj) && isObject(obj.metadata) && typeof obj.metadata.name === 'string' ? obj.metadata.name : '';
}

/** A small deterministic generator, so that a failing run can be replayed. */
function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 0x1_0000_0000;
  };
}

async function client(
  ctx: ScenarioContext,
  id: number,
  names: string[],
  initial: Map<string, string>,
  histories: Map<string, Op[]>,
): Promise<void> {
  const next = random(id * 7919 + 17);
  const lastSeen = new Map(initial);
  for (let i = 0; i < OPERATIONS_PER_CLIENT; i++) {
    const name = names[Math.floor(next() * names.length)]!;
    const path = `${ctx.collection()}/${name}`;
    const call = performance.now();
    if (next() < 0.4) {
      const res = await ctx.request('GET', path, { step: `client ${id} read ${name}` });
      const ret = performance.now();
      ctx.check(res, { status: [200] }, `client ${id} read ${name}`);
      const seen = versionAndValue(res.json);
      lastSeen.set(name, seen.version);
      histories.get(name)!.push({ call, ret, input: { op: 'read' }, output: seen });
      continue;
    }
    const value = `c${id}-${i}`;
    const expectedVersion = lastSeen.get(name)!;
    const res = await ctx.request('PUT', path, {
      body: ctx.sample(name, { metadata: { resourceVersion: expectedVersion, annotations: { [VALUE_ANNOTATION]: value } } }),
      step: `client ${id} update ${name}`,
    });
    const ret = performance.now();
    if (res.status === 409) {
      histories.get(name)!.push({ call, ret, input: { op: 'write', expectedVersion, value }, output: { conflict: true } });
      // Read again before the next write, as a controller would.
      const again = await ctx.request('GET', path, { step: `client ${id} re-read ${name}` });
      const at = performance.now();
      ctx.check(again, { status: [200] }, `client ${id} re-read ${name}`);
      const seen = versionAndValue(again.json);
      lastSeen.set(name, seen.version);
      histories.get(name)!.push({ call: ret, ret: at, input: { op: 'read' }, output: seen });
      continue;
    }
    ctx.check(res, { status: [200] }, `client ${id} update ${name}`);
    const written = versionAndValue(res.json);
    lastSeen.set(name, written.version);
    histories.get(name)!.push({ call, ret, input: { op: 'write', expectedVersion, value }, output: written });
  }
}

/** The successful writes of one object in the order their versions chain from the created version. */
function writeChain(created: string, history: Op[], name: string, ctx: ScenarioContext): { version: string; value: string }[] {
  const byExpected = new Map<string, { version: string; value: string }>();
  for (const op of history) {
    if (op.input.op !== 'write' || op.output === undefined || 'conflict' in op.output) continue;
    if (byExpected.has(op.input.expectedVersion))
      ctx.fail(`${name}: two updates succeeded from resourceVersion ${op.input.expectedVersion} (a lost update)`);
    byExpected.set(op.input.expectedVersion, op.output);
  }
  const chain: { version: string; value: string }[] = [];
  for (let v = created, w = byExpected.get(v); w; v = w.version, w = byExpected.get(v)) chain.push(w);
  if (chain.length !== byExpected.size)
    ctx.fail(`${name}: ${byExpected.size} updates succeeded but only ${chain.length} chain from the created version ${created}`);
  return chain;
}

function describe(events: readonly { version: string; value: string }[]): string {
  return events.map((e) => `${e.value}@${e.version}`).join(', ');
}

export const scenarios: CodeScenarioDefinition[] = [
  {
    id: 'core/concurrency/linearizable-updates',
    rule: ['core-protocol.md#Update rules: 1', 'core-protocol.md#Errors: 409', 'core-protocol.md#Verbs: update'],
    description: `${CLIENTS} clients read and conditionally update ${OBJECTS} objects at once; every object's history is linearizable (reads see the last write, a 409 only when the version moved on, no lost update).`,
    resource: ['configmaps', 'crontabs'],
    tags: ['slow'],
    async run(ctx) {
      const n = ctx.sub('${n}');
      const names = Array.from({ length: OBJECTS }, (_, i) => `${n}-lin-${i}`);
      const initial = new Map<string, string>();
      const histories = new Map<string, Op[]>();
      // Versions are opaque: the watch starts at a list's version, taken before the first create.
      const list = await ctx.request('GET', ctx.collection(), { query: { labelSelector: ctx.sub('${scenarioLabel}') }, step: 'list' });
      ctx.check(list, { status: [200] }, 'list');
      const start =
        isObject(list.json) && isObject(list.json.metadata) && typeof list.json.metadata.resourceVersion === 'string'
          ? list.json.metadata.resourceVersion
          : ctx.fail('list: no metadata.resourceVersion');
      const watch = await ctx.watch(ctx.collection(), {
        query: { labelSelector: ctx.sub('${scenarioLabel}'), resourceVersion: start },
        step: 'watch from before the writes',
      });
      for (const name of names) {
        const res = await ctx.request('POST', ctx.collection(), {
          body: ctx.sample(name, { metadata: { annotations: { [VALUE_ANNOTATION]: 'initial' } } }),
          step: `create ${name}`,
        });
        ctx.check(res, { status: [200, 201] }, `create ${name}`);
        initial.set(name, versionAndValue(res.json).version);
        histories.set(name, []);
      }

      await Promise.all(Array.from({ length: CLIENTS }, (_, id) => client(ctx, id, names, initial, histories)));

      const chains = new Map<string, { version: string; value: string }[]>();
      for (const name of names) {
        const history = histories.get(name)!;
        const result = checkLinearizable(registerModel({ version: initial.get(name)!, value: 'initial' }), history);
        if (!result.linearizable) {
          const shown = history
            .map(
              (op, i) => `#${i} [${op.call.toFixed(1)}, ${op.ret.toFixed(1)}] ${JSON.stringify(op.input)} -> ${JSON.stringify(op.output)}`,
            )
            .join('\n');
          ctx.fail(
            `${name}: the history of ${history.length} operations is not linearizable; the longest valid prefix is #${(result.longestPrefix ?? []).join(', #')}:\n${shown}`,
          );
        }
        chains.set(name, writeChain(initial.get(name)!, history, name, ctx));
      }

      const expected = [...chains.values()].reduce((sum, c) => sum + c.length, 0);
      // The creates, then every successful update.
      const events = await watch.waitFor(expected + OBJECTS, ctx.settings.watchTimeoutMs);
      watch.close();
      const modified = events.filter((e): e is WatchEvent => e.type === 'MODIFIED');
      for (const name of names) {
        const seen = modified.filter((e) => nameOf(e.object) === name).map((e) => versionAndValue(e.object));
        const chain = chains.get(name)!;
        if (describe(seen) !== describe(chain))
          ctx.fail(`${name}: the watch delivered ${describe(seen) || 'nothing'}; the successful updates in order were ${describe(chain)}`);
      }

      // Resuming from any delivered version gives exactly the rest of the stream.
      const all = modified.map((e) => ({ name: nameOf(e.object), ...versionAndValue(e.object) }));
      const from = all[Math.floor(all.length / 2)];
      if (from) {
        const rest = all.slice(all.indexOf(from) + 1);
        const resumed = await ctx.watch(ctx.collection(), {
          query: { labelSelector: ctx.sub('${scenarioLabel}'), resourceVersion: from.version },
          step: `resume from ${from.version}`,
        });
        const got = (await resumed.waitFor(rest.length, ctx.settings.watchTimeoutMs))
          .filter((e): e is WatchEvent => e.type === 'MODIFIED')
          .map((e) => ({ name: nameOf(e.object), ...versionAndValue(e.object) }));
        const extra = await resumed.waitFor(rest.length + 1, 500);
        resumed.close();
        const text = (xs: { name: string; version: string; value: string }[]) =>
          xs.map((x) => `${x.name}:${x.value}@${x.version}`).join(', ');
        if (text(got) !== text(rest) || extra.length > got.length)
          ctx.fail(`resumed from ${from.version}: expected ${text(rest)}; got ${text(got)}${extra.length > got.length ? ' and more' : ''}`);
      }
    },
  },
];
