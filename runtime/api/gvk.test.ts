import { describe, expect, it } from 'vitest';
import { apiVersionOf, isKind } from './index.js';

describe('isKind', () => {
  it('matches apiVersion and kind exactly', () => {
    expect(isKind({ apiVersion: 'batch/v1', kind: 'CronJob' }, 'batch/v1', 'CronJob')).toBe(true);
    expect(isKind({ apiVersion: 'batch/v1beta1', kind: 'CronJob' }, 'batch/v1', 'CronJob')).toBe(false);
    expect(isKind({ apiVersion: 'batch/v1', kind: 'Job' }, 'batch/v1', 'CronJob')).toBe(false);
  });

  it('rejects non-objects', () => {
    for (const v of [null, undefined, 'CronJob', 3, ['batch/v1', 'CronJob']]) expect(isKind(v, 'batch/v1', 'CronJob')).toBe(false);
  });
});

describe('apiVersionOf', () => {
  it('omits the empty core group', () => {
    expect(apiVersionOf({ group: '', version: 'v1' })).toBe('v1');
    expect(apiVersionOf({ group: 'batch', version: 'v1' })).toBe('batch/v1');
  });
});
