import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningServer, startReferenceServer } from '../reference-server.js';
import { createStore } from '../../runtime/store/index.js';
import type { Json } from '../../runtime/server/server.testing.js';
import { CRDS, createEstablished, jsonCaller } from './definitions.testing.js';

/**
 * The `default`s of a CustomResourceDefinition's schema, checked when the definition is written
 * over HTTP as upstream's ValidateDefaults does: each rule a refused definition with upstream's
 * field path and the server's message for it; valid defaults still accepted and applied.
 */
let server: RunningServer;
beforeAll(async () => {
  server = await startReferenceServer({ store: 'memory' });
});
afterAll(() => server.close());

const ROOT = 'spec.versions[0].schema.openAPIV3Schema';
const SPEC = `${ROOT}.properties[spec]`;

const call = jsonCaller(() => server.url);

let serial = 0;

/** A definition of `gadgets` in a group of its own whose root schema has `properties` (and `spec` those given). */
function definition(spec: Record<string, unknown>, root: Record<string, unknown> = {}) {
  const group = `g${++serial}.example.io`;
  return {
    apiVersion: 'apiextensions.svc.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `gadgets.${group}` },
    spec: {
      group,
      scope: 'Namespaced',
      names: { plural: 'gadgets', singular: 'gadget', kind: 'Gadget' },
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: spec }, ...root } } },
        },
      ],
    },
  };
}

/** The causes of a refused definition as `<field> | <message>`. */
async function refused(crd: unknown): Promise<string[]> {
  const res = await call('POST', CRDS, crd);
  expect(res.status, JSON.stringify(res.body)).toBe(422);
  expect(res.body.reason).toBe('Invalid');
  return res.body.details.causes.map((c: { field: string; message: string }) => `${c.field} | ${c.message}`);
}

describe('a default that does not fit its schema refuses the definition', () => {
  it('by its type, with the path into the default below the property', async () => {
    expect(await refused(definition({ size: { type: 'integer', default: 'three' } }))).toEqual([
      // kube-openapi names values from the default's root: the default itself has the empty name.
      `${SPEC}.properties[size].default | Invalid value: "string":  in body must be of type integer: "string"`,
    ]);
    expect(
      await refused(definition({ target: { type: 'object', properties: { port: { type: 'integer' } }, default: { port: 'http' } } })),
    ).toEqual([`${SPEC}.properties[target].default.port | Invalid value: "string": port in body must be of type integer: "string"`]);
  });

  it('by its enum, pattern, format and bounds', async () => {
    expect(
      await refused(
        definition({
          color: { type: 'string', enum: ['red', 'blue'], default: 'purple' },
          code: { type: 'string', pattern: '^[A-Z]+$', default: 'abc' },
          since: { type: 'string', format: 'date-time', default: 'yesterday' },
          size: { type: 'integer', minimum: 1, maximum: 10, default: 11 },
          name: { type: 'string', maxLength: 3, default: 'long' },
          tags: { type: 'array', maxItems: 1, items: { type: 'string' }, default: ['a', 'b'] },
        }),
      ),
    ).toEqual([
      `${SPEC}.properties[color].default | Unsupported value: "purple": supported values: "red", "blue"`,
      `${SPEC}.properties[code].default | Invalid value: "abc":  in body should match '^[A-Z]+$'`,
      `${SPEC}.properties[since].default | Invalid value: "yesterday":  in body must be of type date-time: "yesterday"`,
      `${SPEC}.properties[size].default | Invalid value: 11:  in body should be less than or equal to 10`,
      `${SPEC}.properties[name].default | Too long: may not be more than 3 bytes`,
      `${SPEC}.properties[tags].default | Too many: 2: must have at most 1 item`,
    ]);
  });

  it('by a required field missing below it, and at a list item default (`items.default`)', async () => {
    expect(
      await refused(
        definition({
          owner: {
            type: 'object',
            required: ['name'],
            properties: { name: { type: 'string' }, team: { type: 'string' } },
            default: { team: 'a' },
          },
          ports: { type: 'array', items: { type: 'object', properties: { port: { type: 'integer' } }, default: { port: 'http' } } },
        }),
      ),
    ).toEqual([
      `${SPEC}.properties[owner].default.name | Required value`,
      `${SPEC}.properties[ports].items.default.port | Invalid value: "string": port in body must be of type integer: "string"`,
    ]);
  });

  it('when it has unknown fields (not pruned), unless its schema keeps them', async () => {
    expect(
      await refused(definition({ a: { type: 'object', properties: { foo: { type: 'string' } }, default: { foo: 'abc', bar: 42 } } })),
    ).toEqual([`${SPEC}.properties[a].default | Invalid value: {"foo":"abc","bar":42}: must not have unknown fields`]);
    const kept = definition({
      a: {
        type: 'object',
        'x-kubernetes-preserve-unknown-fields': true,
        properties: { foo: { type: 'string' } },
        default: { foo: 'abc', bar: 42 },
      },
    });
    expect((await call('POST', CRDS, kept)).status).toBe(201);
  });

  it('when null where the schema is not nullable', async () => {
    expect(await refused(definition({ note: { type: 'string', default: null } }))).toEqual([
      `${SPEC}.properties[note].default | Invalid value: "null":  in body must be of type string: "null"`,
    ]);
    expect((await call('POST', CRDS, definition({ note: { type: 'string', nullable: true, default: null } }))).status).toBe(201);
  });

  it('when it fails the CEL rules of its schema (the rule, or its message), evaluated on the default', async () => {
    expect(
      await refused(
        definition({
          value: { type: 'string', default: 'everything', 'x-kubernetes-validations': [{ rule: "self.startsWith('kube')" }] },
          range: {
            type: 'object',
            properties: { low: { type: 'integer' }, high: { type: 'integer' } },
            'x-kubernetes-validations': [{ rule: 'self.low < self.high', message: 'low must be below high' }],
            default: { low: 2, high: 1 },
          },
          ratcheted: {
            type: 'string',
            default: 'x',
            'x-kubernetes-validations': [{ rule: 'oldSelf.hasValue()', optionalOldSelf: true, message: 'set only on update' }],
          },
          nested: {
            type: 'object',
            properties: {
              n: {
                type: 'integer',
                'x-kubernetes-validations': [{ rule: 'self > 0', messageExpression: "self < 0 ? 'n is negative' : 'n is zero'" }],
              },
            },
            default: { n: -1 },
          },
        }),
      ),
    ).toEqual([
      `${SPEC}.properties[value].default | Invalid value: "string": failed rule: self.startsWith('kube')`,
      `${SPEC}.properties[range].default | Invalid value: "object": low must be below high`,
      `${SPEC}.properties[ratcheted].default | Invalid value: "string": set only on update`,
      `${SPEC}.properties[nested].default.n | Invalid value: "integer": n is negative`,
    ]);
  });
});

describe('defaults and object metadata', () => {
  it('are forbidden in the top-level metadata, apiVersion and kind', async () => {
    const crd = definition(
      {},
      {
        metadata: { type: 'object', default: { name: 'x' }, properties: { name: { type: 'string', default: 'y' } } },
        kind: { type: 'string', default: 'Gadget' },
      },
    );
    expect(await refused(crd)).toEqual([
      `${ROOT}.properties[metadata].default | Forbidden: must not be set in top-level metadata`,
      `${ROOT}.properties[metadata].properties[name].default | Forbidden: must not be set in top-level metadata`,
      `${ROOT}.properties[kind].default | Forbidden: must not be set in top-level kind`,
    ]);
  });

  it('need apiVersion, kind and valid metadata at an embedded resource', async () => {
    const embedded = (value: unknown) => ({
      type: 'object',
      'x-kubernetes-embedded-resource': true,
      properties: { foo: { type: 'string' } },
      default: value,
    });
    expect(
      await refused(
        definition({
          missing: embedded({ foo: 'abc' }),
          badKind: embedded({ apiVersion: 'v1', kind: '%', metadata: { name: 'x' } }),
          badLabels: embedded({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { labels: { bar: 'x y' } } }),
          badName: embedded({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 42 } }),
        }),
      ),
    ).toEqual([
      `${SPEC}.properties[missing].default.apiVersion | Required value: must not be empty`,
      `${SPEC}.properties[missing].default.kind | Required value: must not be empty`,
      `${SPEC}.properties[badKind].default.kind | Invalid value: "%": may have mixed case, but should otherwise match: a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')`,
      `${SPEC}.properties[badLabels].default.metadata.labels | Invalid value: "x y": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')`,
      `${SPEC}.properties[badName].default.metadata | Invalid value: {"name":42}: json: cannot unmarshal number into Go struct field ObjectMeta.name of type string`,
    ]);
  });

  it('inside an embedded resource meta must leave that meta valid, and are forbidden under its additionalProperties', async () => {
    const crd = definition({
      embedded: {
        type: 'object',
        'x-kubernetes-embedded-resource': true,
        properties: {
          kind: { type: 'string', default: '%' },
          metadata: {
            type: 'object',
            properties: {
              labels: { type: 'object', properties: { bar: { type: 'string', default: 'x y' } } },
              annotations: { type: 'object', additionalProperties: { type: 'string', default: 'abc' } },
            },
          },
        },
      },
    });
    const causes = await refused(crd);
    expect(causes).toEqual([
      `${SPEC}.properties[embedded].properties[metadata].properties[annotations].additionalProperties.default | Forbidden: must not be set inside additionalProperties applying to object metadata`,
    ]);
    delete (crd.spec.versions[0]!.schema.openAPIV3Schema.properties.spec.properties as Json).embedded.properties.metadata.properties
      .annotations;
    const [kind, labels, ...rest] = await refused(crd);
    expect(rest).toEqual([]);
    expect(kind).toMatch(
      /^spec\.versions\[0\].*properties\[embedded\]\.properties\[kind\]\.default \| Invalid value: "%": must result in valid metadata: kind: Invalid value: "%": may have mixed case/,
    );
    expect(labels).toMatch(
      /^spec\.versions\[0\].*properties\[embedded\]\.properties\[metadata\]\.properties\[labels\]\.properties\[bar\]\.default \| Invalid value: "x y": must result in valid metadata: metadata\.labels: Invalid value: "x y": a valid label/,
    );
  });
});

describe('valid defaults', () => {
  it('are accepted, and applied to the objects created', async () => {
    const crd = definition({
      size: { type: 'integer', minimum: 1, maximum: 10, default: 3 },
      color: { type: 'string', enum: ['red', 'blue'], default: 'red' },
      note: { type: 'string', nullable: true, default: null },
      since: { type: 'string', format: 'date-time', default: '2024-01-01T00:00:00Z' },
      port: { 'x-kubernetes-int-or-string': true, default: 'http' },
      owner: { type: 'object', required: ['name'], properties: { name: { type: 'string' } }, default: { name: 'ops' } },
      ports: { type: 'array', items: { type: 'object', properties: { port: { type: 'integer', default: 80 } } }, default: [{ port: 443 }] },
      value: { type: 'string', default: 'kube-everything', 'x-kubernetes-validations': [{ rule: "self.startsWith('kube')" }] },
      template: {
        type: 'object',
        'x-kubernetes-embedded-resource': true,
        'x-kubernetes-preserve-unknown-fields': true,
        default: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x', labels: { app: 'a' } }, data: { k: 'v' } },
      },
      // Pruning leaves an embedded resource's metadata to the object meta rules, even where the schema declares some of it.
      declared: {
        type: 'object',
        'x-kubernetes-embedded-resource': true,
        properties: { metadata: { type: 'object', properties: { name: { type: 'string' } } }, foo: { type: 'string' } },
        default: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x', labels: { app: 'a' } }, foo: 'a' },
      },
    });
    const created = await call('POST', CRDS, crd);
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const group = crd.spec.group;
    const path = `/apis/${group}/v1/namespaces/default/gadgets`;
    let made: Awaited<ReturnType<typeof call>> | undefined;
    // Served once Established (polling; the bound only ends a hung test).
    for (let i = 0; i < 500 && made?.status !== 201; i++) {
      made = await call('POST', path, { apiVersion: `${group}/v1`, kind: 'Gadget', metadata: { name: 'g1' }, spec: {} });
      if (made.status !== 201) await new Promise((r) => setTimeout(r, 10));
    }
    expect(made?.status, JSON.stringify(made?.body)).toBe(201);
    expect(made?.body.spec).toMatchObject({
      size: 3,
      color: 'red',
      port: 'http',
      owner: { name: 'ops' },
      ports: [{ port: 443 }],
      value: 'kube-everything',
      template: { apiVersion: 'v1', kind: 'ConfigMap' },
      declared: { metadata: { name: 'x', labels: { app: 'a' } }, foo: 'a' },
    });
  });

  it('an update that brings an invalid default is refused, and the definition keeps serving the old one', async () => {
    const crd = definition({ size: { type: 'integer', default: 3 } });
    // Once Established: the update then carries the resourceVersion of the status the server wrote.
    const next = structuredClone(await createEstablished(call, crd));
    next.spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.size.default = 'three';
    const res = await call('PUT', `${CRDS}/${crd.metadata.name}`, next);
    expect(res.status).toBe(422);
    expect(res.body.message).toBe(
      `CustomResourceDefinition.apiextensions.svc.io "${crd.metadata.name}" is invalid: ${SPEC}.properties[size].default: Invalid value: "string":  in body must be of type integer: "string"`,
    );
    const stored = await call('GET', `${CRDS}/${crd.metadata.name}`);
    expect(stored.body.spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.size.default).toBe(3);
  });
});

describe('a definition stored with a default that is not pruned (before defaults were checked)', () => {
  it('stays updatable, as upstream ratchets pruned defaults; other default errors still refuse the update', async () => {
    const raw = await createStore('memory');
    const crd = definition({ a: { type: 'object', properties: { foo: { type: 'string' } }, default: { foo: 'abc', bar: 42 } } });
    await raw.create(`/registry/customresourcedefinitions/${crd.metadata.name}`, JSON.stringify(crd));
    const old = await startReferenceServer({ store: raw, port: 0 });
    try {
      const path = `${CRDS}/${crd.metadata.name}`;
      let stored = (await fetch(`${old.url}${path}`).then((r) => r.json())) as Json;
      stored.metadata.labels = { team: 'a' };
      const relabelled = await fetch(`${old.url}${path}`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(stored),
      });
      expect(relabelled.status, await relabelled.clone().text()).toBe(200);
      stored = (await relabelled.json()) as Json;
      stored.spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.size = { type: 'integer', default: 'three' };
      const broken = await fetch(`${old.url}${path}`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(stored),
      });
      expect(broken.status).toBe(422);
      expect(((await broken.json()) as Json).details.causes.map((c: { field: string }) => c.field)).toEqual([
        `${SPEC}.properties[size].default`,
      ]);
    } finally {
      await old.close();
    }
  });
});
