import { readFileSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { ClientConfigError, readClientConfig } from './client-config.js';
import { DurationError, formatDuration, parseDuration } from './duration.js';
import { type Credentials, HttpClient } from './http.js';
import { type KnownFailing, readKnownFailing } from './known-failing.js';
import { DEFAULT_SCENARIO_DIR, isScenarioLoadError, loadScenarios } from './load.js';
import { formatJsonReport, formatJunitReport, formatTerminalReport, ProgressBar } from './report/index.js';
import { readResources } from './resources.js';
import { readRules } from './rules.js';
import { runScenarios, selectScenarios } from './runner.js';
import { FEATURES, type Feature } from './types.js';
import { isObject } from './json.js';

/** `svckit conformance`: parse options, start the reference server when no --server is given, run, report. */

export const CONFORMANCE_USAGE = `usage: svckit conformance [options]

  --server <url>            the server to judge; without it the reference server is started in-process
  --token <t>               bearer token
  --client-cert <file> --client-key <file>
                            client certificate and key (with --ca <file> or --insecure-skip-tls-verify)
  --config <file>           a client config file (server, CA, token or client certificate); --context <name>
  --focus <glob>            run only matching scenario ids (repeatable; * within a segment, ** across)
  --skip <glob>             leave matching ids out (repeatable)
  --tags <t,!t>             keep scenarios with a tag, or leave them out with !tag
                            (tags: slow, serial, needs-history-expiry, destructive)
  --known-failing <file>    id globs expected to fail; one that passes fails the run (stale list)
  --report json:<file>      also write a JSON report; junit:<file> for JUnit XML (repeatable)
  --parallel <n>            scenarios run at once (serial-tagged ones run alone); default 4
  --history-window <d>      the server's watch history window (for example 5m); enables expiry scenarios
  --continue-ttl <d>        the server's continue-token lifetime (for example 5m)
  --group-suffix <suffix>   the suffix the server's groups use instead of svc.io
  --without <feature,...>   features the server does not offer: ${FEATURES.join(', ')}
  --resources <file>        resource profiles to parameterise over (default conformance/resources.yaml)
  --list                    print the selected scenario ids and exit
`;

/** What the in-process reference server module must export. */
interface ReferenceServer {
  url: string;
  close(): Promise<void> | void;
}
type StartReferenceServer = (options: { port: number; store: 'memory'; historyWindowMs: number; continueTtlMs: number }) => Promise<ReferenceServer>;

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

class UsageError extends Error {
  override readonly name = 'UsageError';
}


const REFERENCE_SERVER_MODULE = new URL('../scripts/reference-server.js', import.meta.url);

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
  if (typeof start !== 'function') return 'scripts/reference-server.ts does not export startReferenceServer(options)';
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
  const off = (without ?? []).flatMap((w) => w.split(',')).map((w) => w.trim()).filter(Boolean);
  for (const f of off) if (!(FEATURES as readonly string[]).includes(f)) throw new UsageError(`--without: unknown feature "${f}" (known: ${FEATURES.join(', ')})`);
  return new Set(FEATURES.filter((f) => !off.includes(f)));
}

function parseReports(reports: string[] | undefined): { format: 'json' | 'junit'; file: string }[] {
  return (reports ?? []).map((r) => {
    const m = /^(json|junit):(.+)$/.exec(r);
    if (!m) throw new UsageError(`--report: expected json:<file> or junit:<file>, found "${r}"`);
    return { format: m[1] as 'json' | 'junit', file: m[2] ?? '' };
  });
}

export async function runConformanceCli(argv: string[], io?: Partial<CliIo>): Promise<number> {
  const out = io?.stdout ?? ((t: string) => void process.stdout.write(t));
  const err = io?.stderr ?? process.stderr;
  const say = (t: string): void => void err.write(`svckit conformance: ${t}\n`);
  let close: (() => Promise<void> | void) | undefined;
  try {
    const { values } = parseArgs({
      args: argv,
      options: {
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
        parallel: { type: 'string' },
        'history-window': { type: 'string' },
        'continue-ttl': { type: 'string' },
        'group-suffix': { type: 'string' },
        without: { type: 'string', multiple: true },
        resources: { type: 'string' },
        list: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
      allowPositionals: false,
    });
    if (values.help) {
      out(CONFORMANCE_USAGE);
      return 0;
    }
    if ((values['client-cert'] === undefined) !== (values['client-key'] === undefined)) throw new UsageError('--client-cert and --client-key go together');
    const authKinds = [values.token !== undefined, values['client-cert'] !== undefined, values.config !== undefined].filter(Boolean).length;
    if (authKinds > 1) throw new UsageError('give one of --token, --client-cert/--client-key, --config');
    const parallel = values.parallel === undefined ? 4 : Number(values.parallel);
    if (!Number.isInteger(parallel) || parallel < 1) throw new UsageError(`--parallel: expected a positive integer, found "${values.parallel}"`);
    const reports = parseReports(values.report);
    const features = parseFeatures(values.without);
    let historyWindowMs = durationOption('history-window', values['history-window']);
    let continueTtlMs = durationOption('continue-ttl', values['continue-ttl']);
    const groupSuffix = (values['group-suffix'] ?? 'svc.io').replace(/^\./, '');
    const knownFailing: KnownFailing | undefined = values['known-failing'] ? readKnownFailing(values['known-failing']) : undefined;

    const rules = readRules();
    const resources = values.resources ? readResources(values.resources) : readResources();
    const scenarios = await loadScenarios({ rules, resources }, io?.scenarioDir ?? DEFAULT_SCENARIO_DIR);
    if (values.list) {
      for (const s of selectScenarios(scenarios, { focus: values.focus ?? [], skip: values.skip ?? [], tags: values.tags ?? [] })) out(`${s.id}\n`);
      return 0;
    }

    let credentials: Credentials = {};
    let server = values.server;
    if (values.config) {
      const config = readClientConfig(values.config, values.context);
      server ??= config.server;
      const { server: _ignored, ...rest } = config;
      credentials = rest;
    }
    if (values.token) credentials.token = values.token;
    if (values['client-cert'] && values['client-key']) {
      credentials.cert = readFileSync(values['client-cert']);
      credentials.key = readFileSync(values['client-key']);
    }
    if (values.ca) credentials.ca = readFileSync(values.ca);
    if (values['insecure-skip-tls-verify']) credentials.insecureSkipTlsVerify = true;

    if (!server) {
      const start = io?.startReferenceServer ?? (await importReferenceServer(io?.referenceServerModule));
      if (typeof start === 'string') {
        say(start);
        return 2;
      }
      historyWindowMs ??= IN_PROCESS_HISTORY_WINDOW_MS;
      continueTtlMs ??= IN_PROCESS_CONTINUE_TTL_MS;
      const ref = await start({ port: 0, store: 'memory', historyWindowMs, continueTtlMs });
      server = ref.url;
      close = () => ref.close();
      say(`started the reference server at ${server} (memory store, history window ${formatDuration(historyWindowMs)}, continue-token lifetime ${formatDuration(continueTtlMs)})`);
    }

    const client = new HttpClient({ baseUrl: server, ...credentials });
    const progress = new ProgressBar(err as NodeJS.WriteStream);
    const abort = new AbortController();
    const onSignal = (): void => abort.abort();
    process.once('SIGINT', onSignal);
    try {
      const report = await runScenarios({
        client,
        scenarios,
        rules,
        parallel,
        focus: values.focus ?? [],
        skip: values.skip ?? [],
        tags: values.tags ?? [],
        ...(knownFailing ? { knownFailing } : {}),
        features,
        ...(historyWindowMs !== undefined ? { historyWindowMs } : {}),
        ...(continueTtlMs !== undefined ? { continueTtlMs } : {}),
        groupSuffix,
        onResult: (r, done, total) => progress.update(r, done, total),
        signal: abort.signal,
      });
      progress.clear();
      for (const r of reports) {
        writeFileSync(r.file, r.format === 'json' ? formatJsonReport(report) : formatJunitReport(report));
      }
      out(formatTerminalReport(report, { color: Boolean((err as NodeJS.WriteStream).isTTY) }));
      if (abort.signal.aborted) return 130;
      return report.summary.failed === 0 ? 0 : 1;
    } finally {
      process.removeListener('SIGINT', onSignal);
      await client.close();
    }
  } catch (e) {
    if (e instanceof UsageError || (e instanceof TypeError && 'code' in e && String(e.code).startsWith('ERR_PARSE_ARGS'))) {
      say(`${e.message}\n\n${CONFORMANCE_USAGE}`);
      return 2;
    }
    if (isScenarioLoadError(e) || e instanceof ClientConfigError || (e instanceof Error && /ENOENT/.test(e.message))) {
      say(e.message);
      return 2;
    }
    throw e;
  } finally {
    await close?.();
  }
}
