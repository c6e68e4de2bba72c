import type { RunReport } from '../runner.js';
import type { ScenarioResult } from '../types.js';

/** Which scenarios' request traces the JSON report keeps (`--report-traces`). */
export const REPORT_TRACES = ['failed', 'all'] as const;
export type ReportTraces = (typeof REPORT_TRACES)[number];

/**
 * The JSON report: the whole run and every result, for tools to read. A passing run's traces are
 * megabytes no one reads, so by default only failed scenarios (known-failing ones included) keep
 * theirs; the others have no `trace` key, and `traces` at the top says which were kept.
 */
export function formatJsonReport(report: RunReport, options: { traces?: ReportTraces } = {}): string {
  const traces = options.traces ?? 'failed';
  const keeps = (r: ScenarioResult): boolean => traces === 'all' || r.outcome === 'failed' || Boolean(r.knownFailing);
  return `${JSON.stringify(
    {
      server: report.server,
      prefix: report.prefix,
      startedAt: report.startedAt,
      millis: report.millis,
      summary: report.summary,
      leftovers: report.leftovers,
      traces,
      results: report.results.map((r) => {
        if (keeps(r)) return r;
        const { trace: _omitted, ...rest } = r;
        return rest;
      }),
    },
    null,
    2,
  )}\n`;
}
