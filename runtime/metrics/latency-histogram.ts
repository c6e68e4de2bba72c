/**
 * A histogram observed on every request (`apiserver_request_duration_seconds`). Its series are
 * kept by a key the caller has made anyway (the label values joined), each an array of bucket
 * counts, so an observation is a Map lookup and two additions; prom-client's Histogram checks and
 * hashes the label object on each one. It is a metric of prom-client's registry like the others:
 * the registry renders its values (`_bucket` with `le`, `_sum`, `_count`) as it renders its own
 * histograms'.
 */
export class LatencyHistogram<L extends string> {
  readonly type = 'histogram';
  readonly aggregator = 'sum';
  readonly #series = new Map<string, Series<L>>();

  constructor(
    readonly name: string,
    readonly help: string,
    /** Upper bounds, ascending; an observation above the last counts in `+Inf` alone. */
    readonly bounds: readonly number[],
  ) {}

  /** One observation in the series `key` (the caller's key of `labels`, kept when the series is new). */
  observe(key: string, labels: Readonly<Record<L, string>>, seconds: number): void {
    let series = this.#series.get(key);
    if (!series) this.#series.set(key, (series = { labels, counts: new Array<number>(this.bounds.length).fill(0), sum: 0, count: 0 }));
    // As prom-client's: a value equal to a bound counts in that bound's bucket.
    const bucket = this.bounds.findIndex((bound) => seconds <= bound);
    if (bucket !== -1) series.counts[bucket]!++;
    series.sum += seconds;
    series.count++;
  }

  /** The samples, in prom-client's form (what its registry asks every metric for). */
  get(): { name: string; help: string; type: 'histogram'; aggregator: 'sum'; values: Sample[] } {
    const values: Sample[] = [];
    for (const { labels, counts, sum, count } of this.#series.values()) {
      let cumulative = 0;
      this.bounds.forEach((bound, i) => {
        cumulative += counts[i]!;
        values.push({ metricName: `${this.name}_bucket`, labels: { ...labels, le: bound }, value: cumulative });
      });
      values.push(
        { metricName: `${this.name}_bucket`, labels: { ...labels, le: '+Inf' }, value: count },
        { metricName: `${this.name}_sum`, labels, value: sum },
        { metricName: `${this.name}_count`, labels, value: count },
      );
    }
    return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values };
  }
}

interface Series<L extends string> {
  labels: Readonly<Record<L, string>>;
  counts: number[];
  sum: number;
  count: number;
}

interface Sample {
  metricName: string;
  labels: Readonly<Record<string, string | number>>;
  value: number;
}
