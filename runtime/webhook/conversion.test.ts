import * as https from 'node:https';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ServedWebhook, conversionWebhook, serveWebhook } from './index.js';

/** conversionWebhook served over HTTPS (a real server with its self-signed certificate), called as the API server would. */
function post(hook: ServedWebhook, body: unknown): Promise<{ status: number; json: any }> {
  return new Promise((resolve, reject) => {
    const req = https.request(
      `${hook.url}/convert`,
      { method: 'POST', ca: hook.caBundle, headers: { 'content-type': 'application/json' } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, json: JSON.parse(Buffer.concat(chunks).toString('utf8')) }));
      },
    );
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

const widget = (name: string, spec: Record<string, unknown>) => ({
  apiVersion: 'shop.example.io/v1beta1',
  kind: 'Widget',
  metadata: { name, namespace: 'default', uid: `uid-${name}` },
  spec,
});

const review = (objects: unknown[], desiredAPIVersion = 'shop.example.io/v1', apiVersion = 'apiextensions.svc.io/v1') => ({
  apiVersion,
  kind: 'ConversionReview',
  request: { uid: 'review-1', desiredAPIVersion, objects },
});

describe('conversionWebhook', () => {
  let hook: ServedWebhook;
  beforeAll(async () => {
    // v1beta1 `spec.colour` is v1 `spec.color`; a widget named `broken` cannot be converted.
    hook = await serveWebhook(
      conversionWebhook((object, desired) => {
        const spec = object.spec as Record<string, unknown>;
        if ((object.metadata as { name: string }).name === 'broken') throw new Error('widget broken has no colour');
        if (desired.endsWith('/v1')) {
          spec.color = spec.colour;
          delete spec.colour;
        } else {
          spec.colour = spec.color;
          delete spec.color;
        }
        return object;
      }),
    );
  });
  afterAll(() => hook.close());

  it('converts every object in order, echoes the uid, sets the desired apiVersion, keeps the metadata', async () => {
    const res = await post(hook, review([widget('a', { colour: 'red' }), widget('b', { colour: 'blue' })]));
    expect(res.status).toBe(200);
    expect(res.json).toEqual({
      apiVersion: 'apiextensions.svc.io/v1',
      kind: 'ConversionReview',
      response: {
        uid: 'review-1',
        result: { status: 'Success' },
        convertedObjects: [
          {
            apiVersion: 'shop.example.io/v1',
            kind: 'Widget',
            metadata: { name: 'a', namespace: 'default', uid: 'uid-a' },
            spec: { color: 'red' },
          },
          {
            apiVersion: 'shop.example.io/v1',
            kind: 'Widget',
            metadata: { name: 'b', namespace: 'default', uid: 'uid-b' },
            spec: { color: 'blue' },
          },
        ],
      },
    });
  });

  it("reads the real system's group too (a server under --group-suffix k8s.io) and answers in it", async () => {
    const res = await post(hook, review([widget('a', { colour: 'red' })], 'shop.example.io/v1', 'apiextensions.k8s.io/v1'));
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({
      apiVersion: 'apiextensions.k8s.io/v1',
      response: { uid: 'review-1', result: { status: 'Success' }, convertedObjects: [{ spec: { color: 'red' } }] },
    });
    const other = await post(hook, review([], 'shop.example.io/v1', 'apiextensions.example.io/v1'));
    expect(other.status).toBe(400);
  });

  it('answers Failure with the handler message when one object cannot be converted', async () => {
    const res = await post(hook, review([widget('a', { colour: 'red' }), widget('broken', {})]));
    expect(res.status).toBe(200);
    expect(res.json.response).toEqual({
      uid: 'review-1',
      convertedObjects: [],
      result: { status: 'Failure', message: 'widget broken has no colour' },
    });
  });

  it('refuses what is not a ConversionReview it reads: 400 with the reason', async () => {
    const wrongVersion = await post(hook, review([], 'shop.example.io/v1', 'apiextensions.svc.io/v2'));
    expect(wrongVersion.status).toBe(400);
    expect(JSON.stringify(wrongVersion.json)).toContain('unsupported ConversionReview version');
    const noObjects = await post(hook, { apiVersion: 'apiextensions.svc.io/v1', kind: 'ConversionReview', request: { uid: 'x' } });
    expect(noObjects.status).toBe(400);
    expect(JSON.stringify(noObjects.json)).toContain('needs uid, desiredAPIVersion and objects');
  });
});
