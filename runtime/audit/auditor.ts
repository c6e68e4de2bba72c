import { type AuditBackend, type AuditClock, type AuditRequestInfo, RequestRecorder } from './event.js';
import type { AuditPolicy } from './policy.js';

/**
 * Annotation keys the server sets on events (upstream's `k8s.io/deprecated` and authorization
 * annotations) as the spec names them; a server sets them under its group suffix.
 */
export const ANNOTATIONS = {
  deprecated: 'svc.io/deprecated',
  removedRelease: 'svc.io/removed-release',
  authorizationDecision: 'authorization.svc.io/decision',
  authorizationReason: 'authorization.svc.io/reason',
} as const;

export interface AuditorOptions {
  clock?: AuditClock;
  /**
   * Hears of an event the backend could not take (a full disk): the request is still served, as
   * upstream's log backend reports the error and goes on. Default: one line on stderr.
   */
  onError?: (error: unknown) => void;
}

/** A policy and where its events go: one recorder per request. */
export class Auditor {
  readonly #safe: AuditBackend;
  readonly #clock: AuditClock | undefined;

  constructor(
    readonly policy: AuditPolicy,
    readonly backend: AuditBackend,
    options: AuditorOptions = {},
  ) {
    const onError =
      options.onError ?? ((e) => process.stderr.write(`svckit: the audit backend failed: ${(e as Error)?.message ?? String(e)}\n`));
    this.#clock = options.clock;
    this.#safe = {
      process: (event) => {
        try {
          backend.process(event);
        } catch (e) {
          onError(e);
        }
      },
    };
  }

  /** Closes the backend (a log file). */
  close(): void {
    this.backend.close?.();
  }

  /** Starts the audit of a request: the policy decides the level once, here. `counted` hears of each event sent. */
  begin(info: AuditRequestInfo, counted?: () => void): RequestRecorder {
    const safe = this.#safe;
    const backend: AuditBackend = counted
      ? {
          process: (event) => {
            counted();
            safe.process(event);
          },
        }
      : safe;
    return new RequestRecorder(info, this.policy.evaluate(info), backend, this.#clock);
  }
}
