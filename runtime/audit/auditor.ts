import { type AuditBackend, type AuditClock, type AuditRequestInfo, RequestRecorder } from './event.js';
import type { AuditPolicy } from './policy.js';

/** Annotation keys the server sets on events (upstream's `k8s.io/deprecated` and authorization annotations, in svc.io names). */
export const ANNOTATIONS = {
  deprecated: 'svc.io/deprecated',
  removedRelease: 'svc.io/removed-release',
  authorizationDecision: 'authorization.svc.io/decision',
  authorizationReason: 'authorization.svc.io/reason',
} as const;

/** A policy and where its events go: one recorder per request. */
export class Auditor {
  constructor(
    readonly policy: AuditPolicy,
    readonly backend: AuditBackend,
    private readonly clock?: AuditClock,
  ) {}

  /** Closes the backend (a log file). */
  close(): void {
    this.backend.close?.();
  }

  /** Starts the audit of a request: the policy decides the level once, here. `counted` hears of each event sent. */
  begin(info: AuditRequestInfo, counted?: () => void): RequestRecorder {
    const backend: AuditBackend = counted
      ? {
          process: (event) => {
            counted();
            this.backend.process(event);
          },
        }
      : this.backend;
    return new RequestRecorder(info, this.policy.evaluate(info), backend, this.clock);
  }
}
