/**
 * Feature gates as release 1.30 of the real system declares the ones svckit honours, and as the
 * spec's deprecation rules 9 and 10 stage them: an alpha gate is off by default, a beta gate on;
 * a GA gate is locked on (setting it false fails, setting it true warns that it is going away); a
 * deprecated gate warns on use. `--feature-gates` is parsed here, once.
 */
import { parseGoBool } from '../api/index.js';

export type FeatureStage = 'ALPHA' | 'BETA' | 'GA' | 'DEPRECATED';

export interface FeatureSpec {
  stage: FeatureStage;
  default: boolean;
  /** The value cannot be changed (GA gates, and deprecated ones that no longer do anything). */
  lockToDefault?: boolean;
  /** What svckit does differently with it. */
  description: string;
}

/** The gates of release 1.30 that change what svckit does, with their 1.30 stage and default. */
export const KNOWN_FEATURES = {
  APIListChunking: {
    stage: 'GA',
    default: true,
    lockToDefault: true,
    description: 'chunked lists (limit and continue); GA since 1.29',
  },
  APIResponseCompression: {
    stage: 'BETA',
    default: true,
    description: 'gzip of get and list responses over 128 KiB to clients that accept it',
  },
  ConsistentListFromCache: {
    stage: 'ALPHA',
    default: false,
    description: 'consistent lists served from the watch cache; svckit reads the store either way, so both values list the same',
  },
  EfficientWatchResumption: {
    stage: 'GA',
    default: true,
    lockToDefault: true,
    description: 'progress bookmarks, so a watch resumes from a recent version; GA since 1.24',
  },
  RemainingItemCount: {
    stage: 'GA',
    default: true,
    lockToDefault: true,
    description: 'metadata.remainingItemCount on chunked lists; GA since 1.29',
  },
  WatchList: {
    stage: 'ALPHA',
    default: false,
    description: 'watch with sendInitialEvents (a list as a stream of events); alpha since 1.27',
  },
} as const satisfies Record<string, FeatureSpec>;

export type FeatureName = keyof typeof KNOWN_FEATURES;

/** A `--feature-gates` value the server refuses to start with (unknown gate, bad value, locked gate). */
export class FeatureGateError extends Error {
  override readonly name = 'FeatureGateError';
}

export function isFeatureGateError(e: unknown): e is FeatureGateError {
  return e instanceof FeatureGateError;
}

/** The enabled state of every known gate: the defaults, with what `--feature-gates` set. */
export class FeatureGates {
  readonly #set: ReadonlyMap<FeatureName, boolean>;

  constructor(set: ReadonlyMap<FeatureName, boolean> = new Map()) {
    this.#set = set;
  }

  enabled(name: FeatureName): boolean {
    return this.#set.get(name) ?? KNOWN_FEATURES[name].default;
  }

  /** The gates set explicitly, as `Name=true,Other=false` (empty when all are at their defaults). */
  toString(): string {
    return [...this.#set].map(([k, v]) => `${k}=${v}`).join(',');
  }
}

export interface ParsedFeatureGates {
  gates: FeatureGates;
  /** What to tell the operator: GA or deprecated gates set explicitly. */
  warnings: string[];
}

/**
 * Parses `--feature-gates`: comma-separated `Name=value` pairs, a value being what the real
 * system's boolean parser takes (true, false, 1, 0, t, f, TRUE, ...). Throws {@link FeatureGateError}
 * naming the known gates for an unknown one, and refuses a value a locked gate cannot take.
 */
export function parseFeatureGates(text: string): ParsedFeatureGates {
  const set = new Map<FeatureName, boolean>();
  const warnings: string[] = [];
  for (const item of text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)) {
    const at = item.indexOf('=');
    if (at < 0) throw new FeatureGateError(`missing bool value for ${item} (expected ${item}=true or ${item}=false)`);
    const key = item.slice(0, at).trim();
    const raw = item.slice(at + 1).trim();
    if (!isKnown(key))
      throw new FeatureGateError(`unrecognized feature gate: ${key} (known gates: ${Object.keys(KNOWN_FEATURES).join(', ')})`);
    const value = parseGoBool(raw);
    if (value === undefined) throw new FeatureGateError(`invalid value of ${key}=${raw}: expected true or false`);
    const spec: FeatureSpec = KNOWN_FEATURES[key];
    if (spec.lockToDefault && value !== spec.default) {
      throw new FeatureGateError(`cannot set feature gate ${key} to ${value}, feature is locked to ${spec.default}`);
    }
    if (spec.stage === 'GA' || spec.stage === 'DEPRECATED') {
      const kind = spec.stage === 'GA' ? 'GA' : 'deprecated';
      const inert = spec.lockToDefault ? ' It is non-operational (locked to its default).' : '';
      warnings.push(`Setting ${kind} feature gate ${key}=${value}. It will be removed in a future release.${inert}`);
    }
    set.set(key, value);
  }
  return { gates: new FeatureGates(set), warnings };
}

function isKnown(key: string): key is FeatureName {
  return Object.hasOwn(KNOWN_FEATURES, key);
}
