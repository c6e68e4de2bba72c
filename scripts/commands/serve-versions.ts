import { isFeatureGateError, parseFeatureGates } from '../../runtime/features/index.js';
import type { KindRegistration } from '../../runtime/schema/index.js';
import { isRuntimeConfigError, parseRuntimeConfig } from '../../runtime/server/index.js';
import type { ReferenceServerOptions } from '../../reference/index.js';
import { UsageError } from './usage-error.js';

/** The `svckit serve` flags of versions and features, as a parseArgs option fragment. */
export const SERVE_VERSION_OPTIONS = {
  'runtime-config': { type: 'string', default: '' },
  'feature-gates': { type: 'string', default: '' },
} as const;

export const SERVE_VERSION_USAGE = '[--runtime-config batch/v1beta1=true,...] [--feature-gates WatchList=true,...]';

/**
 * `--runtime-config` and `--feature-gates` checked against the kinds and the known gates: a typo
 * or a bad value is a usage error naming what is accepted, before anything starts. Returns the
 * server options and the warnings to print (GA gates set explicitly).
 */
export function serveVersionOptions(
  values: { 'runtime-config'?: string; 'feature-gates'?: string },
  kinds: readonly KindRegistration[],
): { options: Pick<ReferenceServerOptions, 'runtimeConfig' | 'featureGates'>; warnings: string[] } {
  const runtimeConfig = values['runtime-config'] ?? '';
  try {
    parseRuntimeConfig(runtimeConfig, kinds);
    const { gates, warnings } = parseFeatureGates(values['feature-gates'] ?? '');
    return { options: { runtimeConfig, featureGates: gates }, warnings };
  } catch (e) {
    if (isRuntimeConfigError(e)) throw new UsageError(e.message);
    if (isFeatureGateError(e)) throw new UsageError(`--feature-gates: ${e.message}`);
    throw e;
  }
}
