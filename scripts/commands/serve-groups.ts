import { SPEC_GROUP_SUFFIX, groupSuffixProblem } from '../../runtime/api/index.js';
import type { KindRegistration } from '../../runtime/schema/index.js';
import { withGroupSuffix } from '../../runtime/server/index.js';
import { UsageError } from './usage-error.js';

/** `--group-suffix` of `svckit serve` and `svckit codegen`, as a parseArgs option fragment. */
export const GROUP_SUFFIX_OPTIONS = {
  'group-suffix': { type: 'string', default: SPEC_GROUP_SUFFIX },
} as const;

export const GROUP_SUFFIX_USAGE = '[--group-suffix svc.io|k8s.io]';

/** The suffix the spec's groups are named with (`k8s.io`: the real system's names); a bad one is a usage error. */
export function groupSuffixFromFlags(values: { 'group-suffix'?: string }): string {
  const suffix = (values['group-suffix'] ?? SPEC_GROUP_SUFFIX).replace(/^\./, '');
  const problem = groupSuffixProblem(suffix);
  if (problem) throw new UsageError(`--group-suffix: ${problem}`);
  return suffix;
}

/** The kinds as a server started with `suffix` names them (for checking flags that name groups, such as `--runtime-config`). */
export function kindsAsServed(kinds: readonly KindRegistration[], suffix: string): readonly KindRegistration[] {
  return withGroupSuffix({ kinds }, suffix).kinds;
}
