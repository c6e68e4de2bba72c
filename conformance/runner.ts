/**
 * Runs scenarios against one server: filters them, learns what the server serves from discovery,
 * runs the untagged ones in parallel and the serial ones alone, each in namespaces of its own, and
 * removes what the run created even when scenarios fail.
 */
import { randomBytes } from 'node:crypto';
import { isExpectationFailed, isScenarioSkipped } from './errors.js';
import { codeContext, type ExecutionEnv, runYamlSteps, sleep, StepError } from './execute.js';
import { matchesAny, matchesGlob } from './glob.js';
import { rewriteDeep, rewriteGroupSuffix } from './group-suffix.js';
import type { HttpClient } from './http.js';
import { isKnownFailing, type KnownFailing, unusedPatterns } from './known-failing.js';
import { apiVersionOf, collectionPath, groupVersionPath, servesKey } from './resources.js';
import type { RuleCatalogue } from './rules.js';
import { CreatedObjects, Session } from './session.js';
import type { Feature, Json, Outcome, RunSettings, Scenario, ScenarioResult, Tag } from './types.js';
import type { Vars } from './vars.js';
import { isObject } from './json.js';
import { probeFeatures } from './probes.js';

export interface RunOptions {
  client: HttpClient;
  scenarios: Scenario[];
  rules?: RuleCatalogue;
  parallel?: number;
  focus?: string[];
  skip?: string[];
  /** `slow` keeps only slow scenarios, `!slow` leaves them out; several positive tags mean any of them. */
  tags?: string[];
  knownFailing?: KnownFailing;
  /** Features the server offers; a scenario needing another is skipped. */
  features: ReadonlySet<Feature>;
  historyWindowMs?: number;
  continueTtlMs?: number;
  groupSuffix?: string;
  watchTimeoutMs?: number;
  /** The kit's webhook that webhook scenarios register with the server. */
  webhook?: { url: string; caBundle: string };
  /** A scenario that runs longer fails. */
  scenarioTimeoutMs?: number;
  /** Fixed prefix for tests; random otherwise. */
  prefix?: string;
  onResult?: (result: ScenarioResult, done: number, total: number) => void;
  signal?: AbortSignal;
}

export interface RunSummary {
  passed: number;
  failed: number;
  skipped: number;
  knownFailing: number;
}

export interface RunReport {
  server: string;
  prefix: string;
  startedAt: string;
  millis: number;
  results: ScenarioResult[];
  summary: RunSummary;
  /** Paths the cleanup could not remove. */
  leftovers: string[];
}

export const RUN_LABEL_KEY = 'conformance.svckit/run';
/** Every `$sample` object also carries its scenario's label, so lists and watches can select exactly it. */
export const SCENARIO_LABEL_KEY = 'conformance.svckit/scenario';
/** A value large enough that a list of a few objects passes any compression threshold (the real system's is 128 KiB). */
const FILLER_64K = 'svckit-conformance-filler-'.repeat(2521).slice(0, 65536);

export function areaOf(id: string): string {
  return id.split('/').slice(0, 2).join('/');
}

export function newPrefix(): string {
  return `svckit-conf-${randomBytes(4).toString('hex').slice(0, 6)}-`;
}

/** The tag filter of `--tags`. */
export function tagFilter(tags: readonly string[] | undefined): (scenarioTags: readonly Tag[]) => boolean {
  const items = (tags ?? [])
    .flatMap((t) => t.split(','))
    .map((t) => t.trim())
    .filter(Boolean);
  const include = items.filter((t) => !t.startsWith('!'));
  const exclude = items.filter((t) => t.startsWith('!')).map((t) => t.slice(1));
  return (scenarioTags) => {
    if (exclude.some((t) => scenarioTags.includes(t as Tag))) return false;
    return include.length === 0 || include.some((t) => scenarioTags.includes(t as Tag));
  };
}

export function selectScenarios(scenarios: Scenario[], o: Pick<RunOptions, 'focus' | 'skip' | 'tags'>): Scenario[] {
  const byTags = tagFilter(o.tags);
  return scenarios.filter(
    (s) => (!o.focus?.length || matchesAny(s.id, o.focus)) && !(o.skip?.length && matchesAny(s.id, o.skip)) && byTags(s.tags),
  );
}

/**
 * The --focus and --skip patterns that match none of the scenarios (connect's tryMatchPatterns):
 * a misspelt pattern would otherwise run nothing, or skip nothing, and still pass.
 */
export function unmatchedFilters(
  scenarios: readonly Scenario[],
  o: Pick<RunOptions, 'focus' | 'skip'>,
): { flag: 'focus' | 'skip'; pattern: string }[] {
  const ids = scenarios.map((s) => s.id);
  const unmatched = (flag: 'focus' | 'skip', patterns: readonly string[] = []) =>
    patterns.filter((p) => !ids.some((id) => matchesGlob(id, p))).map((pattern) => ({ flag, pattern }));
  return [...unmatched('focus', o.focus), ...unmatched('skip', o.skip)];
}

/**
 * What the server serves, from discovery: `group/version/resource` keys. Undefined when discovery
 * itself does not answer, so a broken discovery fails scenarios instead of skipping them.
 */
export async function discoverServed(client: HttpClient, groupVersions: Iterable<string>): Promise<Set<string> | undefined> {
  const served = new Set<string>();
  const read = async (path: string): Promise<Json | undefined> => {
    try {
      const res = await client.send('GET', path);
      return res.status === 200 ? res.json : undefined;
    } catch {
      return undefined;
    }
  };
  const addResources = (gv: string, doc: Json | undefined): void => {
    if (isObject(doc) && Array.isArray(doc.resources)) {
      for (const r of doc.resources) if (isObject(r) && typeof r.name === 'string') served.add(`${gv}/${r.name}`);
    }
  };
  const groups = await read('/apis');
  if (groups === undefined) return undefined;
  const listed = new Set<string>();
  if (isObject(groups) && Array.isArray(groups.groups)) {
    for (const g of groups.groups) {
      if (isObject(g) && Array.isArray(g.versions)) {
        for (const v of g.versions) if (isObject(v) && typeof v.groupVersion === 'string') listed.add(v.groupVersion);
      }
    }
  }
  addResources('v1', await read('/api/v1'));
  for (const gv of new Set(groupVersions)) {
    if (gv === 'v1' || !listed.has(gv)) continue;
    addResources(gv, await read(`/apis/${gv}`));
  }
  return served;
}

/** Why a scenario cannot run on this server, or undefined when it can. */
function skipReason(
  s: Scenario,
  o: RunOptions,
  served: Set<string> | undefined,
  probed: ReadonlyMap<Feature, string>,
  suffix: string,
): string | undefined {
  const missing = s.needs.filter((f) => !o.features.has(f));
  if (missing.length) return `the server does not offer ${missing.join(', ')} (--without)`;
  const detected = s.needs.filter((f) => probed.has(f));
  if (detected.length) return detected.map((f) => `the server does not offer ${f}: ${probed.get(f)}`).join('; ');
  if (served) {
    const keys = [...s.serves, ...(s.resource ? [servesKey(s.resource)] : [])].map((k) => rewriteGroupSuffix(k, suffix));
    const absent = keys.filter((k) => !served.has(k));
    if (absent.length) return `the server does not serve ${absent.join(', ')} (per discovery)`;
  }
  if (s.kind === 'yaml') {
    for (const step of s.steps) {
      if (step.kind !== 'wait') continue;
      if (step.for === 'history-window' && o.historyWindowMs === undefined)
        return "the server's history window is unknown: pass --history-window";
      if (step.for === 'continue-ttl' && o.continueTtlMs === undefined)
        return "the server's continue-token lifetime is unknown: pass --continue-ttl";
    }
  } else if (s.tags.includes('needs-history-expiry') && (o.historyWindowMs === undefined || o.continueTtlMs === undefined)) {
    return "the server's history window and continue-token lifetime are unknown: pass --history-window and --continue-ttl";
  }
  return undefined;
}

function baseResult(s: Scenario, rules: RuleCatalogue | undefined): Omit<ScenarioResult, 'outcome' | 'trace' | 'millis'> {
  return {
    id: s.id,
    area: areaOf(s.id),
    rules: s.rules,
    ruleTexts: s.rules.map((r) => rules?.get(r)?.text ?? ''),
    tags: s.tags,
    file: s.file,
  };
}

class Run {
  readonly created = new CreatedObjects();
  readonly namespaces: string[] = [];
  readonly options: RunOptions;
  readonly prefix: string;
  readonly suffix: string;
  readonly runLabel: Record<string, string>;
  readonly settings: RunSettings;

  constructor(o: RunOptions) {
    this.options = o;
    this.prefix = o.prefix ?? newPrefix();
    this.suffix = o.groupSuffix ?? 'svc.io';
    this.runLabel = { [RUN_LABEL_KEY]: this.prefix.replace(/-$/, '') };
    this.settings = {
      groupSuffix: this.suffix,
      watchTimeoutMs: o.watchTimeoutMs ?? 5000,
      ...(o.historyWindowMs !== undefined ? { historyWindowMs: o.historyWindowMs } : {}),
      ...(o.continueTtlMs !== undefined ? { continueTtlMs: o.continueTtlMs } : {}),
      ...(o.webhook ? { webhook: o.webhook } : {}),
    };
  }

  session(): Session {
    return new Session({ client: this.options.client, prefix: this.prefix, groupSuffix: this.suffix, created: this.created });
  }

  async createNamespace(session: Session, name: string): Promise<void> {
    const res = await session.request('POST', '/api/v1/namespaces', {
      body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels: this.runLabel } },
      step: 'setup: namespace',
    });
    if (res.status !== 200 && res.status !== 201) {
      throw new Error(`setup: could not create namespace ${name}: status ${res.status} ${res.text.slice(0, 200)}`);
    }
    this.namespaces.push(name);
  }

  vars(s: Scenario, index: number): Vars {
    const vars: Vars = new Map();
    vars.set('prefix', this.prefix);
    vars.set('n', `${this.prefix}s${index}`);
    // The scenario's restricted user (`as: restricted`): a name no other scenario grants anything to.
    vars.set('user', `${this.prefix}s${index}-user`);
    vars.set('runLabel', `${RUN_LABEL_KEY}=${this.prefix.replace(/-$/, '')}`);
    vars.set('runLabelKey', RUN_LABEL_KEY);
    vars.set('runLabelValue', this.prefix.replace(/-$/, ''));
    vars.set('groupSuffix', this.suffix);
    vars.set('scenarioLabel', `${SCENARIO_LABEL_KEY}=${this.prefix}s${index}`);
    vars.set('scenarioLabelKey', SCENARIO_LABEL_KEY);
    vars.set('filler64k', FILLER_64K);
    if (this.settings.historyWindowMs !== undefined) vars.set('historyWindowSeconds', Math.ceil(this.settings.historyWindowMs / 1000));
    const r = s.resource ? rewriteDeep(s.resource, this.suffix) : undefined;
    if (r) {
      vars.set('r.group', r.group);
      vars.set('r.version', r.version);
      vars.set('r.apiVersion', apiVersionOf(r));
      vars.set('r.kind', r.kind);
      vars.set('r.listKind', `${r.kind}List`);
      vars.set('r.plural', r.plural);
      vars.set('r.namespaced', r.namespaced);
      vars.set('r.groupVersionPath', groupVersionPath(r));
      vars.set('r.allCollection', collectionPath(r));
      // The sample's fields as JSON members without braces, for bodies written as raw text.
      vars.set('r.sampleFields', JSON.stringify(r.sample).slice(1, -1));
    }
    return vars;
  }

  async runOne(s: Scenario, index: number): Promise<ScenarioResult> {
    const started = Date.now();
    const session = this.session();
    const vars = this.vars(s, index);
    const resource = s.resource ? rewriteDeep(s.resource, this.suffix) : undefined;
    const finish = (outcome: Outcome, message?: string, step?: string): ScenarioResult => ({
      ...baseResult(s, this.options.rules),
      outcome,
      ...(message !== undefined ? { message } : {}),
      ...(step !== undefined ? { step } : {}),
      trace: session.trace,
      millis: Date.now() - started,
    });
    try {
      for (let k = 0; k < s.namespaces; k++) {
        const name = `${this.prefix}${index}${k === 0 ? '' : `-${String.fromCharCode(97 + k)}`}`;
        await this.createNamespace(session, name);
        vars.set(k === 0 ? 'ns' : `ns${k + 1}`, name);
      }
      if (resource) {
        const ns = vars.get('ns');
        vars.set('r.collection', collectionPath(resource, typeof ns === 'string' ? ns : undefined));
        if (resource.namespaced) {
          const ns2 = vars.get('ns2');
          if (typeof ns2 === 'string') vars.set('r.collection2', collectionPath(resource, ns2));
        }
      }
      const labels = { ...this.runLabel, [SCENARIO_LABEL_KEY]: `${this.prefix}s${index}` };
      const env: ExecutionEnv = { session, vars, settings: this.settings, labels, ...(resource ? { resource } : {}) };
      const work = s.kind === 'yaml' ? runYamlSteps(s, env) : s.run(codeContext(env));
      const limit = this.options.scenarioTimeoutMs ?? 120_000;
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`timed out after ${limit} ms`)), limit);
      });
      try {
        await Promise.race([work, timeout]);
      } finally {
        clearTimeout(timer);
      }
      return finish('passed');
    } catch (e) {
      const step = e instanceof StepError ? e.step : undefined;
      const message = e instanceof Error ? e.message : String(e);
      if (isScenarioSkipped(e)) return finish('skipped', message, step);
      const prefix = isExpectationFailed(e) ? '' : `${e instanceof Error ? e.name : 'Error'}: `;
      return finish('failed', `${prefix}${message}`, step);
    } finally {
      session.closeAll();
    }
  }

  /** Removes what the run created: finalizers first (so deletion can complete), then objects, then namespaces. */
  async cleanup(): Promise<string[]> {
    const session = this.session();
    const leftovers: string[] = [];
    const ours = new Set(this.namespaces);
    const inOurNamespace = (path: string): boolean => {
      const m = /\/namespaces\/([^/]+)\//.exec(path);
      return m !== null && ours.has(m[1] ?? '');
    };
    const objects = [...this.created.paths].filter((p) => !/^\/api\/v1\/namespaces\/[^/]+$/.test(p));
    const createdNamespaces = [...this.created.paths].filter((p) => /^\/api\/v1\/namespaces\/[^/]+$/.test(p));
    await pool(objects, 8, async (path) => {
      try {
        await this.dropFinalizers(session, path);
        if (!inOurNamespace(path)) await session.request('DELETE', path, { step: 'cleanup' });
      } catch {
        leftovers.push(path);
      }
    });
    const nsPaths = [...new Set([...this.namespaces.map((n) => `/api/v1/namespaces/${n}`), ...createdNamespaces])];
    await pool(nsPaths, 8, async (path) => {
      try {
        await this.dropFinalizers(session, path);
        const res = await session.request('DELETE', path, { step: 'cleanup' });
        if (res.status >= 300 && res.status !== 404) leftovers.push(path);
      } catch {
        leftovers.push(path);
      }
    });
    return leftovers;
  }

  async dropFinalizers(session: Session, path: string): Promise<void> {
    for (let attempt = 0; attempt < 3; attempt++) {
      const got = await session.request('GET', path, { step: 'cleanup' });
      if (got.status !== 200 || !isObject(got.json)) return;
      const meta = got.json.metadata;
      if (!isObject(meta) || !Array.isArray(meta.finalizers) || meta.finalizers.length === 0) return;
      const put = await session.request('PUT', path, { body: { ...got.json, metadata: { ...meta, finalizers: [] } }, step: 'cleanup' });
      if (put.status !== 409) return;
      await sleep(100);
    }
  }
}

async function pool<T>(items: T[], size: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const workers = Array.from({ length: Math.max(1, Math.min(size, items.length)) }, async () => {
    while (next < items.length) {
      const item = items[next++] as T;
      await work(item);
    }
  });
  await Promise.all(workers);
}

/** Applies the known-failing list: a listed failure is not a failure, a listed pass is (stale list). */
function applyKnownFailing(result: ScenarioResult, list: KnownFailing | undefined): ScenarioResult {
  if (!isKnownFailing(list, result.id)) return result;
  if (result.outcome === 'failed')
    return { ...result, outcome: 'skipped', knownFailing: true, message: `known failing: ${result.message ?? ''}` };
  if (result.outcome === 'passed') {
    return {
      ...result,
      outcome: 'failed',
      knownFailing: true,
      message: `listed as known failing in ${list?.file ?? '?'} but passed: remove it from the list (it is stale)`,
    };
  }
  return result;
}

export function summarize(results: readonly ScenarioResult[]): RunSummary {
  const count = (o: Outcome): number => results.filter((r) => r.outcome === o).length;
  return {
    passed: count('passed'),
    failed: count('failed'),
    skipped: count('skipped'),
    knownFailing: results.filter((r) => r.knownFailing && r.outcome === 'skipped').length,
  };
}

export async function runScenarios(o: RunOptions): Promise<RunReport> {
  const started = Date.now();
  const run = new Run(o);
  const selected = selectScenarios(o.scenarios, o);
  const served = await discoverServed(o.client, groupVersionsOf(selected, run.suffix));
  const needed = new Set(selected.flatMap((s) => s.needs).filter((f) => o.features.has(f)));
  const probed = await probeFeatures(o.client, needed, run.suffix);
  const results: ScenarioResult[] = [];
  const record = (r: ScenarioResult): void => {
    const final = applyKnownFailing(r, o.knownFailing);
    results.push(final);
    o.onResult?.(final, results.length, selected.length);
  };
  const runnable: Runnable[] = [];
  selected.forEach((s, index) => {
    const reason = skipReason(s, o, served, probed, run.suffix);
    if (reason) record({ ...baseResult(s, o.rules), outcome: 'skipped', message: reason, trace: [], millis: 0 });
    else runnable.push({ s, index });
  });
  const leftovers = await runAll(run, runnable, o, record);
  results.push(...staleKnownFailing(o));
  return {
    server: o.client.baseUrl,
    prefix: run.prefix,
    startedAt: new Date(started).toISOString(),
    millis: Date.now() - started,
    results: inSuiteOrder(results, o.scenarios),
    summary: summarize(results),
    leftovers,
  };
}

/** A selected scenario that is not skipped, with its place in the selection (it names its namespaces). */
interface Runnable {
  s: Scenario;
  index: number;
}

/** The group/versions whose discovery decides what the selected scenarios may use. */
function groupVersionsOf(selected: readonly Scenario[], suffix: string): Set<string> {
  const groupVersions = new Set<string>();
  for (const s of selected) {
    for (const key of s.serves) groupVersions.add(rewriteGroupSuffix(key.split('/').slice(0, -1).join('/'), suffix));
    if (s.resource) groupVersions.add(rewriteGroupSuffix(apiVersionOf(s.resource), suffix));
  }
  return groupVersions;
}

/**
 * Runs the untagged scenarios in parallel, then the serial ones one at a time, stopping early when
 * the run is aborted; what the run created is removed even when a scenario throws. Returns what
 * could not be removed.
 */
async function runAll(run: Run, runnable: readonly Runnable[], o: RunOptions, record: (r: ScenarioResult) => void): Promise<string[]> {
  const parallel = runnable.filter((x) => !x.s.tags.includes('serial'));
  const serial = runnable.filter((x) => x.s.tags.includes('serial'));
  let leftovers: string[] = [];
  try {
    await pool(parallel, Math.max(1, o.parallel ?? 4), async ({ s, index }) => {
      if (o.signal?.aborted) return;
      record(await run.runOne(s, index));
    });
    for (const { s, index } of serial) {
      if (o.signal?.aborted) break;
      record(await run.runOne(s, index));
    }
  } finally {
    leftovers = await run.cleanup();
  }
  return leftovers;
}

/** A failed result for every known-failing pattern that matches no scenario: the list is stale. */
function staleKnownFailing(o: RunOptions): ScenarioResult[] {
  return unusedPatterns(
    o.knownFailing,
    o.scenarios.map((s) => s.id),
  ).map((p) => ({
    id: `known-failing/${p.pattern}`,
    area: 'known-failing',
    rules: [],
    ruleTexts: [],
    tags: [],
    file: `${o.knownFailing?.file ?? ''}:${p.line}`,
    outcome: 'failed',
    message: `known-failing pattern "${p.pattern}" (line ${p.line}) matches no scenario: the list is stale`,
    trace: [],
    millis: 0,
  }));
}

/** Results in the order of the suite (parallel runs finish in any order); stale-pattern results last. */
function inSuiteOrder(results: ScenarioResult[], scenarios: readonly Scenario[]): ScenarioResult[] {
  const order = new Map(scenarios.map((s, i) => [s.id, i]));
  return results.sort((a, b) => (order.get(a.id) ?? Number.MAX_SAFE_INTEGER) - (order.get(b.id) ?? Number.MAX_SAFE_INTEGER));
}
