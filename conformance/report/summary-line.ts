import type { RunSummary } from '../runner.js';

/** The closing line of every run, exactly `N passed, N failed, N skipped`. */
export function closingLine(s: Pick<RunSummary, 'passed' | 'failed' | 'skipped'>): string {
  return `${s.passed} passed, ${s.failed} failed, ${s.skipped} skipped`;
}
