import { describe, expect, it } from 'vitest';
import { MetricRegistry, MetricsOptionError } from './index.js';
import { parsePrometheusText } from './prometheus-text.testing.js';

/** A registry at 1.30 with a stable metric and metrics deprecated 1, 2 and 3 releases ago. */
async function exported(showHiddenMetricsForVersion?: string) {
  const r = new MetricRegistry({ release: '1.30', showHiddenMetricsForVersion });
  r.counter({ name: 'svc_stable_total', help: 'Stable.', stability: 'STABLE' }).inc();
  r.gauge({ name: 'svc_recent', help: 'Deprecated last release.', stability: 'ALPHA', deprecatedVersion: '1.29' }).set(2);
  r.gauge({ name: 'svc_older', help: 'Deprecated two releases ago.', stability: 'BETA', deprecatedVersion: '1.28' }).set(3);
  // Hidden at 1.30; it still takes observations.
  r.gauge({ name: 'svc_hidden', help: 'Deprecated three releases ago.', stability: 'STABLE', deprecatedVersion: '1.27' }).set(4);
  return parsePrometheusText(await r.text());
}

describe('metric stability classes', () => {
  it('prefixes the help text with the class and the deprecation', async () => {
    const families = await exported();
    expect(families.get('svc_stable_total')?.help).toBe('[STABLE] Stable.');
    expect(families.get('svc_recent')?.help).toBe('[ALPHA] (Deprecated from 1.29) Deprecated last release.');
    expect(families.get('svc_older')?.help).toBe('[BETA] (Deprecated from 1.28) Deprecated two releases ago.');
  });

  it('hides a metric deprecated three releases back; --show-hidden-metrics-for-version of the previous release shows it again', async () => {
    expect([...(await exported()).keys()].sort()).toEqual(['svc_older', 'svc_recent', 'svc_stable_total']);
    const shown = await exported('1.29');
    expect(shown.get('svc_hidden')?.samples[0]?.value).toBe(4);
    expect(shown.get('svc_hidden')?.help).toBe('[STABLE] (Deprecated from 1.27) Deprecated three releases ago.');
  });

  it('accepts only the previous minor release for --show-hidden-metrics-for-version', () => {
    expect(() => new MetricRegistry({ release: '1.30', showHiddenMetricsForVersion: '1.28' })).toThrow(
      new MetricsOptionError('--show-hidden-metrics-for-version 1.28: must be the previous minor release, 1.29'),
    );
    expect(() => new MetricRegistry({ release: '1.30', showHiddenMetricsForVersion: 'latest' })).toThrow(
      '--show-hidden-metrics-for-version "latest": expected a release such as 1.29',
    );
    expect(() => new MetricRegistry({ release: '1.30', showHiddenMetricsForVersion: 'v1.29' })).not.toThrow();
  });
});

describe('the strict text reader of the tests', () => {
  it('refuses what Prometheus refuses', () => {
    expect(() => parsePrometheusText('a 1\n')).toThrow('undeclared family');
    expect(() => parsePrometheusText('# TYPE a counter\na 1\n')).toThrow('TYPE before HELP');
    expect(() => parsePrometheusText('# HELP a x\n# TYPE a counter\na{b="\\x"} 1\n')).toThrow('bad escape');
    expect(() => parsePrometheusText('# HELP a x\n# TYPE a counter\na{b="c"} one\n')).toThrow('bad value');
    expect(() => parsePrometheusText('# HELP a x\n# TYPE a histogram\na_bucket{le="1"} 2\na_bucket{le="+Inf"} 1\na_count 1\n')).toThrow(
      'cumulative',
    );
    expect(parsePrometheusText('# HELP a x\n# TYPE a gauge\na{b="q\\"uote\\\\",c="d"} 1.5\n').get('a')?.samples).toEqual([
      { name: 'a', labels: { b: 'q"uote\\', c: 'd' }, value: 1.5 },
    ]);
  });
});
