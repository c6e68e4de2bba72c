import type { Stage } from '../chain.js';
import type { AuthorizationRequest } from '../../auth/index.js';
import { accessRequestOf } from './attributes.js';

/** Records requests (upstream's audit backend). */
export interface AuditSink {
  record(request: AuthorizationRequest): void;
}

/** Audit: hands each request's user and attributes to the sink. With no sink configured (the default) nothing is recorded. */
export function audit(sink: AuditSink | undefined): Stage {
  return {
    name: 'audit',
    async handle(ctx, next) {
      sink?.record(accessRequestOf(ctx));
      return next();
    },
  };
}
