/**
 * `--group-suffix`: what the server SENDS names the served groups too. Under `k8s.io` the
 * SubjectAccessReview an authorization webhook receives, the AdmissionReview (its kind, resource
 * and options) a validating webhook receives, the ImageReview an image policy backend receives and
 * the audit events written to the log file carry upstream's names; under `svc.io`, the spec's.
 * The webhooks are the callback kit's, served over real HTTPS; the audit log is a real file.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuditPolicy, Auditor, LogFileAuditBackend } from '../runtime/audit/index.js';
import { parseTokenFile } from '../runtime/auth/index.js';
import { imagePolicyWebhook, mutatingWebhookAdmission, validatingWebhookAdmission } from '../runtime/server/index.js';
import {
  type JsonHandler,
  type ServedWebhook,
  admissionWebhook,
  allow,
  authorizationWebhook,
  imagePolicyBackend,
  selfSignedCertificate,
  serveWebhook,
} from '../runtime/webhook/index.js';
import { type RunningServer, startReferenceServer } from './reference-server.js';

type Json = any;

/** The handler, with every body it receives recorded first. */
function recording(handler: JsonHandler, into: Json[]): JsonHandler {
  return (body) => {
    into.push(body);
    return handler(body);
  };
}

function clientConfigOf(hook: ServedWebhook): string {
  return [
    'apiVersion: v1',
    'kind: Config',
    `clusters:\n- name: hook\n  cluster:\n    server: ${hook.url}\n    certificate-authority-data: ${Buffer.from(hook.caBundle).toString('base64')}`,
    'users:\n- name: hook\n  user: {}',
    'contexts:\n- name: hook\n  context:\n    cluster: hook\n    user: hook',
    'current-context: hook',
    '',
  ].join('\n');
}

describe.each(['k8s.io', 'svc.io'])('what the server sends under --group-suffix %s', (suffix) => {
  const tls = selfSignedCertificate();
  const sars: Json[] = [];
  const admissionReviews: Json[] = [];
  const imageReviews: Json[] = [];
  const hooks: ServedWebhook[] = [];
  let dir: string;
  let server: RunningServer;
  let auditLog: string;

  const call = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${server.url}${path}`, {
      method,
      headers: { authorization: 'Bearer alice-token', 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: res.status, body: (await res.json()) as Json };
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'svckit-suffix-payloads-'));
    const authz = await serveWebhook(
      recording(
        authorizationWebhook(() => ({ allowed: true, reason: 'kit allows' })),
        sars,
      ),
      { tls },
    );
    const admission = await serveWebhook(
      recording(
        admissionWebhook(() => allow()),
        admissionReviews,
      ),
      { tls },
    );
    const images = await serveWebhook(
      recording(
        imagePolicyBackend(() => ({ allowed: true, auditAnnotations: { checked: 'yes' } })),
        imageReviews,
      ),
      { tls },
    );
    hooks.push(authz, admission, images);
    writeFileSync(join(dir, 'authz.conf'), clientConfigOf(authz));
    auditLog = join(dir, 'audit.log');
    server = await startReferenceServer({
      store: 'memory',
      port: 0,
      groupSuffix: suffix,
      access: {
        tokens: parseTokenFile('alice-token,alice,1001\n'),
        authorizationConfig: {
          authorizers: [
            {
              type: 'Webhook',
              name: 'kit',
              webhook: {
                authorizedTTL: '0s',
                unauthorizedTTL: '0s',
                timeout: '5s',
                subjectAccessReviewVersion: 'v1',
                matchConditionSubjectAccessReviewVersion: 'v1',
                failurePolicy: 'Deny',
                connectionInfo: { type: 'KubeConfigFile', kubeConfigFile: join(dir, 'authz.conf') },
                matchConditions: [],
              },
            },
          ],
        },
      },
      audit: new Auditor(AuditPolicy.everything('Metadata'), new LogFileAuditBackend(auditLog)),
      admission: [
        mutatingWebhookAdmission(),
        validatingWebhookAdmission(),
        imagePolicyWebhook({ connection: { url: images.url, ca: tls.cert } }),
      ],
    });
    const registered = await call('POST', `/apis/admissionregistration.${suffix}/v1/validatingwebhookconfigurations`, {
      apiVersion: `admissionregistration.${suffix}/v1`,
      kind: 'ValidatingWebhookConfiguration',
      metadata: { name: 'leases' },
      webhooks: [
        {
          name: 'leases.example.io',
          rules: [{ apiGroups: ['*'], apiVersions: ['*'], operations: ['CREATE', 'DELETE'], resources: ['leases'] }],
          clientConfig: { url: `${admission.url}/validate`, caBundle: Buffer.from(admission.caBundle).toString('base64') },
          admissionReviewVersions: ['v1'],
          sideEffects: 'None',
        },
      ],
    });
    expect(registered.status).toBe(201);
    const leases = `/apis/coordination.${suffix}/v1/namespaces/default/leases`;
    const created = await call('POST', leases, {
      apiVersion: `coordination.${suffix}/v1`,
      kind: 'Lease',
      metadata: { name: 'leader' },
      spec: { holderIdentity: 'a' },
    });
    expect(created.status).toBe(201);
    expect((await call('DELETE', `${leases}/leader`)).status).toBe(200);
    const pod = await call('POST', '/api/v1/namespaces/default/pods', {
      apiVersion: 'v1',
      kind: 'Pod',
      // Annotations with `.image-policy.<suffix>/` in their key go to the backend.
      metadata: { name: 'p', annotations: { [`ticket.image-policy.${suffix}/id`]: '42', 'ticket.image-policy.example.io/id': 'no' } },
      spec: { containers: [{ name: 'main', image: 'example/app:1' }] },
    });
    expect(pod.status).toBe(201);
  });

  afterAll(async () => {
    await server?.close();
    for (const hook of hooks) await hook.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('the SubjectAccessReview: its apiVersion and the resource group it asks about', () => {
    expect(sars.length).toBeGreaterThan(0);
    for (const sar of sars) expect(sar.apiVersion).toBe(`authorization.${suffix}/v1`);
    const leaseCreate = sars.find((s) => s.spec.resourceAttributes?.resource === 'leases' && s.spec.resourceAttributes.verb === 'create');
    expect(leaseCreate?.spec).toMatchObject({
      user: 'alice',
      resourceAttributes: { group: `coordination.${suffix}`, version: 'v1', resource: 'leases', namespace: 'default' },
    });
  });

  it('the AdmissionReview: its apiVersion, kind and resource groups, and the options', () => {
    const [create, remove] = admissionReviews;
    expect(admissionReviews.map((r) => [r.apiVersion, r.request.operation])).toEqual([
      [`admission.${suffix}/v1`, 'CREATE'],
      [`admission.${suffix}/v1`, 'DELETE'],
    ]);
    expect(create.request).toMatchObject({
      kind: { group: `coordination.${suffix}`, version: 'v1', kind: 'Lease' },
      resource: { group: `coordination.${suffix}`, version: 'v1', resource: 'leases' },
      requestKind: { group: `coordination.${suffix}`, version: 'v1', kind: 'Lease' },
      object: { apiVersion: `coordination.${suffix}/v1` },
      options: { apiVersion: `meta.${suffix}/v1`, kind: 'CreateOptions' },
    });
    expect(remove.request.options).toMatchObject({ apiVersion: `meta.${suffix}/v1`, kind: 'DeleteOptions' });
  });

  it('the ImageReview: its apiVersion and the annotations it carries', () => {
    expect(imageReviews).toHaveLength(1);
    expect(imageReviews[0]).toMatchObject({
      apiVersion: `imagepolicy.${suffix}/v1alpha1`,
      kind: 'ImageReview',
      spec: { containers: [{ image: 'example/app:1' }], annotations: { [`ticket.image-policy.${suffix}/id`]: '42' }, namespace: 'default' },
    });
  });

  it('the audit log: event apiVersion, object group and the annotation keys', () => {
    const events = readFileSync(auditLog, 'utf8')
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l));
    expect(events.length).toBeGreaterThan(0);
    for (const e of events) expect(e.apiVersion).toBe(`audit.${suffix}/v1`);
    const leaseCreate = events.find((e) => e.verb === 'create' && e.objectRef?.resource === 'leases' && e.stage === 'ResponseComplete');
    expect(leaseCreate.objectRef).toMatchObject({ apiGroup: `coordination.${suffix}`, apiVersion: 'v1', name: 'leader' });
    expect(leaseCreate.annotations).toMatchObject({
      [`authorization.${suffix}/decision`]: 'allow',
      [`authorization.${suffix}/reason`]: 'kit allows',
    });
    const podCreate = events.find((e) => e.verb === 'create' && e.objectRef?.resource === 'pods' && e.stage === 'ResponseComplete');
    expect(podCreate.annotations).toMatchObject({ [`imagepolicywebhook.image-policy.${suffix}/checked`]: 'yes' });
    // Nothing the server wrote names the other suffix's groups.
    const other = suffix === 'k8s.io' ? 'svc.io' : 'k8s.io';
    expect(JSON.stringify(events)).not.toContain(`.${other}`);
  });
});
