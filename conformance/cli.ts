import { readFileSync, writeFileSync } from 'node:fs';
import { type ParseArgsConfig, parseArgs } from 'node:util';
import { ClientConfigError, readClientConfig } from './client-config.js';
import { DurationError, formatDuration, parseDuration } from './duration.js';
import { type Credentials, HttpClient } from './http.js';
import { type KnownFailing, readKnownFailing } from './known-failing.js';
import { DEFAULT_SCENARIO_DIR, isScenarioLoadError, loadScenarios } from './load.js';
import {
  formatJsonReport,
  formatJunitReport,
  formatTerminalReport,
  ProgressBar,
  REPORT_TRACES,
  type ReportTraces,
} from './report/index.js';
import { readResources } from './resources.js';
import { type RuleCatalogue, readRules } from './rules.js';
import { type RunReport, runScenarios, selectScenarios, unmatchedFilters } from './runner.js';
import { FEATURES, type Feature, type Scenario } from './types.js';
import { isObject } from './json.js';
import { type KitWebhook, WebhookSetupError, startKitWebhook } from './webhook-server.js';

export const CONFORMANCE_USAGE = `usage: svckit conformance [options]

  --server <url>            the server to judge; without it the reference server is started in-process
  --token <t>               bearer token
  --client-cert <file> --client-key <file>
                            client certificate and key (with --ca <file> or --insecure-skip-tls-verify)
  --config <file>           a client config file (server, CA, token or client certificate); --context <name>
  --focus <glob>            run only matching scenario ids (repeatable; * within a segment, ** across)
  --skip <glob>             leave matching ids out (repeatable)
                            (a --focus or --skip pattern that matches no scenario id is an error)
  --tags <t,!t>             keep scenarios with a tag, or leave them out with !tag
                            (tags: slow, serial, needs-history-expiry, destructive, security, clients)
  --known-failing <file>    id globs expected to fail; one that passes fails the run (stale list)
  --report json:<file>      also write a JSON report; junit:<file> for JUnit XML (repeatable)
  --report-traces <which>   the request traces the JSON report keeps: failed (default; failed and
                            known-failing scenarios) or all
  --parallel <n>            scenarios run at once (serial-tagged ones run alone); default 4
  --history-window <d>      the server's watch history window (for example 5m); enables expiry scenarios
  --continue-ttl <d>        the server's continue-token lifetime (for example 5m)
  --group-suffix <suffix>   the suffix the server's groups use instead of svc.io
  --without <feature,...>   features the server does not offer: ${FEATURES.join(', ')}
  --webhook-url <url>       https://host:port the server under test can reach: the kit serves its own
                            admission webhook there and registers it (webhook scenarios); with the
                            in-process server a local one is used, with --server and no URL they skip
  --resources <file>        resource profiles to parameterise over (default conformance/resources.yaml)
  --list                    print the selected scenario ids and exit
`;

/** What the in-process reference server module must export. */
interface ReferenceServer {
  url: string;
  /** The bearer token of an administrator, when the started server authenticates (the kit then runs as it). */
  token?: string;
  close(): Promise<void> | void;
}
type StartReferenceServer = (options: {
  port: number;
  store: 'memory';
  historyWindowMs: number;
  continueTtlMs: number;
  featureGates: string;
}) => Promise<ReferenceServer>;

export interface CliIo {
  stdout: (text: string) => void;
  stderr: NodeJS.WriteStream | { write: (text: string) => boolean; isTTY?: boolean; columns?: number };
  /** Replaces the dynamic import of the reference server (tests). */
  startReferenceServer?: StartReferenceServer;
  /** Where the reference server module is (tests point it at a file that does not exist). */
  referenceServerModule?: URL;
  scenarioDir?: string;
}

/** In-process defaults: short enough that expiry scenarios wait seconds, long enough for ordinary ones. */
const IN_PROCESS_HISTORY_WINDOW_MS = 8000;
const IN_PROCESS_CONTINUE_TTL_MS = 5000;
/** The in-process server turns on the alpha gate WatchList, so the initial-events scenarios run too. */
const IN_PROCESS_FEATURE_GATES = 'WatchList=true';

class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** An option the kit does not have: one line, naming the option it likely meant. */
class UnknownOptionError extends Error {
  override readonly name = 'UnknownOptionError';
}

/** A --focus or --skip pattern that matches no scenario. */
class FilterError extends Error {
  override readonly name = 'FilterError';
}

const REFERENCE_SERVER_MODULE = new URL('../reference/index.js', import.meta.url);

async function importReferenceServer(module: URL = REFERENCE_SERVER_MODULE): Promise<StartReferenceServer | string> {
  // The one allowed reach outside the kit: it only starts a server, which the kit then judges over HTTP.
  const specifier = module.href;
  let mod: unknown;
  try {
    mod = await import(specifier);
  } catch (e) {
    const code = isObject(e) ? e.code : undefined;
    const message = e instanceof Error ? e.message : String(e);
    if (code === 'ERR_MODULE_NOT_FOUND' && message.includes(module.pathname.replace(/\.js$/, ''))) {
      return `the reference server is not built yet (${module.pathname.replace(/\.js$/, '.ts')} is missing); pass --server <url> to judge another server`;
    }
    return `could not load the reference server: ${message}`;
  }
  const start = isObject(mod) ? mod.startReferenceServer : undefined;
  if (typeof start !== 'function') return 'reference/index.ts does not export startReferenceServer(options)';
  return start as StartReferenceServer;
}

function durationOption(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  try {
    return parseDuration(value);
  } catch (e) {
    if (e instanceof DurationError) throw new UsageError(`--${name}: ${e.message}`);
    throw e;
  }
}

function parseFeatures(without: string[] | undefined): Set<Feature> {
  const off = (without ?? [])
    .flatMap((w) => w.split(','))
    .map((w) => w.trim())
    .filter(Boolean);
  for (const f of off)
    if (!(FEATURES as readonly string[]).includes(f))
      throw new UsageError(`--without: unknown feature "${f}" (known: ${FEATURES.join(', ')})`);
  return new Set(FEATURES.filter((f) => !off.includes(f)));
}

function parseReportTraces(value: string | undefined): ReportTraces {
  if (value === undefined) return 'failed';
  if (!(REPORT_TRACES as readonly string[]).includes(value))
    throw new UsageError(`--report-traces: expected ${REPORT_TRACES.join(' or ')}, found "${value}"`);
  return value as ReportTraces;
}

function parseReports(reports: string[] | undefined): ReportTarget[] {
  return (reports ?? []).map((r) => {
    const m = /^(json|junit):(.+)$/.exec(r);
    if (!m) throw new UsageError(`--report: expected json:<file> or junit:<file>, found "${r}"`);
    return { format: m[1] as 'json' | 'junit', file: m[2] ?? '' };
  });
}

/**
 * `svckit conformance`, in the stages connect's conformance runner has: parse flags, build the run
 * settings, load the suite (every --focus and --skip pattern must match a scenario), start or
 * choose the server, run, report. Exit codes: 0 all passed, 1 a failure, 2 bad usage, 130 interrupted.
 */
export async function runConformanceCli(argv: string[], io?: Partial<CliIo>): Promise<number> {
  const out = io?.stdout ?? ((t: string) => void process.stdout.write(t));
  const err = io?.stderr ?? process.stderr;
  const say = (t: string): void => void err.write(`svckit conformance: ${t}\n`);
  let close: (() => Promise<void> | void) | undefined;
  let webhook: KitWebhook | undefined;
  try {
    const flags = parseFlags(argv);
    if (flags.help) {
      out(CONFORMANCE_USAGE);
      return 0;
    }
    const settings = buildRunSettings(flags);
    const suite = await loadSuite(flags, settings, io);
    if (flags.list) {
      for (const s of selectScenarios(suite.scenarios, settings.selection)) out(`${s.id}\n`);
      return 0;
    }
    const server = await chooseServer(flags, settings, io);
    if (typeof server === 'string') {
      say(server);
      return 2;
    }
    close = server.close;
    if (server.started) say(server.started);
    const webhookUrl = flags['webhook-url'] ?? (server.started ? 'https://127.0.0.1:0' : undefined);
    if (webhookUrl !== undefined && settings.features.has('webhooks')) {
      webhook = await startKitWebhook(webhookUrl);
      if (flags['webhook-url'] !== undefined) say(`the kit's admission webhook listens at ${webhook.url}`);
    }
    const { report, interrupted } = await runSuite(server, settings, suite, err, webhook);
    return reportRun(report, interrupted, settings, out, err);
  } catch (e) {
    return exitForError(e, say);
  } finally {
    await webhook?.close();
    await close?.();
  }
}

type Flags = ReturnType<typeof parseFlags>;

function parseFlags(argv: string[]) {
  try {
    return parseArgs({ args: argv, options: FLAGS, strict: true, allowPositionals: false }).values;
  } catch (e) {
    const option =
      e instanceof TypeError && 'code' in e && e.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' ? /'([^']+)'/.exec(e.message)?.[1] : undefined;
    if (option === undefined) throw e;
    const meant = closestFlag(option.replace(/^-+/, ''), Object.keys(FLAGS));
    throw new UnknownOptionError(
      `unknown option ${option}${meant ? `; did you mean --${meant}?` : ''} (svckit conformance --help lists the options)`,
    );
  }
}

/** The flag a typo most likely meant: the nearest within two edits (and fewer edits than the typo is long). The kit shares no code with the CLI it may judge. */
function closestFlag(typed: string, names: readonly string[]): string | undefined {
  const distance = (a: string, b: string): number => {
    let row = Array.from({ length: b.length + 1 }, (_, j) => j);
    for (let i = 1; i <= a.length; i++) {
      const next = [i];
      for (let j = 1; j <= b.length; j++) next[j] = Math.min(row[j]! + 1, next[j - 1]! + 1, row[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
      row = next;
    }
    return row[b.length]!;
  };
  let best: { name: string; d: number } | undefined;
  for (const n of names) {
    const d = distance(typed, n);
    if (d <= 2 && d < typed.length && (!best || d < best.d)) best = { name: n, d };
  }
  return best?.name;
}

const FLAGS = {
  server: { type: 'string' },
  token: { type: 'string' },
  'client-cert': { type: 'string' },
  'client-key': { type: 'string' },
  ca: { type: 'string' },
  'insecure-skip-tls-verify': { type: 'boolean' },
  config: { type: 'string' },
  context: { type: 'string' },
  focus: { type: 'string', multiple: true },
  skip: { type: 'string', multiple: true },
  tags: { type: 'string', multiple: true },
  'known-failing': { type: 'string' },
  report: { type: 'string', multiple: true },
  'report-traces': { type: 'string' },
  parallel: { type: 'string' },
  'history-window': { type: 'string' },
  'continue-ttl': { type: 'string' },
  'group-suffix': { type: 'string' },
  without: { type: 'string', multiple: true },
  'webhook-url': { type: 'string' },
  resources: { type: 'string' },
  list: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const satisfies ParseArgsConfig['options'];

/** Everything the run needs that the flags decide, checked: a bad value is a UsageError. */
interface CliSettings {
  selection: { focus: string[]; skip: string[]; tags: string[] };
  parallel: number;
  reports: ReportTarget[];
  reportTraces: ReportTraces;
  features: Set<Feature>;
  historyWindowMs: number | undefined;
  continueTtlMs: number | undefined;
  groupSuffix: string;
  knownFailing: KnownFailing | undefined;
}

interface ReportTarget {
  format: 'json' | 'junit';
  file: string;
}

function buildRunSettings(flags: Flags): CliSettings {
  if ((flags['client-cert'] === undefined) !== (flags['client-key'] === undefined))
    throw new UsageError('--client-cert and --client-key go together');
  const authKinds = [flags.token !== undefined, flags['client-cert'] !== undefined, flags.config !== undefined].filter(Boolean).length;
  if (authKinds > 1) throw new UsageError('give one of --token, --client-cert/--client-key, --config');
  const parallel = flags.parallel === undefined ? 4 : Number(flags.parallel);
  if (!Number.isInteger(parallel) || parallel < 1)
    throw new UsageError(`--parallel: expected a positive integer, found "${flags.parallel}"`);
  return {
    selection: { focus: flags.focus ?? [], skip: flags.skip ?? [], tags: flags.tags ?? [] },
    parallel,
    reports: parseReports(flags.report),
    reportTraces: parseReportTraces(flags['report-traces']),
    features: parseFeatures(flags.without),
    historyWindowMs: durationOption('history-window', flags['history-window']),
    continueTtlMs: durationOption('continue-ttl', flags['continue-ttl']),
    groupSuffix: (flags['group-suffix'] ?? 'svc.io').replace(/^\./, ''),
    knownFailing: flags['known-failing'] ? readKnownFailing(flags['known-failing']) : undefined,
  };
}

interface Suite {
  rules: RuleCatalogue;
  scenarios: Scenario[];
}

/** The rules and scenarios; a --focus or --skip pattern that matches no scenario is an error, as a typo must not pass as an empty run. */
async function loadSuite(flags: Flags, settings: CliSettings, io: Partial<CliIo> | undefined): Promise<Suite> {
  const rules = readRules();
  const resources = flags.resources ? readResources(flags.resources) : readResources();
  const scenarios = await loadScenarios({ rules, resources }, io?.scenarioDir ?? DEFAULT_SCENARIO_DIR);
  const unmatched = unmatchedFilters(scenarios, settings.selection);
  if (unmatched.length > 0) {
    throw new FilterError(unmatched.map((u) => `--${u.flag} pattern "${u.pattern}" matches no scenario id`).join('\n'));
  }
  return { rules, scenarios };
}

/** The server to judge, with the credentials to use and how to stop it when the kit started it. */
interface ServerTarget {
  url: string;
  credentials: Credentials;
  historyWindowMs: number | undefined;
  continueTtlMs: number | undefined;
  close?: () => Promise<void> | void;
  /** What to tell the user when the reference server was started in-process. */
  started?: string;
}

/** --server (or the client config's server), or else the reference server in-process; a string says why it could not start. */
async function chooseServer(flags: Flags, settings: CliSettings, io: Partial<CliIo> | undefined): Promise<ServerTarget | string> {
  let credentials: Credentials = {};
  let url = flags.server;
  if (flags.config) {
    const config = readClientConfig(flags.config, flags.context);
    url ??= config.server;
    const { server: _ignored, ...rest } = config;
    credentials = rest;
  }
  if (flags.token) credentials.token = flags.token;
  if (flags['client-cert'] && flags['client-key']) {
    credentials.cert = readFileSync(flags['client-cert']);
    credentials.key = readFileSync(flags['client-key']);
  }
  if (flags.ca) credentials.ca = readFileSync(flags.ca);
  if (flags['insecure-skip-tls-verify']) credentials.insecureSkipTlsVerify = true;
  if (url) return { url, credentials, historyWindowMs: settings.historyWindowMs, continueTtlMs: settings.continueTtlMs };

  const start = io?.startReferenceServer ?? (await importReferenceServer(io?.referenceServerModule));
  if (typeof start === 'string') return start;
  const historyWindowMs = settings.historyWindowMs ?? IN_PROCESS_HISTORY_WINDOW_MS;
  const continueTtlMs = settings.continueTtlMs ?? IN_PROCESS_CONTINUE_TTL_MS;
  const ref = await start({ port: 0, store: 'memory', historyWindowMs, continueTtlMs, featureGates: IN_PROCESS_FEATURE_GATES });
  return {
    url: ref.url,
    credentials: { ...(ref.token !== undefined ? { token: ref.token } : {}), ...credentials },
    historyWindowMs,
    continueTtlMs,
    close: () => ref.close(),
    started: `started the reference server at ${ref.url} (memory store, history window ${formatDuration(historyWindowMs)}, continue-token lifetime ${formatDuration(continueTtlMs)}, --feature-gates ${IN_PROCESS_FEATURE_GATES})`,
  };
}

/** Runs the selected scenarios with a progress bar; Ctrl-C stops the run and still reports. */
async function runSuite(
  server: ServerTarget,
  settings: CliSettings,
  suite: Suite,
  err: CliIo['stderr'],
  webhook: KitWebhook | undefined,
): Promise<{ report: RunReport; interrupted: boolean }> {
  const client = new HttpClient({ baseUrl: server.url, ...server.credentials });
  const progress = new ProgressBar(err as NodeJS.WriteStream);
  const abort = new AbortController();
  const onSignal = (): void => abort.abort();
  process.once('SIGINT', onSignal);
  try {
    const report = await runScenarios({
      client,
      scenarios: suite.scenarios,
      rules: suite.rules,
      parallel: settings.parallel,
      ...settings.selection,
      ...(settings.knownFailing ? { knownFailing: settings.knownFailing } : {}),
      features: settings.features,
      ...(server.historyWindowMs !== undefined ? { historyWindowMs: server.historyWindowMs } : {}),
      ...(server.continueTtlMs !== undefined ? { continueTtlMs: server.continueTtlMs } : {}),
      groupSuffix: settings.groupSuffix,
      ...(webhook ? { webhook: { url: webhook.url, caBundle: webhook.caBundle } } : {}),
      onResult: (r, done, total) => progress.update(r, done, total),
      signal: abort.signal,
    });
    progress.clear();
    return { report, interrupted: abort.signal.aborted };
  } finally {
    process.removeListener('SIGINT', onSignal);
    await client.close();
  }
}

/** Writes the report files and the terminal summary; returns the exit code. */
function reportRun(
  report: RunReport,
  interrupted: boolean,
  settings: Pick<CliSettings, 'reports' | 'reportTraces'>,
  out: CliIo['stdout'],
  err: CliIo['stderr'],
): number {
  for (const r of settings.reports) {
    writeFileSync(r.file, r.format === 'json' ? formatJsonReport(report, { traces: settings.reportTraces }) : formatJunitReport(report));
  }
  out(formatTerminalReport(report, { color: Boolean((err as NodeJS.WriteStream).isTTY) }));
  if (interrupted) return 130;
  return report.summary.failed === 0 ? 0 : 1;
}

/** Exit 2 for what the user can fix (usage, a filter, a scenario file, a config file); anything else is a bug and is thrown. */
function exitForError(e: unknown, say: (text: string) => void): number {
  if (e instanceof UsageError || (e instanceof TypeError && 'code' in e && String(e.code).startsWith('ERR_PARSE_ARGS'))) {
    say(`${e.message}\n\n${CONFORMANCE_USAGE}`);
    return 2;
  }
  if (
    e instanceof UnknownOptionError ||
    e instanceof FilterError ||
    e instanceof WebhookSetupError ||
    isScenarioLoadError(e) ||
    e instanceof ClientConfigError ||
    (e instanceof Error && /ENOENT/.test(e.message))
  ) {
    say(e.message);
    return 2;
  }
  throw e;
}
