/**
 * `svckit serve`'s audit and metrics flags: the option fragment for parseArgs, and the mapping from
 * parsed values to ReferenceServerOptions fields (a policy file checked against its kind, the log
 * backend with rotation).
 */
import { readFileSync } from 'node:fs';
import { allKinds } from '../../generated/kinds.js';
import {
  type AuditBackend,
  AuditPolicy,
  Auditor,
  isAuditPolicyError,
  LogFileAuditBackend,
  type PolicyInput,
  StreamAuditBackend,
} from '../../runtime/audit/index.js';
import { DocumentValidator, textReport } from '../../runtime/documents/index.js';
import { MetricsOptionError, MetricRegistry } from '../../runtime/metrics/index.js';
import type { ReferenceServerOptions } from '../../reference/index.js';
import { UsageError } from './usage-error.js';

export const SERVE_AUDIT_USAGE = `[--audit-policy-file <policy.yaml>] [--audit-log-path <file>|-] [--audit-log-maxsize <MB>]
             [--audit-log-maxbackup <n>] [--audit-log-maxage <days>] [--show-hidden-metrics-for-version <1.29>]`;

/** The flags, for parseArgs's `options`. */
export const SERVE_AUDIT_OPTIONS = {
  'audit-policy-file': { type: 'string' },
  'audit-log-path': { type: 'string' },
  'audit-log-maxsize': { type: 'string', default: '0' },
  'audit-log-maxbackup': { type: 'string', default: '0' },
  'audit-log-maxage': { type: 'string', default: '0' },
  'show-hidden-metrics-for-version': { type: 'string' },
} as const;

export interface ServeAuditValues {
  'audit-policy-file'?: string;
  'audit-log-path'?: string;
  'audit-log-maxsize'?: string;
  'audit-log-maxbackup'?: string;
  'audit-log-maxage'?: string;
  'show-hidden-metrics-for-version'?: string;
}

/** What the flags add to the server, and `listening()`, called once the `listening on` line is out. */
export interface ServeAudit {
  options: Pick<ReferenceServerOptions, 'audit' | 'showHiddenMetricsForVersion'>;
  /** Audit lines for stdout wait for this, so `listening on` stays the first line. */
  listening(): void;
}

/**
 * Maps the flags. As upstream, audit needs both a policy and a backend: either alone records
 * nothing and says so on stderr.
 */
export function serveAuditOptions(values: ServeAuditValues, release: string, warn: (line: string) => void): ServeAudit {
  const shown = values['show-hidden-metrics-for-version'];
  if (shown !== undefined) {
    try {
      new MetricRegistry({ release, showHiddenMetricsForVersion: shown });
    } catch (e) {
      if (e instanceof MetricsOptionError) throw new UsageError(e.message);
      throw e;
    }
  }
  const rotation = {
    maxSizeMB: count('--audit-log-maxsize', values['audit-log-maxsize']),
    maxBackups: count('--audit-log-maxbackup', values['audit-log-maxbackup']),
    maxAgeDays: count('--audit-log-maxage', values['audit-log-maxage']),
  };
  const policyFile = values['audit-policy-file'];
  const logPath = values['audit-log-path'];
  const base = { ...(shown !== undefined ? { showHiddenMetricsForVersion: shown } : {}) };
  const policy = policyFile !== undefined ? loadPolicy(policyFile) : undefined;
  if (!policy || logPath === undefined || logPath === '') {
    if (policy) warn('svckit serve: --audit-policy-file without --audit-log-path: no audit backend, nothing is recorded');
    else if (logPath) warn('svckit serve: --audit-log-path without --audit-policy-file: no audit policy, nothing is recorded');
    return { options: base, listening: () => {} };
  }
  if (logPath === '-') {
    const held = new HeldLines((text) => process.stdout.write(text));
    return {
      options: { ...base, audit: new Auditor(policy, new StreamAuditBackend((l) => held.write(l))) },
      listening: () => held.release(),
    };
  }
  let backend: AuditBackend;
  try {
    backend = new LogFileAuditBackend(logPath, rotation);
  } catch (e) {
    throw new UsageError(`--audit-log-path ${logPath}: ${(e as Error).message}`);
  }
  return { options: { ...base, audit: new Auditor(policy, backend) }, listening: () => {} };
}

/** Reads a Policy file: one `audit.svc.io/v1` Policy, valid against its schema (unknown fields are errors) and as a policy. */
export function loadPolicy(file: string): AuditPolicy {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new UsageError(`--audit-policy-file ${file}: ${(e as Error).message}`);
  }
  const results = new DocumentValidator(allKinds).validateText(file, text, { strict: true, strictKinds: true, keepDocuments: true });
  const errors = results.filter((r) => r.status !== 'valid');
  if (errors.length > 0) throw new UsageError(`--audit-policy-file ${file} is not a valid policy:\n${textReport(errors)}`);
  const policies = results.filter((r) => r.apiVersion === 'audit.svc.io/v1' && r.kind === 'Policy');
  if (policies.length !== 1 || results.length !== 1)
    throw new UsageError(`--audit-policy-file ${file}: expected one document of kind Policy (audit.svc.io/v1), found ${describe(results)}`);
  try {
    return AuditPolicy.compile(policies[0]!.document as PolicyInput);
  } catch (e) {
    if (isAuditPolicyError(e)) throw new UsageError(`--audit-policy-file ${file}: ${e.message}`);
    throw e;
  }
}

function describe(results: readonly { apiVersion?: string; kind?: string }[]): string {
  if (results.length === 0) return 'no document';
  return results.map((r) => `${r.apiVersion ?? '?'} ${r.kind ?? '?'}`).join(', ');
}

function count(flag: string, text: string | undefined): number {
  const n = Number(text ?? '0');
  if (!Number.isInteger(n) || n < 0 || text?.trim() === '') throw new UsageError(`${flag} must be a whole number, 0 or more, not ${text}`);
  return n;
}

/** Lines held until `release()`, then written through. */
class HeldLines {
  #held: string[] | undefined = [];
  constructor(private readonly out: (text: string) => void) {}

  write(line: string): void {
    if (this.#held) this.#held.push(line);
    else this.out(line);
  }

  release(): void {
    const held = this.#held ?? [];
    this.#held = undefined;
    if (held.length > 0) this.out(held.join(''));
  }
}
