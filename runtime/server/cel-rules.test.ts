import { describe, expect, it } from 'vitest';
import { allKinds } from '../../generated/kinds.js';
import { checkRules } from './cel-rules.js';

describe('the CEL rules of the built-in kinds', () => {
  // `svckit serve` compiles a kind's rules on its first write, not at start: this is where a
  // built-in rule that does not compile is caught.
  it('all compile', () => {
    expect(checkRules(allKinds)).toEqual([]);
  });
});
