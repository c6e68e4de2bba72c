import { describe, expect, it } from 'vitest';
import type { KindRegistration } from '../schema/index.js';
import { rulesRunAfter } from './kind-rules.js';

const custom = { resource: { custom: true } } as unknown as KindRegistration;
const builtIn = { resource: { custom: false } } as unknown as KindRegistration;

describe('rulesRunAfter', () => {
  it("runs a custom resource's rules after errors that leave the value readable, as upstream", () => {
    expect(rulesRunAfter(custom, [])).toBe(true);
    expect(rulesRunAfter(custom, [{ type: 'FieldValueTooMany' }, { type: 'FieldValueRequired' }, { type: 'FieldValueInvalid' }])).toBe(
      true,
    );
  });

  it('stops them after a wrong type or a value outside its enum', () => {
    expect(rulesRunAfter(custom, [{ type: 'FieldValueTooMany' }, { type: 'FieldValueTypeInvalid' }])).toBe(false);
    expect(rulesRunAfter(custom, [{ type: 'FieldValueNotSupported' }])).toBe(false);
  });

  it("runs a built-in kind's rules after errors that leave the value readable, so every finding comes at once", () => {
    expect(rulesRunAfter(builtIn, [])).toBe(true);
    expect(rulesRunAfter(builtIn, [{ type: 'FieldValueTooMany' }, { type: 'FieldValueInvalid' }])).toBe(true);
  });

  it("stops a built-in kind's rules after a missing required field too, which its compiled validation reads unguarded", () => {
    expect(rulesRunAfter(builtIn, [{ type: 'FieldValueRequired' }])).toBe(false);
    expect(rulesRunAfter(builtIn, [{ type: 'FieldValueTypeInvalid' }])).toBe(false);
  });
});
