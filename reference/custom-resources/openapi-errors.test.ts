import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningServer, startReferenceServer } from '../reference-server.js';
import { createEstablished, jsonCaller } from './definitions.testing.js';

/**
 * A custom resource's OpenAPI value errors over HTTP, as a 1.30 server answers them: a 422 whose
 * message is `<Kind>.<group> "<name>" is invalid: [...]` and whose causes carry kube-openapi's
 * wording (apiextensions' kubeOpenAPIResultToFieldErrors). Expected texts follow kube-openapi's
 * pkg/validation/errors formats and apiextensions' validation_test.go expectations.
 */
let server: RunningServer;
beforeAll(async () => {
  server = await startReferenceServer({ store: 'memory' });
});
afterAll(() => server.close());

const call = jsonCaller(() => server.url);
const group = 'openapi.example.io';
const gadgets = `/apis/${group}/v1/namespaces/default/gadgets`;

const spec = {
  type: 'object',
  required: ['hostname'],
  properties: {
    hostname: { type: 'string', minLength: 1, maxLength: 10, pattern: '^[a-z]+$' },
    replicas: { type: 'integer', minimum: 1, maximum: 5 },
    big: { type: 'integer', format: 'int32' },
    ratio: { type: 'number', exclusiveMinimum: true, minimum: 0.5 },
    mode: { type: 'string', enum: ['a', 'b'] },
    tags: { type: 'array', minItems: 1, maxItems: 2, items: { type: 'string' } },
    labels: { type: 'object', minProperties: 1, maxProperties: 1, additionalProperties: { type: 'string' } },
    limits: { type: 'object', additionalProperties: { type: 'integer', minimum: 0 } },
    code: { type: 'string', anyOf: [{ pattern: '^a' }, { pattern: '^b' }] },
    since: { type: 'string', oneOf: [{ format: 'date' }, { format: 'date-time' }] },
    hosts: { type: 'array', items: { type: 'string' }, allOf: [{ items: { maxLength: 3 } }] },
    // istio's "at most one of" spelling: oneOf [not anyOf [required a, required b], required a, required b].
    tls: {
      type: 'object',
      properties: { file: { type: 'string' }, secret: { type: 'string' } },
      oneOf: [{ not: { anyOf: [{ required: ['file'] }, { required: ['secret'] }] } }, { required: ['file'] }, { required: ['secret'] }],
    },
    port: {
      type: 'object',
      properties: { number: { type: 'integer' }, name: { type: 'string', maxLength: 8 } },
      anyOf: [{ required: ['number'] }, { required: ['name'] }],
      allOf: [{ properties: { number: { maximum: 100 } } }],
      not: { required: ['name'], properties: { name: { enum: ['reserved'] } } },
    },
  },
};

const crd = {
  apiVersion: 'apiextensions.svc.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: `gadgets.${group}` },
  spec: {
    group,
    scope: 'Namespaced',
    names: { plural: 'gadgets', singular: 'gadget', kind: 'Gadget' },
    versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: { spec } } } }],
  },
};

const gadget = (name: string, body: Record<string, unknown>) => ({
  apiVersion: `${group}/v1`,
  kind: 'Gadget',
  metadata: { name },
  spec: { hostname: 'web', ...body },
});

async function causes(name: string, body: Record<string, unknown>): Promise<string[]> {
  const res = await call('POST', gadgets, gadget(name, body));
  expect(res.status, JSON.stringify(res.body)).toBe(422);
  expect(res.body.reason).toBe('Invalid');
  return res.body.details.causes.map((c: { field: string; message: string; reason: string }) => `${c.reason} ${c.field}: ${c.message}`);
}

describe('a custom resource refused by its OpenAPI schema', () => {
  beforeAll(() => createEstablished(call, crd));

  it('reads every constraint kind as kube-openapi words it', async () => {
    expect(await causes('lengths', { hostname: '' })).toEqual([
      // kube-openapi's string checks stop at the first failure: the pattern is not reported too.
      'FieldValueInvalid spec.hostname: Invalid value: "": spec.hostname in body should be at least 1 chars long',
    ]);
    expect(await causes('toolong', { hostname: 'abcdefghijk' })).toEqual([
      'FieldValueTooLong spec.hostname: Too long: may not be more than 10 bytes',
    ]);
    expect(await causes('pattern', { hostname: 'Web' })).toEqual([
      `FieldValueInvalid spec.hostname: Invalid value: "Web": spec.hostname in body should match '^[a-z]+$'`,
    ]);
    expect(await causes('bounds', { replicas: 0, ratio: 0.5 })).toEqual([
      'FieldValueInvalid spec.replicas: Invalid value: 0: spec.replicas in body should be greater than or equal to 1',
      'FieldValueInvalid spec.ratio: Invalid value: 0.5: spec.ratio in body should be greater than 0.5',
    ]);
    // kube-openapi checks no integer format: an int32 field of a custom resource takes 2^31.
    expect((await call('POST', gadgets, gadget('big', { big: 2 ** 31 }))).status).toBe(201);
    expect(await causes('upper', { replicas: 6 })).toEqual([
      'FieldValueInvalid spec.replicas: Invalid value: 6: spec.replicas in body should be less than or equal to 5',
    ]);
    expect(await causes('enum', { mode: 'x' })).toEqual([
      'FieldValueNotSupported spec.mode: Unsupported value: "x": supported values: "a", "b"',
    ]);
    expect(await causes('items', { tags: [] })).toEqual([
      'FieldValueInvalid spec.tags: Invalid value: 0: spec.tags in body should have at least 1 items',
    ]);
    expect(await causes('manyitems', { tags: ['a', 'b', 'c'] })).toEqual([
      'FieldValueTooMany spec.tags: Too many: 3: must have at most 2 items',
    ]);
    expect(await causes('props', { labels: {} })).toEqual([
      'FieldValueInvalid spec.labels: Invalid value: 0: spec.labels in body should have at least 1 properties',
    ]);
    // A map's value is named as a member (`limits.cpu`), as kube-openapi's object validator names it.
    expect(await causes('mapvalue', { limits: { cpu: -1 } })).toEqual([
      'FieldValueInvalid spec.limits.cpu: Invalid value: -1: spec.limits.cpu in body should be greater than or equal to 0',
    ]);
    expect(await causes('manyprops', { labels: { a: 'x', b: 'y' } })).toEqual([
      'FieldValueTooMany spec.labels: Too many: 2: must have at most 1 item',
    ]);
  });

  // The spec's error table makes a wrong type and a missing required field 400s (the first alone);
  // the wording is upstream's all the same.
  it('words a wrong type and a missing required field as upstream, in a 400 as the spec says', async () => {
    const typed = await call('POST', gadgets, gadget('typed', { hostname: 5 }));
    expect(typed.status).toBe(400);
    expect(typed.body.details.causes).toEqual([
      {
        reason: 'FieldValueTypeInvalid',
        message: 'spec.hostname: Invalid value: "integer": spec.hostname in body must be of type string: "integer"',
        field: 'spec.hostname',
      },
    ]);
    const res = await call('POST', gadgets, { apiVersion: `${group}/v1`, kind: 'Gadget', metadata: { name: 'norequired' }, spec: {} });
    expect(res.status).toBe(400);
    expect(res.body.details.causes).toEqual([
      { reason: 'FieldValueRequired', message: 'spec.hostname: Required value', field: 'spec.hostname' },
    ]);
  });

  it('aggregates several errors into one message, as field.ErrorList does', async () => {
    const res = await call('POST', gadgets, gadget('several', { replicas: 9, mode: 'x' }));
    expect(res.body.message).toBe(
      'Gadget.openapi.example.io "several" is invalid: [spec.replicas: Invalid value: 9: spec.replicas in body should be less than or equal to 5, spec.mode: Unsupported value: "x": supported values: "a", "b"]',
    );
  });

  it('enforces oneOf, anyOf, allOf and not with their composite errors at the nil path', async () => {
    expect((await call('POST', gadgets, gadget('tls-none', { tls: {} }))).status).toBe(201);
    expect((await call('POST', gadgets, gadget('tls-one', { tls: { file: 'f' } }))).status).toBe(201);
    expect(await causes('tls-both', { tls: { file: 'f', secret: 's' } })).toEqual([
      'FieldValueInvalid <nil>: Invalid value: "": "spec.tls" must validate one and only one schema (oneOf). Found 2 valid alternatives',
    ]);
    expect((await call('POST', gadgets, gadget('port-ok', { port: { number: 80 } }))).status).toBe(201);
    expect(await causes('port-empty', { port: {} })).toEqual([
      'FieldValueInvalid <nil>: Invalid value: "": "spec.port" must validate at least one schema (anyOf)',
      'FieldValueRequired spec.port.number: Required value',
    ]);
    expect(await causes('port-big', { port: { number: 101 } })).toEqual([
      'FieldValueInvalid spec.port.number: Invalid value: 101: spec.port.number in body should be less than or equal to 100',
      'FieldValueInvalid <nil>: Invalid value: "": "spec.port" must validate all the schemas (allOf). None validated',
    ]);
    // The junctors are checked before the object's properties, as kube-openapi's validators run.
    expect(await causes('port-order', { port: { number: 101, name: 'much-too-long' } })).toEqual([
      'FieldValueInvalid spec.port.number: Invalid value: 101: spec.port.number in body should be less than or equal to 100',
      'FieldValueInvalid <nil>: Invalid value: "": "spec.port" must validate all the schemas (allOf). None validated',
      'FieldValueTooLong spec.port.name: Too long: may not be more than 8 bytes',
    ]);
    // On a string and on a list's items, not only on objects.
    expect(await causes('code', { code: 'c' })).toEqual([
      'FieldValueInvalid <nil>: Invalid value: "": "spec.code" must validate at least one schema (anyOf)',
      `FieldValueInvalid spec.code: Invalid value: "c": spec.code in body should match '^a'`,
    ]);
    expect((await call('POST', gadgets, gadget('code-b', { code: 'b1' }))).status).toBe(201);
    expect((await call('POST', gadgets, gadget('since-date', { since: '2024-02-28' }))).status).toBe(201);
    expect(await causes('since', { since: 'yesterday' })).toEqual([
      'FieldValueInvalid <nil>: Invalid value: "": "spec.since" must validate one and only one schema (oneOf). Found none valid',
      'FieldValueInvalid spec.since: Invalid value: "yesterday": spec.since in body must be of type date: "yesterday"',
    ]);
    expect(await causes('hosts', { hosts: ['abc', 'abcd'] })).toEqual([
      'FieldValueTooLong spec.hosts[1]: Too long: may not be more than 3 bytes',
      'FieldValueInvalid <nil>: Invalid value: "": "spec.hosts" must validate all the schemas (allOf). None validated',
    ]);
    expect(await causes('port-reserved', { port: { name: 'reserved' } })).toEqual([
      'FieldValueInvalid <nil>: Invalid value: "": "spec.port" must not validate the schema (not)',
    ]);
  });
});
