/** What one client suite reports: each case by name, and why it failed or was skipped. */
import type { SecureServer } from '../secure-serve.js';

export interface CaseOutcome {
  name: string;
  status: 'passed' | 'failed' | 'skipped';
  /** Why it failed (the request and answer where known) or why it was skipped. */
  reason?: string;
}

export interface ClientSuite {
  /** The name on the command line and before the closing line. */
  name: string;
  /** Runs the client against `server` (its own fresh one); throws only when the client cannot run. */
  run(server: SecureServer): Promise<CaseOutcome[]>;
}

/** `N passed, N failed, N skipped`: the closing line CI reads. */
export function tally(cases: readonly CaseOutcome[]): string {
  const count = (status: CaseOutcome['status']) => cases.filter((c) => c.status === status).length;
  return `${count('passed')} passed, ${count('failed')} failed, ${count('skipped')} skipped`;
}

/** The first lines of a long message, for a failure's reason. */
export function excerpt(text: string, lines = 6): string {
  const kept = text.trim().split('\n').slice(0, lines);
  return kept.map((l) => (l.length > 400 ? `${l.slice(0, 400)}…` : l)).join('\n');
}
