import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningServer, startReferenceServer } from '../reference-server.js';
import { CRDS, createEstablished, jsonCaller } from './definitions.testing.js';

/**
 * CustomResourceDefinitions with inline allOf/anyOf/oneOf/not (value validations): accepted where
 * upstream's structural-schema rules accept them, refused with upstream's message and field path
 * where they do not (apiextensions' schema/validation.go and complete.go; expected texts from its
 * test/integration/validation_test.go, "forbidden in nested value validation").
 */
let server: RunningServer;
beforeAll(async () => {
  server = await startReferenceServer({ store: 'memory' });
});
afterAll(() => server.close());

const call = jsonCaller(() => server.url);
const ROOT = 'spec.versions[0].schema.openAPIV3Schema';

function crd(group: string, openAPIV3Schema: Record<string, unknown>) {
  return {
    apiVersion: 'apiextensions.svc.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `things.${group}` },
    spec: {
      group,
      scope: 'Namespaced',
      names: { plural: 'things', singular: 'thing', kind: 'Thing' },
      versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema } }],
    },
  };
}

async function refused(definition: unknown): Promise<string[]> {
  const res = await call('POST', CRDS, definition);
  expect(res.status, JSON.stringify(res.body)).toBe(422);
  return res.body.details.causes.map((c: { field: string; message: string }) => `${c.field}: ${c.message}`);
}

describe('a CustomResourceDefinition with value validations', () => {
  it("is accepted with istio's spellings: at most one of, int-or-string as anyOf, nested junctors", async () => {
    const spec = {
      type: 'object',
      properties: {
        file: { type: 'string' },
        secret: { type: 'string' },
        port: { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] },
      },
      oneOf: [{ not: { anyOf: [{ required: ['file'] }, { required: ['secret'] }] } }, { required: ['file'] }, { required: ['secret'] }],
      allOf: [{ oneOf: [{ required: ['port'] }, { properties: { port: { maxLength: 3 } } }] }],
    };
    const group = 'istio.example.io';
    await createEstablished(call, crd(group, { type: 'object', properties: { spec } }));
    // Published in the group's OpenAPI v3 document as written, as upstream's (value validations kept).
    const doc = (await call('GET', `/openapi/v3/apis/${group}/v1`)).body;
    const published = Object.values(doc.components.schemas as Record<string, { properties?: { spec?: unknown } }>).find(
      (s) => s.properties?.spec !== undefined,
    )?.properties?.spec as Record<string, unknown>;
    expect(published.oneOf).toEqual(spec.oneOf);
    expect(published.allOf).toEqual([{ oneOf: [{ required: ['port'] }, { properties: { port: { maxLength: 3 } } }] }]);
    const things = `/apis/${group}/v1/namespaces/default/things`;
    const thing = (name: string, body: Record<string, unknown>) => ({
      apiVersion: `${group}/v1`,
      kind: 'Thing',
      metadata: { name },
      spec: body,
    });
    expect((await call('POST', things, thing('one', { file: 'f', port: 'https' }))).status).toBe(201);
    const both = await call('POST', things, thing('both', { file: 'f', secret: 's' }));
    expect(both.status).toBe(422);
    expect(both.body.details.causes).toEqual([
      {
        reason: 'FieldValueInvalid',
        field: '<nil>',
        message: 'Invalid value: "": "spec" must validate one and only one schema (oneOf). Found 2 valid alternatives',
      },
    ]);
  });

  it("refuses a branch's type, additionalProperties, title, description and nullable as upstream does", async () => {
    // Upstream reports every one (sorted); the loader stops at the first: each cause is one of upstream's.
    const upstream = [
      `${ROOT}.anyOf[0].items.type: Forbidden: must be empty to be structural`,
      `${ROOT}.anyOf[0].items.additionalProperties: Forbidden: must be undefined to be structural`,
      `${ROOT}.anyOf[0].items.title: Forbidden: must be empty to be structural`,
      `${ROOT}.anyOf[0].items.description: Forbidden: must be empty to be structural`,
      `${ROOT}.anyOf[0].items.nullable: Forbidden: must be false to be structural`,
      `${ROOT}.allOf[0].properties[foo].type: Forbidden: must be empty to be structural`,
      `${ROOT}.allOf[0].properties[foo].additionalProperties: Forbidden: must be undefined to be structural`,
      `${ROOT}.allOf[0].properties[foo].title: Forbidden: must be empty to be structural`,
      `${ROOT}.allOf[0].properties[foo].description: Forbidden: must be empty to be structural`,
      `${ROOT}.allOf[0].properties[foo].nullable: Forbidden: must be false to be structural`,
      `${ROOT}.oneOf[0].properties[foo].type: Forbidden: must be empty to be structural`,
      `${ROOT}.not.type: Forbidden: must be empty to be structural`,
      `${ROOT}.items: Required value: because it is defined in ${ROOT}.anyOf[0].items`,
    ];
    const bad = { type: 'string', additionalProperties: true, title: 'hello', description: 'world', nullable: true };
    const causes = await refused(
      crd('forbidden.example.io', {
        type: 'object',
        properties: { foo: { type: 'string' } },
        not: { type: 'string' },
        allOf: [{ properties: { foo: bad } }],
        anyOf: [{ items: bad }],
        oneOf: [{ properties: { foo: bad } }],
      }),
    );
    expect(causes.length).toBeGreaterThan(0);
    for (const cause of causes) expect(upstream).toContain(cause);
  });

  it('refuses properties and items a branch names that the structure does not have', async () => {
    expect(await refused(crd('complete.example.io', { type: 'object', anyOf: [{ items: { minLength: 1 } }] }))).toEqual([
      `${ROOT}.items: Required value: because it is defined in ${ROOT}.anyOf[0].items`,
    ]);
    expect(
      await refused(
        crd('complete2.example.io', { type: 'object', properties: { a: { type: 'string' } }, oneOf: [{ properties: { b: {} } }] }),
      ),
    ).toEqual([`${ROOT}.properties[b]: Required value: because it is defined in ${ROOT}.oneOf[0].properties[b]`]);
  });

  it('refuses metadata, defaults, list types and CEL rules inside a branch', async () => {
    const spec = (branch: Record<string, unknown>) =>
      crd('nested.example.io', {
        type: 'object',
        properties: { spec: { type: 'object', properties: { a: { type: 'array', items: { type: 'string' } } }, allOf: [branch] } },
      });
    const at = `${ROOT}.properties[spec].allOf[0]`;
    expect(await refused(spec({ properties: { a: { 'x-kubernetes-list-type': 'set' } } }))).toEqual([
      `${at}.properties[a].x-kubernetes-list-type: Forbidden: must be undefined to be structural`,
    ]);
    expect(await refused(spec({ properties: { a: { default: ['x'] } } }))).toEqual([
      `${at}.properties[a].default: Forbidden: must be undefined to be structural`,
    ]);
    expect(await refused(spec({ 'x-kubernetes-validations': [{ rule: 'true' }] }))).toEqual([
      `${at}.x-kubernetes-validations: Forbidden: must be empty to be structural`,
    ]);
    const meta = crd('meta.example.io', {
      type: 'object',
      properties: { metadata: { type: 'object' } },
      anyOf: [{ properties: { metadata: {} } }],
    });
    expect(await refused(meta)).toEqual([`${ROOT}.anyOf[0].properties[metadata]: Forbidden: must not be specified in a nested context`]);
  });
});
