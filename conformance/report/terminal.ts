/**
 * The terminal report: per-area counts, then every failure with its rule, the first expectation
 * that failed and the request/response trace (trimmed), then the closing line.
 */
import type { RunReport } from '../runner.js';
import type { ScenarioResult, TraceEntry } from '../types.js';
import { closingLine } from './summary-line.js';

export interface TerminalOptions {
  /** Characters of a body shown per trace entry. */
  bodyLimit?: number;
  /** Trace entries shown per failure (the last ones, where the failure is). */
  traceEntries?: number;
  color?: boolean;
}

function paint(on: boolean, code: string, text: string): string {
  return on ? `\x1b[${code}m${text}\x1b[0m` : text;
}

function trimBody(text: string, limit: number): string {
  const flat = text.replace(/\s*\n\s*/g, ' ');
  return flat.length > limit ? `${flat.slice(0, limit)}... (${flat.length} chars)` : flat;
}

function headerLines(headers: Record<string, string | string[]> | undefined, prefix: string): string[] {
  return Object.entries(headers ?? {}).map(([k, v]) => `${prefix}${k}: ${Array.isArray(v) ? v.join(', ') : v}`);
}

export function formatTrace(entry: TraceEntry, bodyLimit: number): string[] {
  const lines = [`  [${entry.step}] > ${entry.method} ${entry.url}`];
  lines.push(...headerLines(entry.requestHeaders, '      > '));
  if (entry.requestBody !== undefined) lines.push(`      > ${trimBody(entry.requestBody, bodyLimit)}`);
  if (entry.error) lines.push(`      ! ${entry.error}`);
  if (entry.status !== undefined) {
    lines.push(`      < ${entry.status} (${entry.millis} ms)`);
    lines.push(...headerLines(entry.responseHeaders, '      < '));
  }
  if (entry.responseBody !== undefined && entry.responseBody !== '') lines.push(`      < ${trimBody(entry.responseBody, bodyLimit)}`);
  for (const e of entry.events ?? []) lines.push(`      < event ${trimBody(e, Math.min(bodyLimit, 300))}`);
  return lines;
}

export function formatFailure(r: ScenarioResult, o: TerminalOptions = {}): string {
  const color = o.color ?? false;
  const lines = [paint(color, '31;1', `FAIL ${r.id}`) + (r.knownFailing ? ' (known-failing list)' : '')];
  r.rules.forEach((rule, i) => {
    const text = r.ruleTexts[i];
    lines.push(`  rule: ${rule}${text ? ` - ${text}` : ''}`);
  });
  lines.push(`  file: ${r.file}`);
  lines.push(`  ${r.step !== undefined ? `step ${r.step}: ` : ''}${r.message ?? 'failed'}`);
  const entries = r.trace.slice(-(o.traceEntries ?? 6));
  if (entries.length < r.trace.length) lines.push(`  trace (last ${entries.length} of ${r.trace.length} requests):`);
  else if (entries.length) lines.push('  trace:');
  for (const e of entries) lines.push(...formatTrace(e, o.bodyLimit ?? 600));
  return lines.join('\n');
}

export function areaCounts(results: readonly ScenarioResult[]): Map<string, { passed: number; failed: number; skipped: number }> {
  const out = new Map<string, { passed: number; failed: number; skipped: number }>();
  for (const r of results) {
    const c = out.get(r.area) ?? { passed: 0, failed: 0, skipped: 0 };
    c[r.outcome]++;
    out.set(r.area, c);
  }
  return new Map([...out.entries()].sort(([a], [b]) => a.localeCompare(b)));
}

export function formatTerminalReport(report: RunReport, o: TerminalOptions = {}): string {
  const color = o.color ?? false;
  const out: string[] = [];
  const failures = report.results.filter((r) => r.outcome === 'failed');
  for (const f of failures) out.push(formatFailure(f, o), '');
  out.push(`conformance against ${report.server} (run ${report.prefix}, ${(report.millis / 1000).toFixed(1)} s)`);
  const counts = areaCounts(report.results);
  const width = Math.max(0, ...[...counts.keys()].map((a) => a.length));
  for (const [area, c] of counts) {
    const mark = c.failed > 0 ? paint(color, '31', 'FAIL') : paint(color, '32', ' ok ');
    out.push(`  ${mark} ${area.padEnd(width)}  ${c.passed} passed, ${c.failed} failed, ${c.skipped} skipped`);
  }
  const skippedWhy = new Map<string, number>();
  for (const r of report.results) {
    if (r.outcome === 'skipped' && !r.knownFailing)
      skippedWhy.set(r.message ?? 'skipped', (skippedWhy.get(r.message ?? 'skipped') ?? 0) + 1);
  }
  if (skippedWhy.size) {
    out.push('skipped:');
    for (const [why, n] of [...skippedWhy.entries()].sort((a, b) => b[1] - a[1])) out.push(`  ${n} x ${why}`);
  }
  if (report.summary.knownFailing) out.push(`${report.summary.knownFailing} known failing (counted as skipped)`);
  if (report.leftovers.length) out.push(`cleanup could not remove: ${report.leftovers.join(', ')}`);
  out.push(closingLine(report.summary));
  return `${out.join('\n')}\n`;
}
