import { describe, expect, it } from 'vitest';
import { FeatureGates, KNOWN_FEATURES, isFeatureGateError, parseFeatureGates } from './index.js';

function refused(text: string): string {
  try {
    parseFeatureGates(text);
  } catch (e) {
    expect(isFeatureGateError(e), String(e)).toBe(true);
    return (e as Error).message;
  }
  throw new Error(`${text} was accepted`);
}

describe('feature gates', () => {
  it('defaults each gate by its stage: alpha off, beta on, GA on', () => {
    const gates = new FeatureGates();
    for (const [name, spec] of Object.entries(KNOWN_FEATURES)) {
      expect(spec.default, name).toBe(spec.stage !== 'ALPHA');
      expect(gates.enabled(name as keyof typeof KNOWN_FEATURES)).toBe(spec.default);
    }
    expect(gates.enabled('WatchList')).toBe(false);
    expect(gates.enabled('APIResponseCompression')).toBe(true);
  });

  it('sets gates from --feature-gates, with the boolean spellings the real flag takes', () => {
    const { gates, warnings } = parseFeatureGates(' WatchList=true, APIResponseCompression=0 ,ConsistentListFromCache=T');
    expect(gates.enabled('WatchList')).toBe(true);
    expect(gates.enabled('APIResponseCompression')).toBe(false);
    expect(gates.enabled('ConsistentListFromCache')).toBe(true);
    expect(warnings).toEqual([]);
    expect(gates.toString()).toBe('WatchList=true,APIResponseCompression=false,ConsistentListFromCache=true');
    expect(parseFeatureGates('').gates.toString()).toBe('');
  });

  it('refuses an unknown gate naming the known ones, a bad value, a missing value', () => {
    expect(refused('WatchLists=true')).toBe(
      'unrecognized feature gate: WatchLists (known gates: APIListChunking, APIResponseCompression, ConsistentListFromCache, EfficientWatchResumption, RemainingItemCount, WatchList)',
    );
    expect(refused('WatchList=yes')).toBe('invalid value of WatchList=yes: expected true or false');
    expect(refused('WatchList')).toMatch(/^missing bool value for WatchList/);
    expect(refused('toString=true')).toMatch(/^unrecognized feature gate: toString/);
  });

  it('refuses to turn a GA gate off (locked) and warns when one is set to its value', () => {
    expect(refused('APIListChunking=false')).toBe('cannot set feature gate APIListChunking to false, feature is locked to true');
    const { gates, warnings } = parseFeatureGates('RemainingItemCount=true');
    expect(gates.enabled('RemainingItemCount')).toBe(true);
    expect(warnings).toEqual([
      'Setting GA feature gate RemainingItemCount=true. It will be removed in a future release. It is non-operational (locked to its default).',
    ]);
  });
});
