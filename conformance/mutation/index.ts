/**
 * The mutation check's parts: the catalogue of rule-breaking mutations, the proxy that applies one
 * between the runner and a server, and the verdict on whether the suite caught it. The check itself
 * is `scripts/checks/mutation.ts` (`npm run mutation`).
 */
export { MUTATIONS } from './mutations.js';
export { startMutationProxy, type MutationProxy, type MutationProxyOptions } from './proxy.js';
export type { Mutation } from './types.js';
export { catalogueProblems, compactIds, judge, readReportResults, sampleOthers, type ScenarioOutcome, type Verdict } from './verdict.js';
