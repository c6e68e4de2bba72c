import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningServer, startReferenceServer } from '../reference-server.js';
import type { Json } from '../../runtime/server/server.testing.js';
import { CRDS, createEstablished as createEstablishedWith, established, jsonCaller, until } from './definitions.testing.js';

/**
 * CustomResourceDefinitions created over HTTP against the reference server (in memory): served
 * once Established, in discovery and OpenAPI; refused with upstream's messages when invalid;
 * updates change validation for later requests; a delete removes the objects and the endpoints.
 */
let server: RunningServer;
beforeAll(async () => {
  server = await startReferenceServer({ store: 'memory' });
});
afterAll(() => server.close());

const call = jsonCaller(() => server.url);

function widgetsCrd(group: string, overrides: Record<string, unknown> = {}, spec: Record<string, unknown> = {}) {
  return {
    apiVersion: 'apiextensions.svc.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `widgets.${group}` },
    spec: {
      group,
      scope: 'Namespaced',
      names: { plural: 'widgets', singular: 'widget', kind: 'Widget', shortNames: ['wd'] },
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          subresources: { status: {} },
          additionalPrinterColumns: [{ name: 'Size', type: 'integer', jsonPath: '.spec.size' }],
          schema: {
            openAPIV3Schema: {
              type: 'object',
              properties: {
                spec: {
                  type: 'object',
                  properties: { size: { type: 'integer', maximum: 10, default: 1 }, color: { type: 'string' } },
                  ...overrides,
                },
                status: { type: 'object', properties: { ready: { type: 'boolean' } } },
              },
            },
          },
        },
      ],
      ...spec,
    },
  };
}

const createEstablished = (crd: { metadata: { name: string } }) => createEstablishedWith(call, crd);

describe('a CustomResourceDefinition created over HTTP', () => {
  it('is Established with its names accepted, then served by every verb, in discovery and OpenAPI', async () => {
    const group = 'shop.example.io';
    const crd = await createEstablished(widgetsCrd(group));
    expect(crd.status.conditions.map((c: { type: string; status: string; reason: string }) => [c.type, c.status, c.reason])).toEqual([
      ['NamesAccepted', 'True', 'NoConflicts'],
      ['Established', 'True', 'InitialNamesAccepted'],
    ]);
    expect(crd.status.acceptedNames).toMatchObject({ plural: 'widgets', kind: 'Widget', listKind: 'WidgetList' });
    expect(crd.status.storedVersions).toEqual(['v1']);
    expect(crd.metadata.finalizers).toEqual(['customresourcecleanup.apiextensions.svc.io']);

    const groups = (await call('GET', '/apis')).body;
    expect(groups.groups.map((g: { name: string }) => g.name)).toContain(group);
    const resources = (await call('GET', `/apis/${group}/v1`)).body;
    expect(resources.resources.map((r: { name: string }) => r.name)).toEqual(['widgets', 'widgets/status']);
    expect(resources.resources[0]).toMatchObject({ kind: 'Widget', namespaced: true, shortNames: ['wd'] });
    const index = (await call('GET', '/openapi/v3')).body;
    expect(Object.keys(index.paths)).toContain(`apis/${group}/v1`);

    const widgets = `/apis/${group}/v1/namespaces/default/widgets`;
    const made = await call('POST', widgets, {
      apiVersion: `${group}/v1`,
      kind: 'Widget',
      metadata: { name: 'w1' },
      spec: { color: 'red', extra: 1 },
    });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    // Defaulted and pruned by the definition's schema.
    expect(made.body.spec).toEqual({ color: 'red', size: 1 });
    const tooBig = await call('POST', widgets, { apiVersion: `${group}/v1`, kind: 'Widget', metadata: { name: 'w2' }, spec: { size: 11 } });
    expect(tooBig.status).toBe(422);
    expect(tooBig.body.message).toBe(
      'Widget.shop.example.io "w2" is invalid: spec.size: Invalid value: 11: spec.size in body should be less than or equal to 10',
    );
    const patched = await call('PATCH', `${widgets}/w1`, { spec: { size: 3 } }, 'application/merge-patch+json');
    expect(patched.body.spec.size).toBe(3);
    const status = await call('PUT', `${widgets}/w1/status`, { ...patched.body, status: { ready: true } });
    expect(status.body.status).toEqual({ ready: true });
    const list = (await call('GET', widgets)).body;
    expect(list.kind).toBe('WidgetList');
    expect(list.items.map((i: { metadata: { name: string } }) => i.metadata.name)).toEqual(['w1']);
    const table = await fetch(`${server.url}${widgets}`, { headers: { accept: 'application/json;as=Table;v=v1;g=meta.svc.io' } });
    const columns = ((await table.json()) as { columnDefinitions: { name: string }[] }).columnDefinitions.map((c) => c.name);
    expect(columns).toContain('Size');
  });

  it('changes validation for later requests when updated', async () => {
    const group = 'update.example.io';
    const crd = await createEstablished(widgetsCrd(group));
    const widgets = `/apis/${group}/v1/namespaces/default/widgets`;
    const widget = (name: string, size: number) => ({ apiVersion: `${group}/v1`, kind: 'Widget', metadata: { name }, spec: { size } });
    expect((await call('POST', widgets, widget('a', 8))).status).toBe(201);
    const next = structuredClone(crd);
    next.spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.size.maximum = 5;
    const updated = await call('PUT', `${CRDS}/${crd.metadata.name}`, next);
    expect(updated.status, JSON.stringify(updated.body)).toBe(200);
    const refused = await until(
      () => call('POST', widgets, widget('b', 8)),
      (r) => r.status === 422,
      'the new maximum applies',
    );
    expect(refused.body.message).toContain('spec.size: Invalid value: 8: spec.size in body should be less than or equal to 5');
  });

  it('compiles its CEL rules again when an update changes them: the new rule applies, the old one no more', async () => {
    const group = 'rules.example.io';
    const crd = await createEstablished(
      widgetsCrd(group, { 'x-kubernetes-validations': [{ rule: 'self.size <= 8', message: 'at most 8' }] }),
    );
    const widgets = `/apis/${group}/v1/namespaces/default/widgets`;
    const widget = (name: string, size: number) => ({ apiVersion: `${group}/v1`, kind: 'Widget', metadata: { name }, spec: { size } });
    // Compiled and run once under the first rule.
    expect((await call('POST', widgets, widget('a', 6))).status).toBe(201);
    expect((await call('POST', widgets, widget('b', 9))).body.message).toContain('at most 8');
    const next = structuredClone(crd);
    next.spec.versions[0].schema.openAPIV3Schema.properties.spec['x-kubernetes-validations'] = [
      { rule: 'self.size <= 4', message: 'at most 4' },
    ];
    expect((await call('PUT', `${CRDS}/${crd.metadata.name}`, next)).status).toBe(200);
    const refused = await until(
      () => call('POST', widgets, widget('c', 6)),
      (r) => r.status === 422,
      'the new rule applies',
    );
    expect(refused.body.message).toContain('at most 4');
    expect((await call('POST', widgets, widget('d', 3))).status).toBe(201);
  });

  it('reads pattern and CEL regexes as RE2: flags anywhere (prometheus-operator, issue 24)', async () => {
    const group = 're2.example.io';
    await createEstablished(
      widgetsCrd(group, {
        properties: {
          // prometheus-operator's TimeInterval month pattern, shortened.
          month: { type: 'string', pattern: '^((?i)january|february|march|[1-9]|1[0-2])$' },
          label: { type: 'string', maxLength: 63, 'x-kubernetes-validations': [{ rule: String.raw`self.matches(r"^(?i)\.?[a-z_]+$")` }] },
        },
      }),
    );
    const widgets = `/apis/${group}/v1/namespaces/default/widgets`;
    const widget = (name: string, spec: Record<string, unknown>) => ({
      apiVersion: `${group}/v1`,
      kind: 'Widget',
      metadata: { name },
      spec,
    });
    const ok = await call('POST', widgets, widget('a', { month: 'JANUARY', label: '.Foo_bar' }));
    expect(ok.status, JSON.stringify(ok.body)).toBe(201);
    const bad = await call('POST', widgets, widget('b', { month: 'Smarch', label: 'foo-bar' }));
    expect(bad.status).toBe(422);
    expect(bad.body.message).toContain('spec.month: Invalid value: "Smarch"');
    expect(bad.body.message).toContain('spec.label: Invalid value: "string"');
  });

  it('answers a hostile pattern at once: RE2 matches in linear time, where a backtracking engine would hold the request', async () => {
    const group = 'redos.example.io';
    await createEstablished(
      widgetsCrd(group, {
        properties: {
          word: { type: 'string', pattern: '^(a+)+$' },
          text: { type: 'string', maxLength: 10000, 'x-kubernetes-validations': [{ rule: "self.matches('^(a|aa)+$')" }] },
        },
      }),
    );
    const hostile = `${'a'.repeat(5000)}b`;
    const res = await call('POST', `/apis/${group}/v1/namespaces/default/widgets`, {
      apiVersion: `${group}/v1`,
      kind: 'Widget',
      metadata: { name: 'w' },
      spec: { word: hostile, text: hostile },
    });
    expect(res.status).toBe(422);
    expect(res.body.message).toContain('spec.word: Invalid value: "aaaa');
    expect(res.body.message).toContain('spec.text: Invalid value: "string"');
  });

  it('keeps its group, scope and stored versions on update', async () => {
    const group = 'immutable.example.io';
    const crd = await createEstablished(widgetsCrd(group));
    const next = structuredClone(crd);
    next.spec.scope = 'Cluster';
    next.spec.versions[0].name = 'v2';
    const res = await call('PUT', `${CRDS}/${crd.metadata.name}`, next);
    expect(res.status).toBe(422);
    expect(res.body.details.causes.map((c: Json) => `${c.field}: ${c.message}`)).toEqual([
      'spec.scope: Invalid value: "Cluster": field is immutable',
      'status.storedVersions[0]: Invalid value: "v1": must appear in spec.versions',
    ]);
    // A new storage version beside the stored one is fine, and joins the stored versions.
    const added = structuredClone(crd);
    added.spec.versions[0].storage = false;
    added.spec.versions.push({ ...structuredClone(crd.spec.versions[0]), name: 'v2', storage: true });
    const ok = await call('PUT', `${CRDS}/${crd.metadata.name}`, added);
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    expect(ok.body.status.storedVersions).toEqual(['v1', 'v2']);
  });

  it('keeps unknown fields where the schema says so, takes int-or-string, and runs transition rules with messageExpression', async () => {
    const group = 'markers.example.io';
    await createEstablished(
      widgetsCrd(group, {
        properties: {
          extra: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
          port: { 'x-kubernetes-int-or-string': true },
          owner: {
            type: 'string',
            'x-kubernetes-validations': [{ rule: 'self == oldSelf', messageExpression: "'owner stays ' + oldSelf" }],
          },
        },
      }),
    );
    const widgets = `/apis/${group}/v1/namespaces/default/widgets`;
    const body = (spec: Record<string, unknown>) => ({ apiVersion: `${group}/v1`, kind: 'Widget', metadata: { name: 'm' }, spec });
    const made = await call('POST', widgets, body({ extra: { any: { thing: [1] } }, port: 'http', owner: 'ann', dropped: true }));
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    expect(made.body.spec).toEqual({ extra: { any: { thing: [1] } }, port: 'http', owner: 'ann' });
    const badPort = await call('PATCH', `${widgets}/m`, { spec: { port: true } }, 'application/merge-patch+json');
    // A wrong JSON type is a decode error here for every kind (400), as for built-in kinds upstream.
    expect(badPort.status, JSON.stringify(badPort.body)).toBe(400);
    expect(badPort.body.message).toContain(
      'spec.port: Invalid value: "boolean": spec.port in body must be of type integer,string: "boolean"',
    );
    const moved = await call('PATCH', `${widgets}/m`, { spec: { owner: 'bob', port: 8080 } }, 'application/merge-patch+json');
    expect(moved.status).toBe(422);
    expect(moved.body.message).toContain('spec.owner: Invalid value: "string": owner stays ann');
    const kept = await call('PATCH', `${widgets}/m`, { spec: { port: 8080 } }, 'application/merge-patch+json');
    expect(kept.body.spec.port).toBe(8080);
  });

  it('has its objects removed with their namespace, which then finishes deleting', async () => {
    const group = 'ns.example.io';
    await createEstablished(widgetsCrd(group));
    expect((await call('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'doomed' } })).status).toBe(
      201,
    );
    const widgets = `/apis/${group}/v1/namespaces/doomed/widgets`;
    expect((await call('POST', widgets, { apiVersion: `${group}/v1`, kind: 'Widget', metadata: { name: 'a' }, spec: {} })).status).toBe(
      201,
    );
    expect((await call('DELETE', '/api/v1/namespaces/doomed')).status).toBe(200);
    await until(
      () => call('GET', '/api/v1/namespaces/doomed'),
      (r) => r.status === 404,
      'the namespace is gone',
    );
    expect((await call('GET', `/apis/${group}/v1/widgets`)).body.items).toEqual([]);
  });

  it('takes its objects and endpoints with it when deleted', async () => {
    const group = 'gone.example.io';
    const crd = await createEstablished(widgetsCrd(group));
    const widgets = `/apis/${group}/v1/namespaces/default/widgets`;
    expect((await call('POST', widgets, { apiVersion: `${group}/v1`, kind: 'Widget', metadata: { name: 'a' }, spec: {} })).status).toBe(
      201,
    );
    expect((await call('DELETE', `${CRDS}/${crd.metadata.name}`)).status).toBe(200);
    await until(
      () => call('GET', `${CRDS}/${crd.metadata.name}`),
      (r) => r.status === 404,
      'the definition is gone',
    );
    expect((await call('GET', widgets)).status).toBe(404);
    expect((await call('GET', `/apis/${group}/v1`)).status).toBe(404);
    const index = (await call('GET', '/openapi/v3')).body;
    expect(Object.keys(index.paths)).not.toContain(`apis/${group}/v1`);
    // Created again, the resource starts empty: the objects went with the definition.
    await createEstablished(widgetsCrd(group));
    expect((await call('GET', widgets)).body.items).toEqual([]);
  });

  it('serves the selectable fields it declares', async () => {
    const group = 'select.example.io';
    const crd = widgetsCrd(group, {
      properties: { replicas: { type: 'integer' }, color: { type: 'string' } },
    });
    const v = crd.spec.versions[0] as Record<string, unknown>;
    v.selectableFields = [{ jsonPath: '.spec.color' }];
    await createEstablished(crd);
    const widgets = `/apis/${group}/v1/namespaces/default/widgets`;
    for (const [name, color] of [
      ['r', 'red'],
      ['b', 'blue'],
    ]) {
      const made = await call('POST', widgets, {
        apiVersion: `${group}/v1`,
        kind: 'Widget',
        metadata: { name },
        spec: { replicas: 1, color },
      });
      expect(made.status, JSON.stringify(made.body)).toBe(201);
    }
    const red = (await call('GET', `${widgets}?fieldSelector=spec.color%3Dred`)).body;
    expect(red.items.map((i: Json) => i.metadata.name)).toEqual(['r']);
    const unknown = await call('GET', `${widgets}?fieldSelector=spec.replicas%3D1`);
    expect(unknown.status).toBe(400);
    expect(unknown.body.message).toContain('spec.replicas');
  });

  it('serves the scale subresource it declares: an autoscaling/v1 Scale over its replica paths', async () => {
    const group = 'scale.example.io';
    const crd = widgetsCrd(group, { properties: { replicas: { type: 'integer' } } });
    const v = crd.spec.versions[0] as Json;
    v.subresources = {
      status: {},
      scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas', labelSelectorPath: '.status.selector' },
    };
    v.schema.openAPIV3Schema.properties.status.properties = { replicas: { type: 'integer' }, selector: { type: 'string' } };
    await createEstablished(crd);
    const discovered = (await call('GET', `/apis/${group}/v1`)).body.resources.find((r: Json) => r.name === 'widgets/scale');
    expect(discovered).toMatchObject({ kind: 'Scale', group: 'autoscaling', version: 'v1' });
    const widgets = `/apis/${group}/v1/namespaces/default/widgets`;
    const made = await call('POST', widgets, { apiVersion: `${group}/v1`, kind: 'Widget', metadata: { name: 'r' }, spec: { replicas: 1 } });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    await call('PUT', `${widgets}/r/status`, { ...made.body, status: { replicas: 1, selector: 'app=r' } });
    const scale = await call('GET', `${widgets}/r/scale`);
    expect(scale.body).toMatchObject({
      kind: 'Scale',
      apiVersion: 'autoscaling/v1',
      metadata: { name: 'r', namespace: 'default' },
      spec: { replicas: 1 },
      status: { replicas: 1, selector: 'app=r' },
    });
    const scaled = await call('PATCH', `${widgets}/r/scale`, { spec: { replicas: 3 } }, 'application/merge-patch+json');
    expect(scaled.status, JSON.stringify(scaled.body)).toBe(200);
    expect(scaled.body.spec.replicas).toBe(3);
    const object = (await call('GET', `${widgets}/r`)).body;
    expect(object.spec.replicas).toBe(3);
    expect(object.status).toEqual({ replicas: 1, selector: 'app=r' });
    const put = await call('PUT', `${widgets}/r/scale`, { ...scaled.body, spec: { replicas: 5 } });
    expect(put.body.spec.replicas).toBe(5);
    const stale = await call('PUT', `${widgets}/r/scale`, { ...scaled.body, spec: { replicas: 6 } });
    expect(stale.status).toBe(409);
    const negative = await call(
      'PATCH',
      `${widgets}/r/scale`,
      [{ op: 'replace', path: '/spec/replicas', value: -1 }],
      'application/json-patch+json',
    );
    expect(negative.status).toBe(422);
    expect(negative.body.message).toBe(
      'Scale.autoscaling "r" is invalid: spec.replicas: Invalid value: -1: must be greater than or equal to 0',
    );
    expect((await call('GET', `${widgets}/r`)).body.spec.replicas).toBe(5);
  });

  it('shares the OpenAPI document of its group/version with the other definitions of it', async () => {
    const group = 'shared.example.io';
    await createEstablished(widgetsCrd(group));
    const gadgets = widgetsCrd(group);
    gadgets.metadata.name = `gadgets.${group}`;
    Object.assign(gadgets.spec.names, { plural: 'gadgets', singular: 'gadget', kind: 'Gadget', shortNames: [] });
    await createEstablished(gadgets);
    const pathsOf = async () => {
      const index = (await call('GET', '/openapi/v3')).body;
      const doc = (await call('GET', index.paths[`apis/${group}/v1`].serverRelativeURL)).body;
      return Object.keys(doc.paths).filter((p) => p.endsWith('/widgets') || p.endsWith('/gadgets'));
    };
    expect(await pathsOf()).toEqual(
      expect.arrayContaining([`/apis/${group}/v1/namespaces/{namespace}/widgets`, `/apis/${group}/v1/namespaces/{namespace}/gadgets`]),
    );
    expect((await call('DELETE', `${CRDS}/widgets.${group}`)).status).toBe(200);
    await until(pathsOf, (paths) => !paths.some((p) => p.endsWith('/widgets')), 'widgets withdrawn');
    expect(await pathsOf()).toContain(`/apis/${group}/v1/namespaces/{namespace}/gadgets`);
  });

  it('refuses a second definition whose plural the group already serves: NamesAccepted False', async () => {
    const group = 'names.example.io';
    await createEstablished(widgetsCrd(group));
    const other = widgetsCrd(group);
    other.metadata.name = `gadgets.${group}`;
    Object.assign(other.spec.names, { plural: 'gadgets', singular: 'gadget', kind: 'Gadget', shortNames: ['wd'] });
    expect((await call('POST', CRDS, other)).status).toBe(201);
    const crd = await until(
      async () => (await call('GET', `${CRDS}/${other.metadata.name}`)).body,
      (c) => (c.status?.conditions?.length ?? 0) > 0,
      'conditions set',
    );
    expect(crd.status.conditions.map((c: { type: string; status: string; message: string }) => [c.type, c.status, c.message])).toEqual([
      ['NamesAccepted', 'False', '"wd" is already in use'],
      ['Established', 'False', 'not all names are accepted'],
    ]);
    expect((await call('GET', `/apis/${group}/v1/gadgets`)).status).toBe(404);
    // Once the definition holding the name is gone, the other one is accepted and served.
    expect((await call('DELETE', `${CRDS}/widgets.${group}`)).status).toBe(200);
    const accepted = await until(
      async () => (await call('GET', `${CRDS}/${other.metadata.name}`)).body,
      established,
      'gadgets Established once widgets is gone',
    );
    expect(accepted.status.conditions[0]).toMatchObject({ type: 'NamesAccepted', status: 'True' });
    expect((await call('GET', `/apis/${group}/v1/gadgets`)).status).toBe(200);
  });
});

describe('a CustomResourceDefinition with several versions (conversion None)', () => {
  it('serves the served versions, each object in every one of them, and warns on the deprecated ones', async () => {
    const group = 'versions.example.io';
    const base = widgetsCrd(group);
    const v1 = base.spec.versions[0] as Record<string, unknown>;
    const version = (name: string, extra: Record<string, unknown>) => ({ ...structuredClone(v1), name, storage: false, ...extra });
    base.spec.versions = [
      v1 as (typeof base.spec.versions)[number],
      version('v1beta1', {
        deprecated: true,
        deprecationWarning: 'v1beta1 widgets go away in 2027; use v1',
      }) as (typeof base.spec.versions)[number],
      version('v1alpha1', { deprecated: true }) as (typeof base.spec.versions)[number],
      version('v0', { served: false }) as (typeof base.spec.versions)[number],
    ];
    await createEstablished(base);
    const beta = `/apis/${group}/v1beta1/namespaces/default/widgets`;
    const made = await call('POST', beta, { apiVersion: `${group}/v1beta1`, kind: 'Widget', metadata: { name: 'w' }, spec: { size: 2 } });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    expect(made.headers.get('warning')).toBe('299 - "v1beta1 widgets go away in 2027; use v1"');
    const alpha = await call('GET', `/apis/${group}/v1alpha1/namespaces/default/widgets/w`);
    expect(alpha.headers.get('warning')).toBe(`299 - "${group}/v1alpha1 Widget is deprecated"`);
    expect(alpha.body.apiVersion).toBe(`${group}/v1alpha1`);
    const read = await call('GET', `/apis/${group}/v1/namespaces/default/widgets/w`);
    expect(read.headers.get('warning')).toBeNull();
    expect(read.body).toMatchObject({ apiVersion: `${group}/v1`, spec: { size: 2 } });
    expect((await call('GET', `/apis/${group}/v0/namespaces/default/widgets`)).status).toBe(404);
    const discovered = (await call('GET', `/apis/${group}`)).body;
    expect(discovered.versions.map((v: { version: string }) => v.version)).toEqual(['v1', 'v1beta1', 'v1alpha1']);
    expect(discovered.preferredVersion.version).toBe('v1');
  });
});

describe('stored definitions after a restart', () => {
  it('are served as soon as the server listens again, with their objects', async () => {
    const store = `sqlite:${join(mkdtempSync(join(tmpdir(), 'svckit-crd-store-')), 'data.db')}`;
    const group = 'restart.example.io';
    const first = await startReferenceServer({ store });
    try {
      const created = await fetch(`${first.url}${CRDS}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(widgetsCrd(group)),
      });
      expect(created.status).toBe(201);
      const widgets = `${first.url}/apis/${group}/v1/namespaces/default/widgets`;
      const body = JSON.stringify({ apiVersion: `${group}/v1`, kind: 'Widget', metadata: { name: 'kept' }, spec: { size: 4 } });
      await until(
        async () => (await fetch(widgets, { method: 'POST', headers: { 'content-type': 'application/json' }, body })).status,
        (status) => status === 201,
        'the widget is created',
      );
    } finally {
      await first.close();
    }
    const second = await startReferenceServer({ store });
    try {
      const res = await fetch(`${second.url}/apis/${group}/v1/namespaces/default/widgets/kept`);
      expect(res.status).toBe(200);
      expect(((await res.json()) as { spec: unknown }).spec).toEqual({ size: 4 });
    } finally {
      await second.close();
    }
  });
});

describe('CustomResourceDefinition validation', () => {
  async function refused(crd: unknown): Promise<string[]> {
    const res = await call('POST', CRDS, crd);
    expect(res.status, JSON.stringify(res.body)).toBe(422);
    return res.body.details.causes.map((c: { field: string; message: string }) => `${c.field}: ${c.message}`);
  }

  it('names: <plural>.<group>, a group with a dot, one storage version', async () => {
    const crd = widgetsCrd('nodot');
    crd.metadata.name = 'widgets.other.io';
    for (const v of crd.spec.versions) v.storage = false;
    expect(await refused(crd)).toEqual([
      'metadata.name: Invalid value: "widgets.other.io": must be spec.names.plural+"."+spec.group',
      'spec.group: Invalid value: "nodot": should be a domain with at least one dot',
      expect.stringMatching(/^spec\.versions: Invalid value: .*: must have exactly one version marked as storage version$/),
    ]);
  });

  it('structural schema and list-type rules', async () => {
    const crd = widgetsCrd('structural.example.io', {
      properties: {
        untyped: { description: 'no type' },
        list: { type: 'array' },
        ports: { type: 'array', 'x-kubernetes-list-type': 'map', items: { type: 'object', properties: { port: { type: 'integer' } } } },
        keyed: { type: 'array', 'x-kubernetes-list-map-keys': ['name'], items: { type: 'string' } },
      },
    });
    const at = 'spec.versions[0].schema.openAPIV3Schema.properties[spec].properties';
    expect(await refused(crd)).toEqual([
      `${at}[untyped].type: Required value: must not be empty for specified object fields`,
      `${at}[list].items: Required value: must be specified`,
      `${at}[ports].x-kubernetes-list-map-keys: Required value: must not be empty if x-kubernetes-list-type is map`,
      `${at}[keyed].x-kubernetes-list-type: Required value: must be map if x-kubernetes-list-map-keys is non-empty`,
    ]);
  });

  it('types, patterns, and what the schema loader refuses, at the field of the definition', async () => {
    const crd = widgetsCrd('loader.example.io', {
      properties: { a: { type: 'strin' }, b: { type: 'string', pattern: '([' } },
    });
    const at = 'spec.versions[0].schema.openAPIV3Schema.properties[spec].properties';
    const causes = await refused(crd);
    expect(causes[0]).toBe(
      `${at}[a].type: Unsupported value: "strin": supported values: "array", "boolean", "integer", "number", "object", "string"`,
    );
    expect(causes[1]).toBe(
      `${at}[b].pattern: Invalid value: "([": must be a valid regular expression, but isn't: error parsing regexp: missing closing ]: \`[\``,
    );
    const loader = widgetsCrd('loader.example.io', { properties: { c: { type: 'string', minLength: 'x' } } });
    expect(await refused(loader)).toEqual([`${at}[c].minLength: Invalid value: "": expected a number, found string "x"`]);
  });

  it('RE2 patterns and regex rules: what Go regexp refuses, with its message and cel-go wording', async () => {
    const at = 'spec.versions[0].schema.openAPIV3Schema.properties[spec]';
    const pattern = widgetsCrd('re2-pattern.example.io', { properties: { month: { type: 'string', pattern: '^(?=jan)' } } });
    expect(await refused(pattern)).toEqual([
      `${at}.properties[month].pattern: Invalid value: "^(?=jan)": must be a valid regular expression, but isn't: error parsing regexp: invalid or unsupported Perl syntax: \`(?=\``,
    ]);
    const rule = widgetsCrd('re2-rule.example.io', {
      properties: { name: { type: 'string' } },
      'x-kubernetes-validations': [{ rule: "self.name.matches('(a)\\\\1')" }],
    });
    expect(await refused(rule)).toEqual([
      `${at}.x-kubernetes-validations[0].rule: Invalid value: "self.name.matches('(a)\\\\\\\\1')": compilation failed: invalid matches argument`,
    ]);
    const find = widgetsCrd('re2-find.example.io', {
      properties: { name: { type: 'string' } },
      'x-kubernetes-validations': [{ rule: "self.name.find('(a') != ''" }],
    });
    expect(await refused(find)).toEqual([
      `${at}.x-kubernetes-validations[0].rule: Invalid value: "self.name.find('(a') != ''": program instantiation failed: error parsing regexp: missing closing ): \`(a\``,
    ]);
  });

  it('CEL rules: one that does not compile, and one whose estimated cost is over budget', async () => {
    const crd = widgetsCrd('cel.example.io', {
      properties: {
        names: { type: 'array', items: { type: 'string' } },
        size: { type: 'integer' },
      },
      'x-kubernetes-validations': [{ rule: 'self.size > ' }, { rule: 'self.names.all(a, self.names.all(b, a == b || a != b))' }],
    });
    const rules = 'spec.versions[0].schema.openAPIV3Schema.properties[spec].x-kubernetes-validations';
    const causes = await refused(crd);
    const advice =
      '\\(try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared\\)';
    // As apiextensions 1.30: the rule over budget also counts in the schema's total, named as its largest part.
    expect(causes).toHaveLength(4);
    expect(causes[0]).toMatch(new RegExp(`^${escapeRegExp(rules)}\\[0\\]\\.rule: Invalid value: "self.size > ": compilation failed: `));
    expect(causes[1]).toMatch(
      new RegExp(
        `^${escapeRegExp(rules)}\\[1\\]\\.rule: Forbidden: estimated rule cost exceeds budget by factor of more than 100x ${advice}$`,
      ),
    );
    expect(causes[2]).toBe(
      `${rules}[1].rule: Forbidden: contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema`,
    );
    expect(causes[3]).toMatch(
      new RegExp(
        `^spec\\.versions\\[0\\]\\.schema\\.openAPIV3Schema: Forbidden: x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema exceeds budget by factor of more than 100x ${advice}$`,
      ),
    );
    expect((await call('GET', `${CRDS}/widgets.cel.example.io`)).status).toBe(404);
  });

  it('CEL rules: cheap rules that together cost too much, each run as often as its values fit in one request', async () => {
    // Under unbounded lists a rule on an integer runs up to 3 MiB / 2 times: `self >= 0` (cost 2)
    // contributes 3,145,728; 32 of them are over the schema's 100,000,000 (upstream's own figures).
    const matrixOf = (rules: number, maxItems?: number) => ({
      properties: {
        matrix: {
          type: 'array',
          ...(maxItems ? { maxItems } : {}),
          items: {
            type: 'array',
            ...(maxItems ? { maxItems } : {}),
            items: { type: 'integer', 'x-kubernetes-validations': Array.from({ length: rules }, () => ({ rule: 'self >= 0' })) },
          },
        },
      },
    });
    expect((await call('POST', CRDS, widgetsCrd('fits.example.io', matrixOf(31)))).status).toBe(201);
    const crd = widgetsCrd('total.example.io', matrixOf(32));
    const schema = 'spec.versions[0].schema.openAPIV3Schema';
    const item = `${schema}.properties[spec].properties[matrix].items.items.x-kubernetes-validations`;
    expect(await refused(crd)).toEqual([
      ...[0, 1, 2, 3].map(
        (i) => `${item}[${i}].rule: Forbidden: contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema`,
      ),
      `${schema}: Forbidden: x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema exceeds budget by factor of 1.006633x (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)`,
    ]);
    // Bounded lists bring the total under the limit: the same rules are accepted.
    const bounded = widgetsCrd('total.example.io', matrixOf(32, 100));
    expect((await call('POST', CRDS, bounded)).status).toBe(201);
  });
});

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
