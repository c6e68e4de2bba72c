import type { Stage } from '../chain.js';
import type { RequestAttributes } from '../context.js';
import { attributesOf } from './attributes.js';

/** Records requests (upstream's audit backend). */
export interface AuditSink {
  record(attributes: RequestAttributes): void;
}

/** Audit: hands each request's attributes to the sink. With no sink configured (the default) nothing is recorded. */
export function audit(sink: AuditSink | undefined): Stage {
  return {
    name: 'audit',
    async handle(ctx, next) {
      sink?.record(attributesOf(ctx));
      return next();
    },
  };
}
