import { describe, expect, it } from 'vitest';
import { type LabelSelector, selectorMatches } from './label-selector.js';

const labels = { app: 'web', tier: 'front' };

describe('selectorMatches', () => {
  it.each([
    [{}, true],
    [{ matchLabels: { app: 'web' } }, true],
    [{ matchLabels: { app: 'db' } }, false],
    [{ matchLabels: { app: 'web', tier: 'back' } }, false],
    [{ matchExpressions: [{ key: 'app', operator: 'In', values: ['web', 'api'] }] }, true],
    [{ matchExpressions: [{ key: 'app', operator: 'In', values: ['api'] }] }, false],
    [{ matchExpressions: [{ key: 'app', operator: 'NotIn', values: ['api'] }] }, true],
    [{ matchExpressions: [{ key: 'missing', operator: 'NotIn', values: ['x'] }] }, true],
    [{ matchExpressions: [{ key: 'tier', operator: 'Exists' }] }, true],
    [{ matchExpressions: [{ key: 'tier', operator: 'DoesNotExist' }] }, false],
    [{ matchExpressions: [{ key: 'tier', operator: 'Gt', values: ['1'] }] }, false],
  ] as [LabelSelector, boolean][])('%j -> %j', (selector, expected) => {
    expect(selectorMatches(selector, labels)).toBe(expected);
  });
});
