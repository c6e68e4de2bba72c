import type { RunReport } from '../runner.js';

/** The JSON report: the whole run, every result with its trace, for tools to read. */
export function formatJsonReport(report: RunReport): string {
  return `${JSON.stringify(
    {
      server: report.server,
      prefix: report.prefix,
      startedAt: report.startedAt,
      millis: report.millis,
      summary: report.summary,
      leftovers: report.leftovers,
      results: report.results,
    },
    null,
    2,
  )}\n`;
}
