import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type RunningServer, startReferenceServer } from '../reference-server.js';
import {
  type JsonHandler,
  type ServedWebhook,
  admissionWebhook,
  allow,
  conversionWebhook,
  serveWebhook,
} from '../../runtime/webhook/index.js';
import type { Json } from '../../runtime/server/server.testing.js';
import { CRDS, createEstablished, jsonCaller, until } from './definitions.testing.js';

/**
 * A CustomResourceDefinition with `conversion.strategy: Webhook`, served by the reference server and
 * converted by a real HTTPS webhook (the callback kit's): v1 keeps `spec.size`, v2 `spec.sizing.value`.
 * The server sends only the objects whose version differs, checks the answer as upstream does, and
 * fails the request with upstream's words (changing nothing) when the answer is wrong.
 */
let server: RunningServer;
let hook: ServedWebhook;
/** Every ConversionReview the webhook received. */
const reviews: Json[] = [];
/** How the next answers are spoiled (undefined: answered as the kit answers). */
let spoil: ((review: Json) => Json) | undefined;

const kit = conversionWebhook((object, desired) => {
  const spec = (object.spec ?? {}) as Record<string, unknown>;
  if (desired.endsWith('/v2') && 'size' in spec) {
    spec.sizing = { value: spec.size };
    delete spec.size;
  }
  if (desired.endsWith('/v1') && typeof spec.sizing === 'object' && spec.sizing !== null) {
    spec.size = (spec.sizing as { value?: number }).value;
    delete spec.sizing;
  }
  if (spec.explode === true) throw new Error('cannot convert an exploding widget');
  return object;
});

const handler: JsonHandler = async (body) => {
  reviews.push(body as Json);
  const answer = (await kit(body)) as Json;
  return spoil ? spoil(answer) : answer;
};

beforeAll(async () => {
  hook = await serveWebhook(handler);
  server = await startReferenceServer({ store: 'memory' });
});
afterAll(async () => {
  await server.close();
  await hook.close();
});
beforeEach(() => {
  reviews.length = 0;
  spoil = undefined;
});

const call = jsonCaller(() => server.url);

function version(name: string, storage: boolean, spec: Record<string, unknown>) {
  return {
    name,
    served: true,
    storage,
    schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: spec } } } },
  };
}

function widgetsCrd(group: string, webhook: Record<string, unknown>, storage: 'v1' | 'v2' = 'v1') {
  return {
    apiVersion: 'apiextensions.svc.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `widgets.${group}` },
    spec: {
      group,
      scope: 'Namespaced',
      names: { plural: 'widgets', singular: 'widget', kind: 'Widget' },
      versions: [
        version('v1', storage === 'v1', { size: { type: 'integer' }, explode: { type: 'boolean' } }),
        version('v2', storage === 'v2', {
          sizing: { type: 'object', properties: { value: { type: 'integer' } } },
          explode: { type: 'boolean' },
        }),
      ],
      conversion: { strategy: 'Webhook', webhook },
    },
  };
}

const clientConfig = () => ({ url: `${hook.url}/convert`, caBundle: Buffer.from(hook.caBundle).toString('base64') });

async function establish(crd: { metadata: { name: string } }): Promise<void> {
  await createEstablished(call, crd);
}

function widget(group: string, v: 'v1' | 'v2', name: string, spec: Record<string, unknown>) {
  return { apiVersion: `${group}/${v}`, kind: 'Widget', metadata: { name }, spec };
}

describe('a definition converting through its webhook', () => {
  const group = 'convert.example.io';
  const at = (v: string) => `/apis/${group}/${v}/namespaces/default/widgets`;
  beforeAll(async () => {
    await establish(widgetsCrd(group, { clientConfig: clientConfig(), conversionReviewVersions: ['v1'] }));
  });

  it('stores a v2 write as v1 through one review and reads it back as either version', async () => {
    const made = await call('POST', at('v2'), widget(group, 'v2', 'w1', { sizing: { value: 3 } }));
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    expect(made.body).toMatchObject({ apiVersion: `${group}/v2`, spec: { sizing: { value: 3 } } });
    // Down to the storage version on the way in, up again for the answer.
    expect(reviews.map((r) => [r.apiVersion, r.request.desiredAPIVersion, r.request.objects.length])).toEqual([
      ['apiextensions.svc.io/v1', `${group}/v1`, 1],
      ['apiextensions.svc.io/v1', `${group}/v2`, 1],
    ]);
    expect(reviews[0].request.objects[0]).toMatchObject({ apiVersion: `${group}/v2`, spec: { sizing: { value: 3 } } });
    reviews.length = 0;
    expect((await call('GET', `${at('v1')}/w1`)).body).toMatchObject({ apiVersion: `${group}/v1`, spec: { size: 3 } });
    expect(reviews).toHaveLength(0); // stored as v1: nothing to convert
    expect((await call('GET', `${at('v2')}/w1`)).body).toMatchObject({ apiVersion: `${group}/v2`, spec: { sizing: { value: 3 } } });
    expect(reviews).toHaveLength(1);
  });

  it('converts a list in one review with only the objects of another version', async () => {
    for (const name of ['l1', 'l2', 'l3']) expect((await call('POST', at('v1'), widget(group, 'v1', name, { size: 1 }))).status).toBe(201);
    expect(reviews).toHaveLength(0);
    const list = await call('GET', at('v2'));
    expect(list.status).toBe(200);
    expect(list.body.apiVersion).toBe(`${group}/v2`);
    expect(list.body.items.every((i: Json) => i.apiVersion === `${group}/v2` && i.spec.sizing !== undefined)).toBe(true);
    expect(reviews).toHaveLength(1);
    expect(reviews[0].request.objects.length).toBe(list.body.items.length);
  });

  it('sends watch events converted', async () => {
    const controller = new AbortController();
    const res = await fetch(`${server.url}${at('v2')}?watch=1&fieldSelector=metadata.name%3Dwatched`, { signal: controller.signal });
    const reader = res.body!.getReader();
    expect((await call('POST', at('v1'), widget(group, 'v1', 'watched', { size: 7 }))).status).toBe(201);
    let text = '';
    while (!text.includes('\n')) text += new TextDecoder().decode((await reader.read()).value);
    controller.abort();
    const event = JSON.parse(text.split('\n')[0]!);
    expect(event).toMatchObject({ type: 'ADDED', object: { apiVersion: `${group}/v2`, spec: { sizing: { value: 7 } } } });
  });

  it('takes only labels and annotations from the returned metadata', async () => {
    expect((await call('POST', at('v1'), widget(group, 'v1', 'meta', { size: 2 }))).status).toBe(201);
    spoil = (answer) => {
      for (const o of answer.response.convertedObjects) {
        o.metadata.labels = { converted: 'yes' };
        o.metadata.finalizers = ['example.io/kept-out'];
        o.metadata.generation = 99;
      }
      return answer;
    };
    const read = (await call('GET', `${at('v2')}/meta`)).body;
    expect(read.metadata.labels).toEqual({ converted: 'yes' });
    expect(read.metadata.finalizers).toBeUndefined();
    expect(read.metadata.generation).toBe(1);
  });

  it.each([
    [
      'the webhook fails the review',
      undefined,
      'conversion webhook for convert.example.io/v2, Kind=Widget failed: cannot convert an exploding widget',
    ],
    ['the uid is not echoed', (a: Json) => ({ ...a, response: { ...a.response, uid: 'other' } }), 'failed: expected response.uid="'],
    [
      'an object is missing',
      (a: Json) => ({ ...a, response: { ...a.response, convertedObjects: [] } }),
      'conversion webhook for convert.example.io/v2, Kind=Widget returned 0 objects, expected 1',
    ],
    [
      'the name changed',
      (a: Json) => {
        a.response.convertedObjects[0].metadata.name = 'renamed';
        return a;
      },
      'returned invalid converted object at index 0: must have the same name: bad != renamed',
    ],
    [
      'the apiVersion is not the one asked for',
      (a: Json) => {
        a.response.convertedObjects[0].apiVersion = 'convert.example.io/v2';
        return a;
      },
      'returned invalid converted object at index 0: invalid groupVersion (expected convert.example.io/v1, received convert.example.io/v2)',
    ],
    [
      'a label is invalid',
      (a: Json) => {
        a.response.convertedObjects[0].metadata.labels = { 'not a key': 'x' };
        return a;
      },
      'returned invalid metadata in object at index 0: metadata.labels: Invalid value: "not a key"',
    ],
    [
      'the answer is not a v1 ConversionReview',
      (a: Json) => ({ ...a, apiVersion: 'apiextensions.svc.io/v1beta1' }),
      'failed: expected webhook response of apiextensions.svc.io/v1, Kind=ConversionReview, got apiextensions.svc.io/v1beta1, Kind=ConversionReview',
    ],
  ])('fails a write with 500 and stores nothing when %s', async (_, spoiling, message) => {
    spoil = spoiling;
    const spec = spoiling ? { sizing: { value: 1 } } : { explode: true };
    const res = await call('POST', at('v2'), widget(group, 'v2', 'bad', spec));
    expect(res.status).toBe(500);
    expect(res.body).toMatchObject({ kind: 'Status', reason: 'InternalError' });
    expect(res.body.message).toContain(message);
    spoil = undefined;
    expect((await call('GET', `${at('v1')}/bad`)).status).toBe(404);
  });

  it('fails a read of another version with 500 when the webhook cannot be reached, and serves the stored version', async () => {
    const group2 = 'unreachable.example.io';
    const gone = await serveWebhook(handler);
    await gone.close();
    await establish(
      widgetsCrd(group2, {
        clientConfig: { url: gone.url, caBundle: Buffer.from(gone.caBundle).toString('base64') },
        conversionReviewVersions: ['v1'],
      }),
    );
    const v1 = `/apis/${group2}/v1/namespaces/default/widgets`;
    expect((await call('POST', v1, widget(group2, 'v1', 'w', { size: 1 }))).status).toBe(201);
    const read = await call('GET', `/apis/${group2}/v2/namespaces/default/widgets/w`);
    expect(read.status).toBe(500);
    expect(read.body.message).toMatch(
      /^Internal error occurred: conversion webhook for unreachable\.example\.io\/v1, Kind=Widget failed: Post "https:/,
    );
    expect((await call('GET', `${v1}/w`)).status).toBe(200);
  });

  it('refuses a webhook whose certificate the caBundle does not vouch for', async () => {
    const group3 = 'untrusted.example.io';
    await establish(widgetsCrd(group3, { clientConfig: { url: hook.url }, conversionReviewVersions: ['v1'] }));
    const res = await call('POST', `/apis/${group3}/v2/namespaces/default/widgets`, widget(group3, 'v2', 'w', { sizing: { value: 1 } }));
    expect(res.status).toBe(500);
    expect(res.body.message).toContain('conversion webhook for untrusted.example.io/v2, Kind=Widget failed: Post');
    expect(reviews).toHaveLength(0);
  });
});

describe('an admission webhook registered for another version (matchPolicy)', () => {
  it('Equivalent (the default): sees the object converted to its version, and its patch reaches the stored object', async () => {
    const group = 'admit.example.io';
    await establish(widgetsCrd(group, { clientConfig: clientConfig(), conversionReviewVersions: ['v1'] }));
    const seen: Json[] = [];
    const admission = await serveWebhook(
      admissionWebhook((request) => {
        seen.push(structuredClone(request));
        const object = structuredClone(request.object as Json);
        object.metadata.labels = { ...object.metadata.labels, admitted: object.apiVersion.split('/')[1] };
        object.spec.size = object.spec.size + 1;
        return allow({ object });
      }),
    );
    try {
      const configuration = (name: string, matchPolicy: string) => ({
        apiVersion: 'admissionregistration.svc.io/v1',
        kind: 'MutatingWebhookConfiguration',
        metadata: { name },
        webhooks: [
          {
            name: `${name}.example.io`,
            clientConfig: { url: `${admission.url}/admit`, caBundle: Buffer.from(admission.caBundle).toString('base64') },
            rules: [{ operations: ['CREATE'], apiGroups: [group], apiVersions: ['v1'], resources: ['widgets'] }],
            matchPolicy,
            sideEffects: 'None',
            admissionReviewVersions: ['v1'],
          },
        ],
      });
      expect(
        (
          await call(
            'POST',
            '/apis/admissionregistration.svc.io/v1/mutatingwebhookconfigurations',
            configuration('equivalent', 'Equivalent'),
          )
        ).status,
      ).toBe(201);
      const made = await call('POST', `/apis/${group}/v2/namespaces/default/widgets`, widget(group, 'v2', 'w', { sizing: { value: 1 } }));
      expect(made.status, JSON.stringify(made.body)).toBe(201);
      expect(seen).toHaveLength(1);
      expect(seen[0]).toMatchObject({
        kind: { group, version: 'v1', kind: 'Widget' },
        resource: { group, version: 'v1', resource: 'widgets' },
        requestKind: { group, version: 'v2', kind: 'Widget' },
        requestResource: { group, version: 'v2', resource: 'widgets' },
        object: { apiVersion: `${group}/v1`, spec: { size: 1 } },
      });
      // The v1 patch, converted back to v2 before storing.
      expect(made.body).toMatchObject({
        apiVersion: `${group}/v2`,
        metadata: { labels: { admitted: 'v1' } },
        spec: { sizing: { value: 2 } },
      });

      await call('DELETE', '/apis/admissionregistration.svc.io/v1/mutatingwebhookconfigurations/equivalent');
      expect(
        (await call('POST', '/apis/admissionregistration.svc.io/v1/mutatingwebhookconfigurations', configuration('exact', 'Exact'))).status,
      ).toBe(201);
      const exact = await call('POST', `/apis/${group}/v2/namespaces/default/widgets`, widget(group, 'v2', 'x', { sizing: { value: 1 } }));
      expect(exact.status).toBe(201);
      expect(seen).toHaveLength(1); // Exact: a v2 request does not reach a v1 rule
      expect(exact.body.metadata.labels).toBeUndefined();
    } finally {
      await call('DELETE', '/apis/admissionregistration.svc.io/v1/mutatingwebhookconfigurations/exact');
      await admission.close();
    }
  });
});

describe('a ValidatingAdmissionPolicy matching another version', () => {
  it('judges the object converted to the version its constraints name (Equivalent), and not under Exact', async () => {
    const group = 'policy.example.io';
    await establish(widgetsCrd(group, { clientConfig: clientConfig(), conversionReviewVersions: ['v1'] }));
    const API = '/apis/admissionregistration.svc.io/v1';
    const policy = (name: string, matchPolicy: string) => ({
      apiVersion: 'admissionregistration.svc.io/v1',
      kind: 'ValidatingAdmissionPolicy',
      metadata: { name },
      spec: {
        matchConstraints: {
          matchPolicy,
          resourceRules: [{ operations: ['CREATE'], apiGroups: [group], apiVersions: ['v1'], resources: ['widgets'] }],
        },
        validations: [{ expression: "object.apiVersion.endsWith('/v1') && object.spec.size <= 5", message: 'at most 5 (v1 size)' }],
      },
    });
    const binding = (name: string) => ({
      apiVersion: 'admissionregistration.svc.io/v1',
      kind: 'ValidatingAdmissionPolicyBinding',
      metadata: { name },
      spec: { policyName: name, validationActions: ['Deny'] },
    });
    try {
      expect((await call('POST', `${API}/validatingadmissionpolicies`, policy('equivalent-size', 'Equivalent'))).status).toBe(201);
      expect((await call('POST', `${API}/validatingadmissionpolicybindings`, binding('equivalent-size'))).status).toBe(201);
      const at = `/apis/${group}/v2/namespaces/default/widgets`;
      expect((await call('POST', at, widget(group, 'v2', 'small', { sizing: { value: 5 } }))).status).toBe(201);
      const big = await call('POST', at, widget(group, 'v2', 'big', { sizing: { value: 9 } }));
      expect(big.status).toBe(422);
      expect(big.body.message).toContain('at most 5 (v1 size)');
      await call('DELETE', `${API}/validatingadmissionpolicybindings/equivalent-size`);
      expect((await call('POST', `${API}/validatingadmissionpolicies`, policy('exact-size', 'Exact'))).status).toBe(201);
      expect((await call('POST', `${API}/validatingadmissionpolicybindings`, binding('exact-size'))).status).toBe(201);
      expect((await call('POST', at, widget(group, 'v2', 'big', { sizing: { value: 9 } }))).status).toBe(201);
    } finally {
      await call('DELETE', `${API}/validatingadmissionpolicybindings/exact-size`);
    }
  });
});

describe('review versions and storage versions', () => {
  it('sends a v1beta1 ConversionReview when that is the one the definition lists first', async () => {
    const group = 'beta.example.io';
    await establish(widgetsCrd(group, { clientConfig: clientConfig(), conversionReviewVersions: ['v1beta1', 'v1'] }));
    const made = await call('POST', `/apis/${group}/v2/namespaces/default/widgets`, widget(group, 'v2', 'w', { sizing: { value: 4 } }));
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    expect(reviews[0].apiVersion).toBe('apiextensions.svc.io/v1beta1');
  });

  it('keeps objects stored under an earlier storage version readable after the storage version changes', async () => {
    const group = 'migrate.example.io';
    const crd = widgetsCrd(group, { clientConfig: clientConfig(), conversionReviewVersions: ['v1'] });
    await establish(crd);
    const v1 = `/apis/${group}/v1/namespaces/default/widgets`;
    const v2 = `/apis/${group}/v2/namespaces/default/widgets`;
    expect((await call('POST', v1, widget(group, 'v1', 'old', { size: 5 }))).status).toBe(201);
    const current = (await call('GET', `${CRDS}/${crd.metadata.name}`)).body;
    current.spec.versions[0].storage = false;
    current.spec.versions[1].storage = true;
    const updated = await call('PUT', `${CRDS}/${crd.metadata.name}`, current);
    expect(updated.status, JSON.stringify(updated.body)).toBe(200);
    expect(updated.body.status.storedVersions).toEqual(['v1', 'v2']);
    // The update is served once a write through v2 needs no conversion (it is stored as v2).
    await until(
      async () => {
        reviews.length = 0;
        await call('DELETE', `${v2}/new`);
        expect((await call('POST', v2, widget(group, 'v2', 'new', { sizing: { value: 6 } }))).status).toBe(201);
        return reviews.length;
      },
      (sent) => sent === 0,
      'v2 the storage version',
    );
    reviews.length = 0;
    const list = (await call('GET', v2)).body;
    expect(list.items.map((i: Json) => [i.metadata.name, i.spec])).toEqual([
      ['new', { sizing: { value: 6 } }],
      ['old', { sizing: { value: 5 } }],
    ]);
    // Only the object still stored as v1 went to the webhook.
    expect(reviews.map((r) => r.request.objects.map((o: Json) => o.metadata.name))).toEqual([['old']]);
  });
});

describe('a definition asking for webhook conversion', () => {
  it.each([
    [{ clientConfig: { url: 'https://127.0.0.1:1/x' } }, 'spec.conversion.webhook.conversionReviewVersions: Required value'],
    [
      { clientConfig: { url: 'https://127.0.0.1:1/x' }, conversionReviewVersions: ['v3'] },
      'spec.conversion.webhook.conversionReviewVersions: Invalid value: "array": must include at least one of v1, v1beta1',
    ],
    [
      { clientConfig: { url: 'https://127.0.0.1:1/x', service: { namespace: 'd', name: 'n' } }, conversionReviewVersions: ['v1'] },
      'exactly one of url or service is required',
    ],
    [{ clientConfig: { url: 'http://127.0.0.1:1/x' }, conversionReviewVersions: ['v1'] }, 'url must be an https URL'],
  ])('is refused with 422 when its webhook is %j', async (webhook, message) => {
    const res = await call('POST', CRDS, widgetsCrd('refused.example.io', webhook));
    expect(res.status).toBe(422);
    expect(res.body.message).toContain(message);
  });
});

describe('under --group-suffix k8s.io', () => {
  it("sends the real system's apiextensions.k8s.io ConversionReview, which the kit answers", async () => {
    const real = await startReferenceServer({ store: 'memory', groupSuffix: 'k8s.io' });
    try {
      const group = 'real.example.io';
      const crd = {
        ...widgetsCrd(group, { clientConfig: clientConfig(), conversionReviewVersions: ['v1'] }),
        apiVersion: 'apiextensions.k8s.io/v1',
      };
      const post = (path: string, body: unknown) =>
        fetch(`${real.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
      expect((await post('/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd)).status).toBe(201);
      const res = await until(
        () => post(`/apis/${group}/v2/namespaces/default/widgets`, widget(group, 'v2', 'w', { sizing: { value: 2 } })),
        (r) => r.status !== 404,
        'the resource served',
      );
      expect(res.status, await res.clone().text()).toBe(201);
      expect(reviews.map((r) => r.apiVersion)).toContain('apiextensions.k8s.io/v1');
      const v1 = await fetch(`${real.url}/apis/${group}/v1/namespaces/default/widgets/w`);
      expect(await v1.json()).toMatchObject({ spec: { size: 2 } });
    } finally {
      await real.close();
    }
  });
});
