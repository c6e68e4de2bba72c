import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  type AdmissionHandler,
  type ServedWebhook,
  admissionWebhook,
  allow,
  deny,
  selfSignedCertificate,
  serveWebhook,
  type TlsKeyPair,
} from '../../webhook/index.js';
import type { AdmissionPlugin, AdmissionRequest } from '../admission.js';
import { type Harness, type Json, crontab, crontabs, cronTabBody, startServer, warningsOf } from '../server.testing.js';
import { parsePrometheusText, samples } from '../../metrics/prometheus-text.testing.js';
import { mutatingWebhookAdmission, validatingWebhookAdmission } from './index.js';

const MUTATING = '/apis/admissionregistration.svc.io/v1/mutatingwebhookconfigurations';
const VALIDATING = '/apis/admissionregistration.svc.io/v1/validatingwebhookconfigurations';
const configMaps = (ns: string) => `/api/v1/namespaces/${ns}/configmaps`;
const configMap = (name: string, labels: Record<string, string> = {}) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, labels },
  data: { a: '1' },
});

let tls: TlsKeyPair;
let h: Harness;
let hooks: ServedWebhook[] = [];
/** The audit annotations of the last admitted request, as the audit stage would read them. */
let annotations: Record<string, string> = {};
const recorder: AdmissionPlugin = {
  name: 'TestRecorder',
  async validate(request: AdmissionRequest) {
    annotations = request.auditAnnotations;
  },
};

beforeAll(async () => {
  tls = selfSignedCertificate();
  h = await startServer({
    server: { admission: [mutatingWebhookAdmission({ log: () => {} }), validatingWebhookAdmission({ log: () => {} }), recorder] },
  });
});
afterAll(async () => {
  await h.close();
});
afterEach(async () => {
  for (const hook of hooks) await hook.close();
  hooks = [];
  await h.delete(MUTATING);
  await h.delete(VALIDATING);
  annotations = {};
});

/** Serves `handler` with the kit and counts its calls. */
async function webhook(handler: AdmissionHandler): Promise<ServedWebhook & { calls: Json[] }> {
  const calls: Json[] = [];
  const served = await serveWebhook(
    admissionWebhook((req) => {
      calls.push(structuredClone(req));
      return handler(req);
    }),
    { tls },
  );
  hooks.push(served);
  return Object.assign(served, { calls });
}

function hookSpec(name: string, served: ServedWebhook, extra: Json = {}): Json {
  return {
    name,
    clientConfig: { url: `${served.url}/admit`, caBundle: Buffer.from(served.caBundle).toString('base64') },
    rules: [{ operations: ['CREATE', 'UPDATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }],
    sideEffects: 'None',
    admissionReviewVersions: ['v1'],
    ...extra,
  };
}

async function register(kind: 'Mutating' | 'Validating', name: string, webhooks: Json[]): Promise<void> {
  await h.create(kind === 'Mutating' ? MUTATING : VALIDATING, {
    apiVersion: 'admissionregistration.svc.io/v1',
    kind: `${kind}WebhookConfiguration`,
    metadata: { name },
    webhooks,
  });
}

const appendLabel =
  (letter: string): AdmissionHandler =>
  (req) => {
    const meta = (req.object!.metadata ??= {}) as Json;
    meta.labels = { ...meta.labels, order: `${meta.labels?.order ?? ''}${letter}` };
    return allow();
  };

describe('mutating webhooks', () => {
  it('run in the order of their configurations, each seeing the previous patch, and the result is stored', async () => {
    const a = await webhook(appendLabel('A'));
    const b = await webhook(appendLabel('B'));
    // Registered in reverse: the configuration names decide the order, not creation.
    await register('Mutating', 'b-config', [hookSpec('b.example.com', b)]);
    await register('Mutating', 'a-config', [hookSpec('a.example.com', a)]);
    const created = await h.create(configMaps(h.ns), configMap('ordered'));
    expect(created.metadata.labels.order).toBe('AB');
    expect((await h.read(`${configMaps(h.ns)}/ordered`)).metadata.labels.order).toBe('AB');
    expect(b.calls[0].object.metadata.labels.order).toBe('A');
    expect(a.calls[0].operation).toBe('CREATE');
    expect(a.calls[0].userInfo.username).toBe('system:anonymous');
    expect(JSON.parse(annotations['mutation.webhook.admission.svc.io/round_0_index_0']!)).toEqual({
      configuration: 'a-config',
      webhook: 'a.example.com',
      mutated: true,
    });
  });

  it('reinvokes an IfNeeded webhook once when a later webhook changed the object; Never is called once', async () => {
    const sawB = (req: Json) => {
      const meta = req.object.metadata;
      if (meta.labels?.b) meta.annotations = { ...meta.annotations, 'a-saw-b': 'true' };
      return allow();
    };
    const a = await webhook(sawB);
    const b = await webhook((req) => {
      (req.object!.metadata as Json).labels = { ...(req.object!.metadata as Json).labels, b: 'yes' };
      return allow();
    });
    await register('Mutating', 'a-config', [hookSpec('a.example.com', a, { reinvocationPolicy: 'IfNeeded' })]);
    await register('Mutating', 'b-config', [hookSpec('b.example.com', b)]);
    const created = await h.create(configMaps(h.ns), configMap('reinvoked'));
    expect(a.calls).toHaveLength(2);
    expect(b.calls).toHaveLength(1);
    expect(created.metadata.annotations?.['a-saw-b']).toBe('true');

    await h.delete(MUTATING);
    const never = await webhook(sawB);
    const b2 = await webhook((req) => {
      (req.object!.metadata as Json).labels = { b: 'yes' };
      return allow();
    });
    await register('Mutating', 'a-config', [hookSpec('a.example.com', never, { reinvocationPolicy: 'Never' })]);
    await register('Mutating', 'b-config', [hookSpec('b.example.com', b2)]);
    const second = await h.create(configMaps(h.ns), configMap('not-reinvoked'));
    expect(never.calls).toHaveLength(1);
    expect(second.metadata.annotations?.['a-saw-b']).toBeUndefined();
  });

  it('applies to patch (UPDATE with the old object) and to server-side apply', async () => {
    await h.create(configMaps(h.ns), configMap('patched'));
    const a = await webhook(appendLabel('P'));
    await register('Mutating', 'a-config', [hookSpec('a.example.com', a)]);
    const res = await h.patch(`${configMaps(h.ns)}/patched`, { data: { b: '2' } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.metadata.labels.order).toBe('P');
    expect(a.calls[0].operation).toBe('UPDATE');
    expect(a.calls[0].oldObject.data).toEqual({ a: '1' });
    // Server-side apply that creates: a CREATE, and the webhook's change is stored.
    const applied = await h.patch(
      `${configMaps(h.ns)}/applied?fieldManager=test`,
      JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'applied' }, data: { x: 'y' } }),
      'application/apply-patch+yaml',
    );
    expect(applied.status, JSON.stringify(applied.body)).toBe(201);
    expect(applied.body.metadata.labels.order).toBe('P');
    expect(a.calls.at(-1).operation).toBe('CREATE');
  });
});

describe('what mutation may change', () => {
  it('a patched update still bumps generation and keeps the server-owned metadata', async () => {
    await h.create(crontabs(h.ns), cronTabBody('gen'));
    const a = await webhook(appendLabel('G'));
    const rules = [{ operations: ['UPDATE'], apiGroups: ['stable.example.svc.io'], apiVersions: ['v1'], resources: ['crontabs'] }];
    await register('Mutating', 'gen', [hookSpec('gen.example.com', a, { rules })]);
    const res = await h.patch(crontab(h.ns, 'gen'), { spec: { replicas: 3 } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.metadata.labels.order).toBe('G');
    expect(res.body.metadata.generation).toBe(2);
    expect(res.body.metadata.uid).toBe(a.calls[0].oldObject.metadata.uid);
  });

  it('a webhook may not move the object to another namespace (400) or rename it on update (422)', async () => {
    const mover = await webhook((req) => {
      (req.object!.metadata as Json).namespace = 'elsewhere';
      return allow();
    });
    await register('Mutating', 'mover', [hookSpec('mover.example.com', mover)]);
    const moved = await h.post(configMaps(h.ns), configMap('moved'));
    expect(moved.status).toBe(400);
    expect(moved.body.message).toBe('the namespace of the provided object does not match the namespace sent on the request');
    await h.delete(MUTATING);
    await h.create(configMaps(h.ns), configMap('named'));
    const renamer = await webhook((req) => {
      (req.object!.metadata as Json).name = 'renamed';
      return allow();
    });
    await register('Mutating', 'renamer', [hookSpec('renamer.example.com', renamer)]);
    const renamed = await h.patch(`${configMaps(h.ns)}/named`, { data: { b: '2' } });
    expect(renamed.status).toBe(422);
    expect((await h.get(`${configMaps(h.ns)}/renamed`)).status).toBe(404);
  });
});

describe('failures', () => {
  it('a webhook that never answers within timeoutSeconds: Fail refuses with 500, Ignore lets the request through and annotates', async () => {
    const silent = await webhook(() => new Promise(() => {}));
    await register('Validating', 'slow', [hookSpec('slow.example.com', silent, { timeoutSeconds: 1, failurePolicy: 'Fail' })]);
    const failed = await h.post(configMaps(h.ns), configMap('timeout-fail'));
    expect(failed.status).toBe(500);
    expect(failed.body.reason).toBe('InternalError');
    expect(failed.body.message).toMatch(
      /^Internal error occurred: failed calling webhook "slow.example.com": failed to call webhook: .*timed out/,
    );
    await h.delete(VALIDATING);
    await register('Validating', 'slow', [hookSpec('slow.example.com', silent, { timeoutSeconds: 1, failurePolicy: 'Ignore' })]);
    const ignored = await h.post(configMaps(h.ns), configMap('timeout-ignore'));
    expect(ignored.status).toBe(201);
    expect(annotations['failed-open.validating.webhook.admission.svc.io/round_0_index_0']).toBe('slow.example.com');
  });

  it('a patch that is not base64 is a failed call: Ignore admits the object unchanged, Fail refuses with 500', async () => {
    const garbler = await serveWebhook(
      (body: Json) => ({
        apiVersion: body.apiVersion,
        kind: 'AdmissionReview',
        response: { uid: body.request.uid, allowed: true, patchType: 'JSONPatch', patch: 'not base64 at all!' },
      }),
      { tls },
    );
    hooks.push(garbler);
    await register('Mutating', 'garbler', [hookSpec('garbler.example.com', garbler, { failurePolicy: 'Ignore' })]);
    const admitted = await h.post(configMaps(h.ns), configMap('garbled-ignore'));
    expect(admitted.status).toBe(201);
    expect(admitted.body.data).toEqual({ a: '1' });
    expect(annotations['failed-open.mutation.webhook.admission.svc.io/round_0_index_0']).toBe('garbler.example.com');
    await h.delete(MUTATING);
    await register('Mutating', 'garbler', [hookSpec('garbler.example.com', garbler, { failurePolicy: 'Fail' })]);
    const refused = await h.post(configMaps(h.ns), configMap('garbled-fail'));
    expect(refused.status).toBe(500);
    expect(refused.body.message).toBe(
      'Internal error occurred: failed calling webhook "garbler.example.com": failed to call webhook: illegal base64 data at input byte 3',
    );
  });

  it("a webhook's warnings of any text give valid Warning headers, and the server keeps serving", async () => {
    const texts = ['☃ snow', '\u0001bell', 'line\nbreak', 'ok'];
    const warner = await webhook(() => ({ allowed: true, warnings: texts }));
    await register('Validating', 'warner', [hookSpec('warner.example.com', warner)]);
    const res = await h.post(configMaps(h.ns), configMap('hostile-warned'));
    expect(res.status).toBe(201);
    expect(warningsOf(res)).toEqual(['☃ snow', 'ok']);
    expect((await h.get('/healthz')).status).toBe(200);
  });

  it('an answer with another uid is a failed call; a validating webhook may not patch', async () => {
    const liar = await serveWebhook(
      (body: Json) => ({ apiVersion: body.apiVersion, kind: 'AdmissionReview', response: { uid: 'not-the-request', allowed: true } }),
      { tls },
    );
    hooks.push(liar);
    await register('Validating', 'liar', [hookSpec('liar.example.com', liar)]);
    const res = await h.post(configMaps(h.ns), configMap('liar'));
    expect(res.status).toBe(500);
    expect(res.body.message).toContain('expected response.uid=');
    await h.delete(VALIDATING);
    const patcher = await webhook(appendLabel('V'));
    await register('Validating', 'patcher', [hookSpec('patcher.example.com', patcher)]);
    const patched = await h.post(configMaps(h.ns), configMap('validating-patch'));
    expect(patched.status).toBe(500);
    expect(patched.body.message).toContain('validating webhooks may not return response.patch');
  });

  it('AdmissionReview v1beta1 is sent when the webhook accepts only it, and the answer must be of the same version', async () => {
    const old = await webhook(() => allow());
    await register('Validating', 'beta', [hookSpec('beta.example.com', old, { admissionReviewVersions: ['v1beta1'] })]);
    expect((await h.post(configMaps(h.ns), configMap('beta'))).status).toBe(201);
    await h.delete(VALIDATING);
    const wrong = await serveWebhook(
      (body: Json) => ({ apiVersion: 'admission.svc.io/v1', kind: 'AdmissionReview', response: { uid: body.request.uid, allowed: true } }),
      { tls },
    );
    hooks.push(wrong);
    await register('Validating', 'beta', [hookSpec('beta.example.com', wrong, { admissionReviewVersions: ['v1beta1', 'v1'] })]);
    const res = await h.post(configMaps(h.ns), configMap('beta-wrong'));
    expect(res.status).toBe(500);
    expect(res.body.message).toContain('expected webhook response of admission.svc.io/v1beta1');
  });

  it('a webhook whose certificate is not trusted (no caBundle) fails the call', async () => {
    const a = await webhook(() => allow());
    await register('Validating', 'untrusted', [{ ...hookSpec('untrusted.example.com', a), clientConfig: { url: a.url } }]);
    const res = await h.post(configMaps(h.ns), configMap('untrusted'));
    expect(res.status).toBe(500);
    expect(a.calls).toHaveLength(0);
  });
});

describe('denials, warnings, annotations', () => {
  it('a denial carries the webhook name, message and code', async () => {
    const no = await webhook(() => deny('configmaps are frozen', { code: 403, reason: 'Forbidden' }));
    await register('Validating', 'deny', [hookSpec('deny.example.com', no)]);
    const res = await h.post(configMaps(h.ns), configMap('denied'));
    expect(res.status).toBe(403);
    expect(res.body.message).toBe('admission webhook "deny.example.com" denied the request: configmaps are frozen');
    expect(res.body.reason).toBe('Forbidden');
    expect((await h.get(`${configMaps(h.ns)}/denied`)).status).toBe(404);
  });

  it('each call is observed in /metrics: latency by webhook, type and whether it rejected; rejections by code', async () => {
    const yes = await webhook(() => allow());
    const no = await webhook(() => deny('frozen', { code: 403, reason: 'Forbidden' }));
    await register('Mutating', 'yes', [hookSpec('yes.example.com', yes)]);
    await register('Validating', 'no', [hookSpec('no.example.com', no)]);
    expect((await h.post(configMaps(h.ns), configMap('observed'))).status).toBe(403);
    const metrics = await h.get('/metrics');
    const m = parsePrometheusText(metrics.text);
    const count = (labels: Record<string, string>) =>
      samples(m, 'apiserver_admission_webhook_admission_duration_seconds_count', labels).map((x) => x.value);
    expect(count({ name: 'yes.example.com', type: 'admit', operation: 'CREATE', rejected: 'false' })).toEqual([1]);
    expect(count({ name: 'no.example.com', type: 'validating', operation: 'CREATE', rejected: 'true' })).toEqual([1]);
    const rejections = samples(m, 'apiserver_admission_webhook_rejection_count', { name: 'no.example.com' });
    expect(rejections.map((x) => [x.labels.error_type, x.labels.rejection_code, x.value])).toEqual([['no_error', '403', 1]]);
  });

  it('a denial without a code is 400; without a message it says so', async () => {
    const bare = await serveWebhook(
      (body: Json) => ({ apiVersion: body.apiVersion, kind: 'AdmissionReview', response: { uid: body.request.uid, allowed: false } }),
      { tls },
    );
    hooks.push(bare);
    await register('Validating', 'bare', [hookSpec('bare.example.com', bare)]);
    const res = await h.post(configMaps(h.ns), configMap('bare'));
    expect(res.status).toBe(400);
    expect(res.body.message).toBe('admission webhook "bare.example.com" denied the request without explanation');
  });

  it('warnings become Warning headers, truncated as upstream; audit annotations are prefixed with the webhook name', async () => {
    const long = Array.from({ length: 20 }, (_, i) => `${i}`.padEnd(300, 'w'));
    const warn = await webhook(() => allow({ warnings: ['short warning', ...long], auditAnnotations: { decision: 'ok' } }));
    await register('Validating', 'warn', [hookSpec('warn.example.com', warn)]);
    const res = await h.post(configMaps(h.ns), configMap('warned'));
    expect(res.status).toBe(201);
    const warnings = warningsOf(res);
    expect(warnings[0]).toBe('short warning');
    expect(warnings.every((w) => w.length <= 256)).toBe(true);
    expect(warnings.reduce((n, w) => n + w.length, 0)).toBeLessThanOrEqual(4096);
    expect(warnings.length).toBeLessThan(21);
    expect(annotations['warn.example.com/decision']).toBe('ok');
  });
});

describe('matching', () => {
  it('namespaceSelector reads the namespace labels; objectSelector the object labels', async () => {
    const no = await webhook(() => deny('selected'));
    await register('Validating', 'ns', [hookSpec('ns.example.com', no, { namespaceSelector: { matchLabels: { env: 'prod' } } })]);
    await h.create('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'prod-ns', labels: { env: 'prod' } } });
    expect((await h.post(configMaps(h.ns), configMap('free'))).status).toBe(201);
    expect((await h.post(configMaps('prod-ns'), configMap('held'))).status).toBe(403);
    await h.delete(VALIDATING);
    await register('Validating', 'obj', [hookSpec('obj.example.com', no, { objectSelector: { matchLabels: { guard: 'yes' } } })]);
    expect((await h.post(configMaps(h.ns), configMap('unguarded'))).status).toBe(201);
    expect((await h.post(configMaps(h.ns), configMap('guarded', { guard: 'yes' }))).status).toBe(403);
  });

  it('for a Namespace itself the namespaceSelector reads its own labels; a service reference cannot be reached', async () => {
    const no = await webhook(() => deny('prod namespaces are created by the platform'));
    const rules = [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['namespaces'], scope: 'Cluster' }];
    await register('Validating', 'ns-self', [
      hookSpec('ns-self.example.com', no, { rules, namespaceSelector: { matchLabels: { env: 'prod' } } }),
    ]);
    expect((await h.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'dev-ns' } })).status).toBe(201);
    const prod = await h.post('/api/v1/namespaces', {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: 'prod-2', labels: { env: 'prod' } },
    });
    expect(prod.status).toBe(403);
    await h.delete(VALIDATING);
    await register('Validating', 'svc', [
      { ...hookSpec('svc.example.com', no), clientConfig: { service: { namespace: 'default', name: 'hooks' } }, failurePolicy: 'Fail' },
    ]);
    const res = await h.post(configMaps(h.ns), configMap('via-service'));
    expect(res.status).toBe(500);
    expect(res.body.message).toContain('service reference');
  });

  it('rules select operations and resources; match conditions select by CEL, an error follows the failure policy', async () => {
    const no = await webhook(() => deny('matched'));
    await register('Validating', 'cel', [
      hookSpec('cel.example.com', no, { matchConditions: [{ name: 'prefix', expression: "object.metadata.name.startsWith('deny-')" }] }),
    ]);
    expect((await h.post(configMaps(h.ns), configMap('allow-me'))).status).toBe(201);
    expect((await h.post(configMaps(h.ns), configMap('deny-me'))).status).toBe(403);
    await h.delete(VALIDATING);
    await register('Validating', 'cel', [
      hookSpec('cel.example.com', no, {
        failurePolicy: 'Fail',
        matchConditions: [{ name: 'broken', expression: 'object.spec.missing == 1' }],
      }),
    ]);
    const broken = await h.post(configMaps(h.ns), configMap('broken'));
    expect(broken.status).toBe(500);
    expect(broken.body.message).toContain('match condition "broken"');
    await h.delete(VALIDATING);
    // DELETE only: creates pass, deletes are refused with the stored object as oldObject.
    await register('Validating', 'deletes', [
      hookSpec('deletes.example.com', no, { rules: [{ operations: ['DELETE'], apiGroups: ['*'], apiVersions: ['*'], resources: ['*'] }] }),
    ]);
    expect((await h.post(configMaps(h.ns), configMap('kept'))).status).toBe(201);
    expect((await h.delete(`${configMaps(h.ns)}/kept`)).status).toBe(403);
    expect(no.calls.at(-1).operation).toBe('DELETE');
    expect(no.calls.at(-1).oldObject.metadata.name).toBe('kept');
    expect(no.calls.at(-1).object).toBeNull();
  });

  it('a configuration whose match condition does not compile is refused with 422 at the expression', async () => {
    const a = await webhook(() => allow());
    const res = await h.post(VALIDATING, {
      apiVersion: 'admissionregistration.svc.io/v1',
      kind: 'ValidatingWebhookConfiguration',
      metadata: { name: 'typo' },
      webhooks: [hookSpec('typo.example.com', a, { matchConditions: [{ name: 'typo', expression: 'object.metadata.name ==' }] })],
    });
    expect(res.status).toBe(422);
    expect(res.body.details.causes[0].field).toBe('webhooks[0].matchConditions[0].expression');
    expect(res.body.message).toContain('compilation failed');
    const table = await h.get(VALIDATING).set('accept', 'application/json;as=Table;v=v1;g=meta.svc.io');
    expect(table.status).toBe(200);
  });

  it('subresource rules: */status matches only the status subresource', async () => {
    const seen = await webhook(() => allow());
    await register('Validating', 'status', [
      hookSpec('status.example.com', seen, {
        rules: [{ operations: ['*'], apiGroups: ['*'], apiVersions: ['*'], resources: ['*/status'] }],
      }),
    ]);
    await h.create(`/api/v1/namespaces/${h.ns}/services`, {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'svc' },
      spec: { ports: [{ port: 80 }] },
    });
    expect(seen.calls).toHaveLength(0);
    const res = await h.patch(`/api/v1/namespaces/${h.ns}/services/svc/status`, { status: { loadBalancer: {} } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(seen.calls).toHaveLength(1);
    expect(seen.calls[0].subResource).toBe('status');
  });

  it('an eviction is a CREATE of pods/eviction with the Eviction as the object; a denial keeps the pod', async () => {
    const no = await webhook(() => deny('no evictions today'));
    await register('Validating', 'evictions', [
      hookSpec('evictions.example.com', no, {
        rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods/eviction'] }],
      }),
    ]);
    const pods = `/api/v1/namespaces/${h.ns}/pods`;
    await h.create(pods, {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'evictee' },
      spec: { containers: [{ name: 'c', image: 'x' }] },
    });
    expect(no.calls).toHaveLength(0);
    const res = await h.post(`${pods}/evictee/eviction`, { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: 'evictee' } });
    expect(res.status).toBe(403);
    expect(res.body.message).toBe('admission webhook "evictions.example.com" denied the request: no evictions today');
    expect(no.calls[0]).toMatchObject({
      operation: 'CREATE',
      subResource: 'eviction',
      kind: { group: 'policy', version: 'v1', kind: 'Eviction' },
    });
    expect((await h.get(`${pods}/evictee`)).status).toBe(200);
  });

  it('webhook configurations are never sent to webhooks', async () => {
    const all = await webhook(() => deny('everything'));
    await register('Validating', 'all', [
      hookSpec('all.example.com', all, { rules: [{ operations: ['*'], apiGroups: ['*'], apiVersions: ['*'], resources: ['*/*'] }] }),
    ]);
    // The configuration can still be removed, so a broken webhook cannot lock itself in.
    expect((await h.delete(`${VALIDATING}/all`)).status).toBe(200);
    expect(all.calls).toHaveLength(0);
  });
});

describe('dry run', () => {
  it('a dry run reaching a webhook with side effects is 400; NoneOnDryRun is called with dryRun true', async () => {
    const a = await webhook(() => allow());
    await register('Validating', 'effects', [hookSpec('effects.example.com', a, { sideEffects: 'Unknown' })]);
    const res = await h.post(`${configMaps(h.ns)}?dryRun=All`, configMap('dry'));
    expect(res.status).toBe(400);
    expect(res.body.message).toBe('admission webhook "effects.example.com" does not support dry run');
    expect(a.calls).toHaveLength(0);
    await h.delete(VALIDATING);
    await register('Validating', 'effects', [hookSpec('effects.example.com', a, { sideEffects: 'NoneOnDryRun' })]);
    expect((await h.post(`${configMaps(h.ns)}?dryRun=All`, configMap('dry'))).status).toBe(201);
    expect(a.calls[0].dryRun).toBe(true);
  });
});

describe("deletes the server's own controllers make", () => {
  /** Refuses DELETE of objects labelled `protected`, as the controller that asks. */
  const guard: AdmissionHandler = (req) =>
    req.operation === 'DELETE' && (req.oldObject as Json)?.metadata?.labels?.protected === 'yes'
      ? deny(`protected, even from ${req.userInfo.username}`)
      : allow();
  const deleteRule = { operations: ['DELETE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] };

  /** Polls until `check` holds; the bound only ends a hung test (the retries it waits for are a second apart). */
  async function until<T>(read: () => Promise<T>, check: (v: T) => boolean, what: string): Promise<T> {
    for (let i = 0; i < 3000; i++) {
      const v = await read();
      if (check(v)) return v;
      await new Promise((r) => setTimeout(r, 10));
    }
    throw new Error(`never happened: ${what}`);
  }

  it('namespace deletion is admitted as the namespace controller: a refusal keeps the namespace Terminating, with the reason', async () => {
    const a = await webhook(guard);
    await register('Validating', 'guard', [hookSpec('guard.example.com', a, { rules: [deleteRule] })]);
    await h.createNamespace('guarded');
    expect((await h.post(configMaps('guarded'), configMap('kept', { protected: 'yes' }))).status).toBe(201);
    expect((await h.post(configMaps('guarded'), configMap('free'))).status).toBe(201);
    expect((await h.delete('/api/v1/namespaces/guarded')).status).toBe(200);
    const ns = await until(
      async () => (await h.get('/api/v1/namespaces/guarded')).body,
      (n) => n.status?.conditions?.some((c: Json) => c.type === 'NamespaceDeletionContentFailure' && c.status === 'True'),
      'the content failure reported',
    );
    expect(ns.status.conditions.find((c: Json) => c.type === 'NamespaceDeletionContentFailure')).toMatchObject({
      reason: 'ContentDeletionFailed',
      message:
        'Failed to delete all resource types, 1 remaining: admission webhook "guard.example.com" denied the request: protected, even from system:serviceaccount:kube-system:namespace-controller',
    });
    expect((await h.get(`${configMaps('guarded')}/free`)).status).toBe(404);
    expect((await h.get(`${configMaps('guarded')}/kept`)).status).toBe(200);
    // Once admission allows it, the deletion finishes.
    await h.delete(VALIDATING);
    await until(
      async () => (await h.get('/api/v1/namespaces/guarded')).status,
      (s) => s === 404,
      'the namespace gone',
    );
  });

  it('garbage collection is admitted as the garbage collector: a refused dependent stays until admission allows it', async () => {
    const a = await webhook(guard);
    await register('Validating', 'guard', [hookSpec('guard.example.com', a, { rules: [deleteRule] })]);
    const owner = (await h.post(configMaps(h.ns), configMap('owner'))).body;
    const dependent = {
      ...configMap('dependent', { protected: 'yes' }),
      metadata: {
        name: 'dependent',
        labels: { protected: 'yes' },
        ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: owner.metadata.uid }],
      },
    };
    expect((await h.post(configMaps(h.ns), dependent)).status).toBe(201);
    expect((await h.delete(`${configMaps(h.ns)}/owner`)).status).toBe(200);
    await until(
      async () => a.calls.filter((c) => c.operation === 'DELETE' && c.oldObject?.metadata?.name === 'dependent'),
      (calls) => calls.length > 0,
      'the collector asked',
    );
    const asked = a.calls.find((c) => c.operation === 'DELETE' && c.oldObject?.metadata?.name === 'dependent')!;
    expect(asked.userInfo.username).toBe('system:serviceaccount:kube-system:generic-garbage-collector');
    expect(asked.options).toMatchObject({ kind: 'DeleteOptions', propagationPolicy: 'Background' });
    expect((await h.get(`${configMaps(h.ns)}/dependent`)).status).toBe(200);
    await h.delete(VALIDATING);
    await until(
      async () => (await h.get(`${configMaps(h.ns)}/dependent`)).status,
      (s) => s === 404,
      'the dependent collected',
    );
  });
});
