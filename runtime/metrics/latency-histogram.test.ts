import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MetricRegistry } from './index.js';
import { parsePrometheusText, type Sample } from './prometheus-text.testing.js';

const BUCKETS = [0.005, 0.025, 0.1, 1, 10];
const options = {
  name: 'svc_latency_seconds',
  help: 'Latency.',
  labelNames: ['verb', 'code'] as const,
  stability: 'STABLE' as const,
  buckets: BUCKETS,
};

/** The exposition's samples, in one order whatever order each exporter wrote them and their labels in. */
async function samplesOf(r: MetricRegistry): Promise<string[]> {
  const family = parsePrometheusText(await r.text()).get('svc_latency_seconds');
  expect(family?.type).toBe('histogram');
  expect(family?.help).toBe('[STABLE] Latency.');
  const line = (s: Sample) =>
    `${s.name}{${Object.entries(s.labels)
      .sort()
      .map(([k, v]) => `${k}=${v}`)
      .join(',')}} ${s.value}`;
  return (family?.samples ?? []).map(line).sort();
}

describe('LatencyHistogram', () => {
  it('exports what the Histogram of prom-client exports for the same observations, values on the bounds included', async () => {
    const observation = fc.record({
      verb: fc.constantFrom('GET', 'LIST', 'POST'),
      code: fc.constantFrom('200', '404'),
      seconds: fc.oneof(fc.constantFrom(0, ...BUCKETS, 60), fc.double({ min: 0, max: 100, noNaN: true })),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(observation, { maxLength: 40 }), async (observations) => {
        const theirs = new MetricRegistry({ release: '1.30' });
        const ours = new MetricRegistry({ release: '1.30' });
        const reference = theirs.histogram(options);
        const fast = ours.latencyHistogram(options);
        for (const { verb, code, seconds } of observations) {
          reference.observe({ verb, code }, seconds);
          fast.observe(`${verb} ${code}`, { verb, code }, seconds);
        }
        expect(await samplesOf(ours)).toEqual(await samplesOf(theirs));
      }),
      { numRuns: 50 },
    );
  });

  it('is hidden as any metric is once its deprecation is three releases back', async () => {
    const r = new MetricRegistry({ release: '1.30' });
    r.latencyHistogram({ ...options, deprecatedVersion: '1.27' }).observe('GET', { verb: 'GET', code: '200' }, 1);
    expect(parsePrometheusText(await r.text()).has('svc_latency_seconds')).toBe(false);
  });
});
