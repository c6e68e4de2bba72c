/** The conformance kit's public face. */
export { runConformanceCli, CONFORMANCE_USAGE } from './cli.js';
export { readClientConfig, type ClientConfig } from './client-config.js';
export { exercisesOf, unionOf, writePathGaps, writePathProblems } from './coverage.js';
export { parseDuration, formatDuration } from './duration.js';
export { ExpectationFailed, ScenarioSkipped } from './errors.js';
export { matchesGlob } from './glob.js';
export { rewriteGroupSuffix } from './group-suffix.js';
export { HttpClient, type Credentials } from './http.js';
export { parseKnownFailing, readKnownFailing, type KnownFailing } from './known-failing.js';
export { DEFAULT_SCENARIO_DIR, loadScenarios, parseSuite, ScenarioLoadError, type CodeScenarioDefinition } from './load.js';
export { formatJsonReport, formatJunitReport, formatTerminalReport, closingLine } from './report/index.js';
export { readResources } from './resources.js';
export { readRules, type RuleCatalogue, type SpecRule } from './rules.js';
export { runScenarios, type RunOptions, type RunReport } from './runner.js';
export type { Exercises, Scenario, ScenarioContext, ScenarioResult } from './types.js';
