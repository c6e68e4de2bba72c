/**
 * Kind behaviour is declared in a kind's registration, not named in the server: a consuming
 * project's own kinds (no built-in among them) declare a field selector, a DNS-label name rule and
 * a virtual review kind answered by the project's own named handler, and the server honours all three.
 */
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KindRegistration, ObjectSchema, ResourceDescriptor } from '../schema/index.js';
import { createStore } from '../store/index.js';
import { ApiServer, type VirtualCreateHandler } from './index.js';

const open: ObjectSchema = { type: 'object', fields: [], preserveUnknown: true };
const schema: ObjectSchema = {
  type: 'object',
  fields: [
    { name: 'apiVersion', schema: { type: 'string' } },
    { name: 'kind', schema: { type: 'string' } },
    { name: 'metadata', schema: open },
    { name: 'spec', schema: open },
    { name: 'status', schema: open },
  ],
};

const GROUP = 'widgets.example.test';

function resource(plural: string, extra: Partial<ResourceDescriptor>): ResourceDescriptor {
  const base: ResourceDescriptor = {
    plural,
    singular: plural.slice(0, -1),
    scope: 'Cluster',
    verbs: ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete', 'deletecollection'],
    subresources: [],
    shortNames: [],
    categories: [],
    printerColumns: [],
    served: true,
    storage: true,
    custom: true,
    conversion: [],
  };
  return { ...base, ...extra };
}

function kind(name: string, plural: string, extra: Partial<ResourceDescriptor>): KindRegistration {
  return {
    group: GROUP,
    version: 'v1',
    kind: name,
    apiVersion: `${GROUP}/v1`,
    listKind: `${name}List`,
    schema,
    resource: resource(plural, extra),
  };
}

const KINDS = [
  kind('Widget', 'widgets', { selectableFields: ['spec.color'], nameValidation: 'dns1123-label', generation: true }),
  kind('WidgetReview', 'widgetreviews', { verbs: ['create'], virtual: 'widget-review' }),
];

/** The project's own review: allowed when the named widget is blue. */
const reviewWidget: VirtualCreateHandler = async (_ctx, _t, body) => {
  const spec = body.object.spec as { color?: string };
  return { status: 201, body: { ...body.object, status: { allowed: spec.color === 'blue' } } };
};

describe('a project kind declares its behaviour', () => {
  let server: ApiServer;
  const http = () => request(server.http);
  const post = (path: string, body: unknown) => http().post(path).set('content-type', 'application/json').send(JSON.stringify(body));
  const widget = (name: string, color: string) => ({ apiVersion: `${GROUP}/v1`, kind: 'Widget', metadata: { name }, spec: { color } });

  beforeAll(async () => {
    server = new ApiServer({
      kinds: KINDS,
      store: await createStore('memory'),
      handlers: { virtual: { 'widget-review': reviewWidget } },
      log: () => undefined,
    });
    await server.listen(0);
  });
  afterAll(async () => {
    await server.close();
  });

  it('selects by a declared field, and refuses an undeclared one', async () => {
    expect((await post(`/apis/${GROUP}/v1/widgets`, widget('red-one', 'red'))).status).toBe(201);
    expect((await post(`/apis/${GROUP}/v1/widgets`, widget('blue-one', 'blue'))).status).toBe(201);
    const list = await http().get(`/apis/${GROUP}/v1/widgets?fieldSelector=spec.color%3Dblue`);
    expect(list.status).toBe(200);
    expect(list.body.items.map((w: { metadata: { name: string } }) => w.metadata.name)).toEqual(['blue-one']);
    const bad = await http().get(`/apis/${GROUP}/v1/widgets?fieldSelector=spec.size%3D1`);
    expect(bad.status).toBe(400);
    expect(bad.body.message).toBe('field label not supported: spec.size (supported: metadata.name, spec.color)');
  });

  it('checks names as DNS labels: a dotted name (a valid DNS subdomain) is refused', async () => {
    const res = await post(`/apis/${GROUP}/v1/widgets`, widget('a.b', 'red'));
    expect(res.status).toBe(422);
    expect(res.body.details.causes).toEqual([
      { reason: 'FieldValueInvalid', field: 'metadata.name', message: 'Invalid value: "a.b": must not contain dots' },
    ]);
  });

  it('answers the virtual review kind with the named handler and stores nothing', async () => {
    const review = { apiVersion: `${GROUP}/v1`, kind: 'WidgetReview', metadata: { name: 'check' }, spec: { color: 'blue' } };
    const res = await post(`/apis/${GROUP}/v1/widgetreviews`, review);
    expect(res.status).toBe(201);
    expect(res.body.status).toEqual({ allowed: true });
    expect((await http().get(`/apis/${GROUP}/v1/widgetreviews/check`)).status).toBe(405);
    expect((await server.context.store.list(`/${GROUP}/widgetreviews/`)).items).toEqual([]);
  });

  it('tracks the generation it declares', async () => {
    const created = await post(`/apis/${GROUP}/v1/widgets`, widget('gen', 'red'));
    expect(created.body.metadata.generation).toBe(1);
  });

  it('refuses to start when a declared handler is missing from the catalogue', async () => {
    expect(() => new ApiServer({ kinds: KINDS, store: { close: async () => undefined } as never })).toThrow(
      'widgets.example.test/v1 WidgetReview declares the virtual create handler "widget-review", which the server\'s handler catalogue does not provide',
    );
  });
});
