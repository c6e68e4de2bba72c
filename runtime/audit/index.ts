/**
 * runtime/audit: the audit policy (`audit.svc.io/v1` Policy), events and their backends. The
 * server's audit stage (`runtime/server/stages/audit.ts`) asks an {@link Auditor} for a recorder
 * per request and reports the stages; handlers only hand it the request object and annotations.
 */
export { ANNOTATIONS, Auditor, type AuditorOptions } from './auditor.js';
export {
  type LogFileOptions,
  LogFileAuditBackend,
  MemoryAuditBackend,
  StreamAuditBackend,
  unionBackend,
} from './backends.js';
export {
  AUDIT_API_VERSION,
  type AuditBackend,
  type AuditClock,
  type AuditEvent,
  type AuditObjectReference,
  type AuditRequestInfo,
  type AuditResponseStatus,
  type AuditUser,
  microTime,
  type RequestAudit,
  RequestRecorder,
} from './event.js';
export {
  type AuditDecision,
  AuditPolicy,
  AuditPolicyError,
  type GroupResourcesInput,
  isAuditPolicyError,
  type Level,
  LEVELS,
  levelAtLeast,
  type PolicyInput,
  type PolicyRuleInput,
  type PolicySubject,
  type Stage,
  STAGES,
} from './policy.js';
