import { describe, expect, it } from 'vitest';
import {
  GoLiteral,
  aggregateFieldErrors,
  fieldDuplicate,
  fieldErrorBody,
  fieldErrorMessage,
  fieldForbidden,
  fieldInternalError,
  fieldInvalid,
  fieldNotFound,
  fieldNotSupported,
  fieldRequired,
  fieldTooLong,
  fieldTooMany,
  fieldTypeInvalid,
} from './index.js';

describe('field error messages', () => {
  it.each([
    [fieldRequired('metadata.name', 'name or generateName is required'), 'metadata.name: Required value: name or generateName is required'],
    [fieldRequired('spec.containers'), 'spec.containers: Required value'],
    [fieldInvalid('metadata.name', 'Web_1', 'must be lowercase'), 'metadata.name: Invalid value: "Web_1": must be lowercase'],
    [
      fieldInvalid('spec.replicas', -1, 'must be greater than or equal to 0'),
      'spec.replicas: Invalid value: -1: must be greater than or equal to 0',
    ],
    [fieldInvalid('spec.paused', true, 'x'), 'spec.paused: Invalid value: true: x'],
    [fieldInvalid('spec.x', null, 'x'), 'spec.x: Invalid value: null: x'],
    [fieldInvalid('values', ['a', 'b'], 'x'), 'values: Invalid value: []string{"a", "b"}: x'],
    [fieldInvalid('spec.x', { a: 1 }, 'x'), 'spec.x: Invalid value: {"a":1}: x'],
    [
      fieldNotSupported('spec.restartPolicy', 'Sometimes', ['Always', 'Never']),
      'spec.restartPolicy: Unsupported value: "Sometimes": supported values: "Always", "Never"',
    ],
    [fieldNotSupported('spec.x', 'y', []), 'spec.x: Unsupported value: "y"'],
    [fieldDuplicate('spec.ports[1].name', 'http'), 'spec.ports[1].name: Duplicate value: "http"'],
    [fieldForbidden('spec.selector', 'field is immutable'), 'spec.selector: Forbidden: field is immutable'],
    [fieldTooLong('metadata.annotations', 'x'.repeat(10), 262144), 'metadata.annotations: Too long: may not be more than 262144 bytes'],
    [fieldTooMany('spec.items', 12, 10), 'spec.items: Too many: 12: must have at most 10 items'],
    [fieldTooMany('spec.items', 2, 1), 'spec.items: Too many: 2: must have at most 1 item'],
    [fieldTooLong('spec.x', 'ab', 1), 'spec.x: Too long: may not be more than 1 byte'],
    [fieldTooLong('spec.x', 'ab', -1), 'spec.x: Too long: value is too long'],
    [
      {
        type: 'FieldValueInvalid' as const,
        field: 'metadata.resourceVersion',
        badValue: new GoLiteral('0x0'),
        detail: 'must be specified for an update',
      },
      'metadata.resourceVersion: Invalid value: 0x0: must be specified for an update',
    ],
    [
      { type: 'FieldValueInvalid' as const, field: '', badValue: 'object', detail: 'failed rule: self.a', rule: 'self.a' },
      '<root>: Invalid value: "object": failed rule: self.a',
    ],
    [fieldTooMany('spec.items', -1, 10), 'spec.items: Too many: must have at most 10 items'],
    [fieldTooMany('spec.items', -1, -1), 'spec.items: Too many: has too many items'],
    [
      fieldTypeInvalid('spec.replicas', 'three', 'must be of type integer'),
      'spec.replicas: Invalid value: "three": must be of type integer',
    ],
    [fieldNotFound('spec.volume', 'data'), 'spec.volume: Not found: "data"'],
    [fieldInternalError('spec', new Error('boom')), 'spec: Internal error: boom'],
  ])('%# renders as the real system', (error, expected) => {
    expect(fieldErrorMessage(error)).toBe(expected);
    expect(expected.endsWith(fieldErrorBody(error))).toBe(true);
  });

  it('quotes strings as Go does', () => {
    expect(fieldErrorBody(fieldInvalid('f', 'a"b\\c\n\u0001é', 'd'))).toBe('Invalid value: "a\\"b\\\\c\\n\\x01é": d');
  });

  it('aggregates as the real system: one bare, several bracketed, duplicates once', () => {
    const a = fieldRequired('a');
    const b = fieldInvalid('b', 'x', 'bad');
    expect(aggregateFieldErrors([])).toBe('');
    expect(aggregateFieldErrors([a])).toBe('a: Required value');
    expect(aggregateFieldErrors([a, b, a])).toBe('[a: Required value, b: Invalid value: "x": bad]');
    expect(aggregateFieldErrors([a, a])).toBe('a: Required value');
  });
});
