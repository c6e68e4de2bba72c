import { ExpectationFailed, ScenarioSkipped } from './errors.js';
import { parseJson } from './http.js';
import { rewriteDeep } from './group-suffix.js';
import { checkHeaders, checkPath, checkResponse, describe, expectedEventCount, matchEvents } from './match.js';
import { collectionPath, sampleObject } from './resources.js';
import type { Session } from './session.js';
import type {
  HttpResult,
  Json,
  RequestOptions,
  RequestSpec,
  RequestStep,
  ResourceProfile,
  ResponseExpectation,
  RunSettings,
  ScenarioContext,
  WaitStep,
  WatchEvent,
  WatchStep,
  YamlScenario,
} from './types.js';
import { captureAll, substitute, substituteDeep, type Vars } from './vars.js';
import type { WatchReader } from './watch-stream.js';
import { isObject } from './json.js';

/** Runs scenario steps: the YAML step interpreter, and the context TypeScript scenarios receive. */

export interface ExecutionEnv {
  session: Session;
  vars: Vars;
  settings: RunSettings;
  resource?: ResourceProfile;
  /** Labels every `$sample` object carries: the run's and the scenario's. */
  labels: Record<string, string>;
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Expands `{$sample: overrides}` into an object of the scenario's resource type. */
function expandBody(body: Json, env: ExecutionEnv): Json {
  if (!isObject(body) || !('$sample' in body)) return body;
  if (!env.resource) throw new ExpectationFailed('$sample needs a parameterised scenario (resource: [...])');
  const overrides = body.$sample;
  const ns = env.vars.get('ns');
  return sampleObject(env.resource, typeof ns === 'string' ? ns : undefined, env.labels, isObject(overrides) ? overrides : {});
}

function requestOptions(spec: RequestSpec, env: ExecutionEnv, step: string): { path: string; options: RequestOptions } {
  const options: RequestOptions = { step };
  if (spec.query) options.query = substituteDeep(spec.query, env.vars) as Record<string, Json>;
  if (spec.headers) {
    options.headers = {};
    for (const [k, v] of Object.entries(spec.headers)) options.headers[k] = substitute(v, env.vars);
  }
  if (spec.body !== undefined) options.body = expandBody(substituteDeep(spec.body, env.vars), env);
  if (spec.bodyText !== undefined) options.bodyText = substitute(spec.bodyText, env.vars);
  if (spec.bodyFrom !== undefined) {
    const bytes = env.vars.get(spec.bodyFrom);
    if (!Buffer.isBuffer(bytes)) throw new ExpectationFailed(`bodyFrom: variable ${spec.bodyFrom} holds no captured bytes`);
    options.bodyRaw = bytes;
  }
  if (spec.contentType !== undefined) options.contentType = substitute(spec.contentType, env.vars);
  // The restricted user is reached by impersonation: the kit's own identity needs no second credential.
  if (spec.as === 'restricted') options.headers = { ...options.headers, 'Impersonate-User': substitute('${user}', env.vars) };
  return { path: substitute(spec.path, env.vars), options };
}

/** Substitutes variables in an expectation and rewrites the group suffix the server uses. */
function resolveExpectation<T>(exp: T, env: ExecutionEnv): T {
  return rewriteDeep(substituteDeep(exp as unknown as Json, env.vars) as unknown as T, env.settings.groupSuffix);
}

async function runRequestStep(step: RequestStep, env: ExecutionEnv, label: string): Promise<HttpResult> {
  const deadline = Date.now() + (step.retry?.withinMs ?? 0);
  for (;;) {
    const { path, options } = requestOptions(step.request, env, label);
    const res = await env.session.request(step.request.method, path, options);
    const problem = step.expect ? checkResponse(res, resolveExpectation(step.expect, env)) : null;
    if (!problem) {
      captureAll(step.capture, { json: res.json, headers: res.headers, raw: res.raw, status: res.status }, env.vars);
      return res;
    }
    if (!step.retry || Date.now() >= deadline) {
      throw new ExpectationFailed(step.retry ? `${problem} (still after retrying for ${step.retry.withinMs} ms)` : problem);
    }
    await sleep(step.retry.everyMs);
  }
}

/** Waits for the watch's status and headers within the expectation's time bound. */
async function opened(watch: WatchReader, withinMs: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), withinMs)));
  try {
    const outcome = await Promise.race([watch.opened.then(() => 'open' as const), late]);
    if (outcome === 'late') throw new ExpectationFailed(`watch: no response (status and headers) within ${withinMs} ms`);
  } catch (e) {
    if (e instanceof ExpectationFailed) throw e;
    throw new ExpectationFailed(`watch: the request failed: ${e instanceof Error ? e.message : String(e)}`);
  } finally {
    clearTimeout(timer);
  }
}

function isGoneEvent(e: WatchEvent | undefined): boolean {
  return e?.type === 'ERROR' && isObject(e.object) && e.object.code === 410;
}

async function runWatchStep(step: WatchStep, env: ExecutionEnv, label: string): Promise<void> {
  const { path, options } = requestOptions(step.request, env, label);
  const watch = await env.session.watch(path, options);
  try {
    for (const [i, action] of step.actions.entries()) await runRequestStep(action, env, `${label}.actions[${i}]`);
    const exp = resolveExpectation(step.expect, env);
    await opened(watch, exp.withinMs);
    const record = await judgeWatch(watch, exp);
    captureAll(step.capture, { json: record, headers: watch.headers, status: watch.status }, env.vars);
  } finally {
    watch.close();
    env.session.sync(watch);
  }
}

/** Checks a watch against its expectation and returns the record captures and `at` checks read. */
async function judgeWatch(watch: WatchReader, exp: WatchStep['expect']): Promise<Json> {
  const skip = exp.skip ?? [];
  if (exp.gone) {
    if (watch.status === 410) return { status: 410, events: [] };
    if (watch.status !== 200)
      throw new ExpectationFailed(`watch: expected 410 Gone (or an ERROR event with a 410 Status), got status ${watch.status}`);
    const first = (await watch.waitFor(1, exp.withinMs))[0];
    if (!isGoneEvent(first)) {
      throw new ExpectationFailed(
        `watch: expected 410 Gone or an ERROR event with a 410 Status, got ${first ? `${first.type} ${describe(first.object)}` : `no event within ${exp.withinMs} ms`}`,
      );
    }
    return { status: watch.status, events: [first as unknown as Json] };
  }
  const status = exp.status ?? [200];
  if (!status.includes(watch.status)) {
    throw new ExpectationFailed(
      `watch: status expected ${status.join(' or ')}, got ${watch.status}${watch.malformed[0] ? `: ${watch.malformed[0].slice(0, 300)}` : ''}`,
    );
  }
  const headerProblem = checkHeaders(watch.headers, exp.headers);
  if (headerProblem) throw new ExpectationFailed(`watch: ${headerProblem}`);
  if (watch.status !== 200) {
    // A refused watch answers with a Status document instead of a stream.
    await watch.closed();
    const body = parseJson(watch.malformed[0] ?? '');
    const refused: Json = { status: watch.status, ...(body !== undefined ? { body } : {}) };
    for (const check of exp.at ?? []) {
      const p = checkPath(refused, check);
      if (p) throw new ExpectationFailed(`watch: ${p}`);
    }
    return refused;
  }
  const expected = exp.events ?? [];
  const count = expectedEventCount(expected);
  const received = count > 0 ? await watch.waitFor(count, exp.withinMs, skip) : watch.filtered(skip);
  if (watch.malformed.length > 0)
    throw new ExpectationFailed(`watch: a document that is not a {type, object} event: ${watch.malformed[0]?.slice(0, 300) ?? ''}`);
  const problem = matchEvents(expected, received);
  if (problem) throw new ExpectationFailed(`watch: ${problem}${received.length < count ? ` (waited ${exp.withinMs} ms)` : ''}`);
  if (exp.quietMs !== undefined) {
    const extra = await watch.quiet(exp.quietMs, count, skip);
    if (extra.length > 0) {
      const e = extra[0];
      throw new ExpectationFailed(
        `watch: unexpected event after the ${count} expected: ${e?.type ?? ''} ${describe(e?.object)} (within ${exp.quietMs} ms)`,
      );
    }
  }
  const record: Json = { status: watch.status, events: watch.events.map((e) => ({ type: e.type, object: e.object })) };
  for (const check of exp.at ?? []) {
    const p = checkPath(record, check);
    if (p) throw new ExpectationFailed(`watch: ${p}`);
  }
  return record;
}

function waitMillis(step: WaitStep, settings: RunSettings): number {
  if (step.for === 'history-window') {
    if (settings.historyWindowMs === undefined) throw new ScenarioSkipped("the server's history window is unknown: pass --history-window");
    return settings.historyWindowMs + step.ms;
  }
  if (step.for === 'continue-ttl') {
    if (settings.continueTtlMs === undefined)
      throw new ScenarioSkipped("the server's continue-token lifetime is unknown: pass --continue-ttl");
    return settings.continueTtlMs + step.ms;
  }
  return step.ms;
}

/** Thrown out of a step with the step's label so the report can name it. */
export class StepError extends Error {
  override readonly name: string;
  constructor(
    readonly step: string,
    readonly failure: Error,
  ) {
    super(failure.message);
    this.name = failure.name;
  }
}

export async function runYamlSteps(scenario: YamlScenario, env: ExecutionEnv): Promise<void> {
  for (const [i, step] of scenario.steps.entries()) {
    const label = `${i}${step.name ? ` (${step.name})` : ''}`;
    try {
      if (step.kind === 'request') await runRequestStep(step, env, label);
      else if (step.kind === 'watch') await runWatchStep(step, env, label);
      else await sleep(waitMillis(step, env.settings));
    } catch (e) {
      throw new StepError(label, e instanceof Error ? e : new Error(String(e)));
    }
  }
}

/** The context handed to a TypeScript scenario. */
export function codeContext(env: ExecutionEnv): ScenarioContext {
  const ns = (): string | undefined => {
    const v = env.vars.get('ns');
    return typeof v === 'string' ? v : undefined;
  };
  return {
    vars: env.vars,
    sub: (text) => substitute(text, env.vars),
    ...(env.resource ? { resource: env.resource } : {}),
    collection: () => {
      if (!env.resource) throw new ExpectationFailed('collection() needs a parameterised scenario');
      return collectionPath(env.resource, ns());
    },
    sample: (name, overrides = {}) => {
      if (!env.resource) throw new ExpectationFailed('sample() needs a parameterised scenario');
      return sampleObject(env.resource, ns(), env.labels, {
        ...overrides,
        metadata: { ...(isObject(overrides.metadata) ? overrides.metadata : {}), name },
      });
    },
    request: (method, path, options) => env.session.request(method, path, options),
    watch: async (path, options) => env.session.watch(path, options),
    fail: (message) => {
      throw new ExpectationFailed(message);
    },
    check: (result, expectation: ResponseExpectation, label) => {
      const problem = checkResponse(result, resolveExpectation(expectation, env));
      if (problem) throw new ExpectationFailed(label ? `${label}: ${problem}` : problem);
    },
    sleep,
    settings: env.settings,
  };
}
