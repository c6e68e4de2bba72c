import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type ServedWebhook, imagePolicyBackend, selfSignedCertificate, serveWebhook, type TlsKeyPair } from '../../webhook/index.js';
import type { AdmissionPlugin } from '../admission.js';
import { type Harness, type Json, startServer } from '../server.testing.js';
import { type ImagePolicyConfig, imagePolicyWebhook } from './index.js';

let tls: TlsKeyPair;
let backend: ServedWebhook;
const reviews: Json[] = [];
let annotations: Record<string, string> = {};
const recorder: AdmissionPlugin = {
  name: 'TestRecorder',
  async validate(request) {
    annotations = request.auditAnnotations;
  },
};

beforeAll(async () => {
  tls = selfSignedCertificate();
  backend = await serveWebhook(
    imagePolicyBackend((spec) => {
      reviews.push(spec);
      const bad = (spec.containers ?? []).find((c) => c.image.startsWith('evil/'));
      return bad
        ? { allowed: false, reason: `${bad.image} is not allowed` }
        : { allowed: true, auditAnnotations: { checked: String(spec.containers?.length) } };
    }),
    { tls },
  );
});
afterAll(async () => {
  await backend.close();
});

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
  reviews.length = 0;
  annotations = {};
});

async function serverWith(config: Partial<ImagePolicyConfig> & { url?: string }) {
  const clock = { ms: 5_000_000 };
  const plugin = imagePolicyWebhook({ connection: { url: config.url ?? backend.url, ca: tls.cert }, ...config }, { now: () => clock.ms });
  h = await startServer({ server: { admission: [plugin, recorder] } });
  return { h, clock };
}

const pods = (ns: string) => `/api/v1/namespaces/${ns}/pods`;
function pod(name: string, image: string, extra: Json = {}): Json {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, annotations: extra.annotations ?? {} },
    spec: { containers: [{ name: 'main', image }], ...(extra.spec ?? {}) },
  };
}

describe('ImagePolicyWebhook', () => {
  it('sends every container image, the marked annotations and the namespace; a denial is 403 with the reason', async () => {
    const { h } = await serverWith({});
    const body = pod('mixed', 'good/app:1', {
      annotations: { 'mycluster.image-policy.svc.io/ticket': '1234', unrelated: 'x' },
      spec: { initContainers: [{ name: 'init', image: 'good/init:1' }] },
    });
    expect((await h.post(pods(h.ns), body)).status).toBe(201);
    expect(reviews[0]).toEqual({
      containers: [{ image: 'good/app:1' }, { image: 'good/init:1' }],
      annotations: { 'mycluster.image-policy.svc.io/ticket': '1234' },
      namespace: h.ns,
    });
    expect(annotations['imagepolicywebhook.image-policy.svc.io/checked']).toBe('2');
    const denied = await h.post(pods(h.ns), pod('bad', 'good/app:1', { spec: { initContainers: [{ name: 'i', image: 'evil/miner' }] } }));
    expect(denied.status).toBe(403);
    expect(denied.body.message).toBe(
      'pods "bad" is forbidden: image policy webhook backend denied one or more images: evil/miner is not allowed',
    );
  });

  it('caches an allow for allowTTL and a deny for denyTTL', async () => {
    const { h, clock } = await serverWith({ allowTTL: 60, denyTTL: 10 });
    expect((await h.post(pods(h.ns), pod('a1', 'good/app:1'))).status).toBe(201);
    expect((await h.post(pods(h.ns), pod('a2', 'good/app:1'))).status).toBe(201);
    expect(reviews).toHaveLength(1);
    expect((await h.post(pods(h.ns), pod('d1', 'evil/x'))).status).toBe(403);
    expect((await h.post(pods(h.ns), pod('d2', 'evil/x'))).status).toBe(403);
    expect(reviews).toHaveLength(2);
    clock.ms += 11_000; // the deny expired, the allow did not
    expect((await h.post(pods(h.ns), pod('d3', 'evil/x'))).status).toBe(403);
    expect((await h.post(pods(h.ns), pod('a3', 'good/app:1'))).status).toBe(201);
    expect(reviews).toHaveLength(3);
    clock.ms += 60_000;
    expect((await h.post(pods(h.ns), pod('a4', 'good/app:1'))).status).toBe(201);
    expect(reviews).toHaveLength(4);
  });

  it('an unreachable backend refuses the pod, or with defaultAllow admits it with the failed-open annotation', async () => {
    const gone = await serveWebhook(() => ({}), { tls });
    await gone.close();
    const { h } = await serverWith({ url: gone.url, retryBackoff: 1 });
    const refused = await h.post(pods(h.ns), pod('p1', 'good/app:1'));
    expect(refused.status).toBe(403);
    expect(refused.body.message).toMatch(/^pods "p1" is forbidden: /);
    await h.close();
    const open = await serverWith({ url: gone.url, retryBackoff: 1, defaultAllow: true });
    expect((await open.h.post(pods(open.h.ns), pod('p2', 'good/app:1'))).status).toBe(201);
    expect(annotations['imagepolicywebhook.image-policy.svc.io/failed-open']).toBe('true');
  });
});
