import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import * as https from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebhookAuthorizer, requestAttributes } from '../auth/index.js';
import {
  type ServedWebhook,
  admissionWebhook,
  allow,
  authorizationWebhook,
  deny,
  execCredentialPlugin,
  imagePolicyBackend,
  selfSignedCertificate,
  serveWebhook,
  type TlsKeyPair,
} from './index.js';

let tls: TlsKeyPair;
beforeAll(() => {
  tls = selfSignedCertificate();
});

/** POSTs `body` to a served webhook over HTTPS, trusting its certificate. */
function post(hook: ServedWebhook, body: string, method = 'POST'): Promise<{ status: number; json: any }> {
  return new Promise((resolve, reject) => {
    const req = https.request(`${hook.url}/hook`, { method, ca: hook.caBundle, headers: { 'content-type': 'application/json' } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, json: JSON.parse(Buffer.concat(chunks).toString('utf8')) }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

const review = (apiVersion: string, object: unknown) =>
  JSON.stringify({
    apiVersion,
    kind: 'AdmissionReview',
    request: { uid: 'u-1', kind: { group: '', version: 'v1', kind: 'ConfigMap' }, operation: 'CREATE', userInfo: {}, object },
  });

describe('admissionWebhook over serveWebhook', () => {
  let hook: ServedWebhook;
  beforeAll(async () => {
    hook = await serveWebhook(
      admissionWebhook((req) => {
        const o = req.object as any;
        if (o.metadata.name === 'bad') return deny('bad name', { warnings: ['w'] });
        o.metadata.labels = { seen: 'yes' };
        return allow({ auditAnnotations: { why: 'labelled' } });
      }),
      { tls },
    );
  });
  afterAll(() => hook.close());

  it('echoes the uid and the review version, and sends the JSON patch of the change', async () => {
    for (const v of ['admission.svc.io/v1', 'admission.svc.io/v1beta1']) {
      const res = await post(hook, review(v, { metadata: { name: 'ok' } }));
      expect(res.status).toBe(200);
      expect(res.json.apiVersion).toBe(v);
      const r = res.json.response;
      expect(r).toMatchObject({ uid: 'u-1', allowed: true, patchType: 'JSONPatch', auditAnnotations: { why: 'labelled' } });
      expect(JSON.parse(Buffer.from(r.patch, 'base64').toString())).toEqual([
        { op: 'add', path: '/metadata/labels', value: { seen: 'yes' } },
      ]);
    }
  });

  it('a denial carries the message and a 403 code, and no patch', async () => {
    const r = (await post(hook, review('admission.svc.io/v1', { metadata: { name: 'bad' } }))).json.response;
    expect(r).toEqual({ uid: 'u-1', allowed: false, status: { code: 403, message: 'bad name' }, warnings: ['w'] });
  });

  it('bad requests are 400 (not JSON, not a review, no uid); other methods 405', async () => {
    expect((await post(hook, '{nope')).status).toBe(400);
    expect((await post(hook, JSON.stringify({ kind: 'Pod' }))).status).toBe(400);
    expect(
      (await post(hook, JSON.stringify({ apiVersion: 'admission.svc.io/v1', kind: 'AdmissionReview', request: {} }))).json.message,
    ).toBe('the AdmissionReview has no request.uid');
    expect((await post(hook, '', 'GET')).status).toBe(405);
  });
});

describe('the other callbacks', () => {
  it('imagePolicyBackend and authorizationWebhook fill status', async () => {
    const images = await serveWebhook(
      imagePolicyBackend((spec) => ({ allowed: false, reason: `no ${spec.containers?.[0]?.image}` })),
      { tls },
    );
    const authz = await serveWebhook(
      authorizationWebhook((spec) => ({ allowed: spec.user === 'alice', reason: 'by name' })),
      { tls },
    );
    try {
      const img = await post(
        images,
        JSON.stringify({ apiVersion: 'imagepolicy.svc.io/v1alpha1', kind: 'ImageReview', spec: { containers: [{ image: 'x:1' }] } }),
      );
      expect(img.json.status).toEqual({ allowed: false, reason: 'no x:1' });
      const sar = await post(
        authz,
        JSON.stringify({ apiVersion: 'authorization.svc.io/v1', kind: 'SubjectAccessReview', spec: { user: 'alice' } }),
      );
      expect(sar.json).toMatchObject({ apiVersion: 'authorization.svc.io/v1', status: { allowed: true, reason: 'by name' } });
    } finally {
      await images.close();
      await authz.close();
    }
  });

  it("the server's own webhook authorizer reads the kit's authorizationWebhook answers", async () => {
    const seen: unknown[] = [];
    const authz = await serveWebhook(
      authorizationWebhook((spec) => {
        seen.push(spec);
        return spec.user === 'alice' ? { allowed: true, reason: 'alice may' } : { allowed: false, denied: true, reason: 'not alice' };
      }),
      { tls },
    );
    try {
      const authorizer = new WebhookAuthorizer({
        name: 'kit',
        connection: { url: authz.url, ca: authz.caBundle },
        subjectAccessReviewVersion: 'v1',
        authorizedTTLms: 0,
        unauthorizedTTLms: 0,
        timeoutMs: 5000,
        failurePolicy: 'Deny',
        matchConditions: [],
      });
      const attributes = requestAttributes('GET', '/api/v1/namespaces/ns/pods/p1');
      expect(await authorizer.authorize({ user: { username: 'alice', uid: '', groups: [], extra: {} }, attributes })).toMatchObject({
        decision: 'Allow',
        reason: 'alice may',
      });
      expect(await authorizer.authorize({ user: { username: 'bob', uid: '', groups: [], extra: {} }, attributes })).toMatchObject({
        decision: 'Deny',
        reason: 'not alice',
      });
      expect(seen[0]).toMatchObject({ user: 'alice', resourceAttributes: { namespace: 'ns', resource: 'pods', name: 'p1', verb: 'get' } });
    } finally {
      await authz.close();
    }
  });

  it('an exec plugin written with the kit runs as its own process: request from SVC_EXEC_INFO, ExecCredential on stdout', () => {
    const dir = mkdtempSync(join(tmpdir(), 'svckit-exec-plugin-'));
    try {
      const script = join(dir, 'plugin.mts');
      const kit = new URL('./index.ts', import.meta.url).pathname;
      writeFileSync(
        script,
        `import { execCredentialPlugin } from ${JSON.stringify(kit)};\nawait execCredentialPlugin((req) => ({ token: 'for-' + String(req.spec?.interactive) }));\n`,
      );
      const out = execFileSync(process.execPath, ['--import', 'tsx', script], {
        env: {
          ...process.env,
          SVC_EXEC_INFO: JSON.stringify({
            apiVersion: 'client.authentication.svc.io/v1',
            kind: 'ExecCredential',
            spec: { interactive: false },
          }),
        },
        encoding: 'utf8',
      });
      expect(JSON.parse(out)).toEqual({
        apiVersion: 'client.authentication.svc.io/v1',
        kind: 'ExecCredential',
        status: { token: 'for-false' },
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('execCredentialPlugin answers in the requested version; a request that is not an ExecCredential is an error', async () => {
    let out = '';
    const env = {
      SVC_EXEC_INFO: JSON.stringify({
        apiVersion: 'client.authentication.svc.io/v1beta1',
        kind: 'ExecCredential',
        spec: { interactive: false },
      }),
    };
    await execCredentialPlugin(() => ({ token: 't0k3n' }), { env, write: (t) => (out += t) });
    expect(JSON.parse(out)).toEqual({
      apiVersion: 'client.authentication.svc.io/v1beta1',
      kind: 'ExecCredential',
      status: { token: 't0k3n' },
    });
    await expect(
      execCredentialPlugin(() => ({ token: 'x' }), { env: { SVC_EXEC_INFO: '{"kind":"Pod"}' }, write: () => {} }),
    ).rejects.toThrow('SVC_EXEC_INFO does not hold an ExecCredential');
    await expect(execCredentialPlugin(() => ({}), { env: {}, write: () => {} })).rejects.toThrow(/needs a token/);
  });
});
