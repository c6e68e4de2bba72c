import type { RunReport } from '../runner.js';
import { areaCounts, formatTrace } from './terminal.js';

/** JUnit XML for CI: one testsuite per area, one testcase per scenario. */

export function escapeXml(text: string): string {
  // Characters XML 1.0 cannot carry at all are dropped; the rest are escaped.
  return text
    .replace(/[^\x09\x0a\x0d\x20-\ud7ff\ue000-\ufffd\u{10000}-\u{10ffff}]/gu, '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;');
}

export function formatJunitReport(report: RunReport): string {
  const out: string[] = ['<?xml version="1.0" encoding="UTF-8"?>'];
  const s = report.summary;
  out.push(
    `<testsuites name="svckit conformance" tests="${report.results.length}" failures="${s.failed}" skipped="${s.skipped}" time="${(report.millis / 1000).toFixed(3)}">`,
  );
  for (const [area, c] of areaCounts(report.results)) {
    const cases = report.results.filter((r) => r.area === area);
    const time = cases.reduce((t, r) => t + r.millis, 0) / 1000;
    out.push(
      `  <testsuite name="${escapeXml(area)}" tests="${cases.length}" failures="${c.failed}" skipped="${c.skipped}" errors="0" time="${time.toFixed(3)}">`,
    );
    for (const r of cases) {
      out.push(`    <testcase classname="${escapeXml(area)}" name="${escapeXml(r.id)}" time="${(r.millis / 1000).toFixed(3)}">`);
      out.push('      <properties>');
      for (const rule of r.rules) out.push(`        <property name="rule" value="${escapeXml(rule)}"/>`);
      out.push('      </properties>');
      if (r.outcome === 'failed') {
        const detail = [
          `rule: ${r.rules.join('; ')}`,
          `${r.step !== undefined ? `step ${r.step}: ` : ''}${r.message ?? ''}`,
          ...r.trace.flatMap((t) => formatTrace(t, 2000)),
        ].join('\n');
        out.push(
          `      <failure message="${escapeXml(r.message ?? 'failed')}" type="${r.knownFailing ? 'StaleKnownFailing' : 'ExpectationFailed'}">${escapeXml(detail)}</failure>`,
        );
      } else if (r.outcome === 'skipped') {
        out.push(`      <skipped message="${escapeXml(r.message ?? 'skipped')}"/>`);
      }
      out.push('    </testcase>');
    }
    out.push('  </testsuite>');
  }
  out.push('</testsuites>');
  return `${out.join('\n')}\n`;
}
