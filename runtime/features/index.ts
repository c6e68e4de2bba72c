/** Feature gates: the known gates of release 1.30 svckit honours, their stages and defaults, and `--feature-gates`. */
export {
  type FeatureName,
  type FeatureSpec,
  type FeatureStage,
  type ParsedFeatureGates,
  FeatureGateError,
  FeatureGates,
  KNOWN_FEATURES,
  isFeatureGateError,
  parseFeatureGates,
} from './feature-gates.js';
