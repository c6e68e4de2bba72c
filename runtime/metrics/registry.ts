/**
 * Metrics with stability classes, over prom-client: the help text says the class (`[STABLE]`,
 * `[ALPHA]`) and a deprecation (`(Deprecated from 1.29)`), and a deprecated metric is hidden (not
 * registered, so not exported) once the release it was deprecated in is three releases back, as
 * the spec's Versioning section says, unless `--show-hidden-metrics-for-version` re-enables it.
 */
import { createRequire } from 'node:module';
import type * as PromClient from 'prom-client';
import { LatencyHistogram } from './latency-histogram.js';

/*
 * The four classes used here, required from prom-client's files (lib/counter.js and so on; the
 * package has no exports map) rather than its index, which also loads the default process
 * metrics (and through them @opentelemetry/api), Summary, the Pushgateway and the cluster
 * aggregator: some 80 files that no server uses and every `svckit serve` would load (issue 27).
 * registry.test.ts fails if a prom-client release moves them.
 */
const requireFile = createRequire(import.meta.url);
const Registry = requireFile('prom-client/lib/registry') as typeof PromClient.Registry;
const Counter = requireFile('prom-client/lib/counter') as typeof PromClient.Counter;
const Gauge = requireFile('prom-client/lib/gauge') as typeof PromClient.Gauge;
const Histogram = requireFile('prom-client/lib/histogram') as typeof PromClient.Histogram;
type Counter<L extends string> = PromClient.Counter<L>;
type Gauge<L extends string> = PromClient.Gauge<L>;
type Histogram<L extends string> = PromClient.Histogram<L>;

export type StabilityLevel = 'ALPHA' | 'BETA' | 'STABLE';

export interface MetricOptions<L extends string> {
  name: string;
  help: string;
  labelNames?: readonly L[];
  stability: StabilityLevel;
  /** The release (`1.29`) that deprecated the metric. */
  deprecatedVersion?: string;
}

export interface MetricRegistryOptions {
  /** The release the server acts as (`1.30`). */
  release: string;
  /** `--show-hidden-metrics-for-version`: the previous minor release, whose visible metrics are shown again. */
  showHiddenMetricsForVersion?: string;
}

/** A bad `--show-hidden-metrics-for-version`. */
export class MetricsOptionError extends Error {
  override readonly name = 'MetricsOptionError';
}

/** Releases after deprecation at which a metric becomes hidden (the spec: "current release minus 3"). */
const HIDDEN_AFTER = 3;

/** A registry of one server's metrics (not prom-client's global one: a process may run several servers). */
export class MetricRegistry {
  readonly registry = new Registry();
  readonly #release: [number, number];
  readonly #shownFor: [number, number] | undefined;

  constructor(options: MetricRegistryOptions) {
    this.#release = minorVersion(options.release, 'release');
    const shown = options.showHiddenMetricsForVersion;
    if (shown !== undefined && shown !== '') {
      const v = minorVersion(shown, '--show-hidden-metrics-for-version');
      const [major, minor] = this.#release;
      // As upstream: only the previous minor release is meaningful; anything else is a mistake.
      if (v[0] !== major || v[1] !== minor - 1)
        throw new MetricsOptionError(
          `--show-hidden-metrics-for-version ${shown}: must be the previous minor release, ${major}.${minor - 1}`,
        );
      this.#shownFor = v;
    }
  }

  /** Whether a metric deprecated in `version` is exported by this server. */
  visible(deprecatedVersion: string | undefined): boolean {
    if (deprecatedVersion === undefined) return true;
    const d = minorVersion(deprecatedVersion, 'deprecatedVersion');
    const visibleAt = (r: [number, number]) => r[0] !== d[0] || r[1] - d[1] < HIDDEN_AFTER;
    return visibleAt(this.#release) || (this.#shownFor !== undefined && visibleAt(this.#shownFor));
  }

  counter<L extends string>(o: MetricOptions<L> & { collect?: (this: Counter<L>) => void }): Counter<L> {
    return new Counter<L>({ ...this.#common(o), ...(o.collect ? { collect: o.collect } : {}) });
  }

  gauge<L extends string>(o: MetricOptions<L> & { collect?: (this: Gauge<L>) => void | Promise<void> }): Gauge<L> {
    return new Gauge<L>({ ...this.#common(o), ...(o.collect ? { collect: o.collect } : {}) });
  }

  histogram<L extends string>(o: MetricOptions<L> & { buckets: number[] }): Histogram<L> {
    return new Histogram<L>({ ...this.#common(o), buckets: o.buckets });
  }

  /** A histogram of a hot path ({@link LatencyHistogram}), registered beside prom-client's own metrics. */
  latencyHistogram<L extends string>(o: MetricOptions<L> & { buckets: readonly number[] }): LatencyHistogram<L> {
    const { name, help, registers } = this.#common(o);
    const histogram = new LatencyHistogram<L>(name, help, o.buckets);
    for (const r of registers) r.registerMetric(histogram as unknown as PromClient.Metric);
    return histogram;
  }

  /** The Prometheus text exposition of every visible metric. */
  async text(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  #common<L extends string>(o: MetricOptions<L>) {
    const deprecation = o.deprecatedVersion === undefined ? '' : `(Deprecated from ${o.deprecatedVersion}) `;
    return {
      name: o.name,
      help: `[${o.stability}] ${deprecation}${o.help}`,
      labelNames: o.labelNames ?? [],
      // A hidden metric still takes observations (callers need not know), it is just not exported.
      registers: this.visible(o.deprecatedVersion) ? [this.registry] : [],
    };
  }
}

function minorVersion(text: string, what: string): [number, number] {
  const m = /^v?(\d+)\.(\d+)(\.\d+)?$/.exec(text.trim());
  if (!m) throw new MetricsOptionError(`${what} ${JSON.stringify(text)}: expected a release such as 1.29`);
  return [Number(m[1]), Number(m[2])];
}
