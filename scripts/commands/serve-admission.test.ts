import { mkdtempSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { imagePolicyBackend, selfSignedCertificate, serveWebhook } from '../../runtime/webhook/index.js';
import { type RunningServer, startReferenceServer } from '../../reference/index.js';
import { admissionFromFlags } from './serve-admission.js';
import { UsageError } from './usage-error.js';

let dir: string;
let running: RunningServer | undefined;
afterEach(async () => {
  await running?.close();
  running = undefined;
  if (dir) rmSync(dir, { recursive: true, force: true });
});

function files(entries: Record<string, string>): string {
  dir = mkdtempSync(join(tmpdir(), 'svckit-admission-'));
  for (const [name, text] of Object.entries(entries)) {
    mkdirSync(join(dir, name, '..'), { recursive: true });
    writeFileSync(join(dir, name), text);
  }
  return dir;
}

const RATE = (burst: number) => `apiVersion: eventratelimit.admission.svc.io/v1alpha1
kind: Configuration
limits:
  - type: Server
    qps: 1
    burst: ${burst}
`;

const event = (name: string) => ({
  apiVersion: 'v1',
  kind: 'Event',
  metadata: { name },
  involvedObject: { kind: 'Pod', name: 'p' },
});

async function postEvents(url: string, n: number): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const res = await fetch(`${url}/api/v1/namespaces/default/events`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(event(`e${i}`)),
    });
    await res.body?.cancel();
    out.push(res.status);
  }
  return out;
}

describe('svckit serve admission flags', () => {
  it('EventRateLimit from an AdmissionConfiguration whose plugin path is relative to the file', async () => {
    const d = files({
      'conf/admission.yaml': `apiVersion: apiserver.config.svc.io/v1
kind: AdmissionConfiguration
plugins:
  - name: EventRateLimit
    path: limits/rate.yaml
`,
      'conf/limits/rate.yaml': RATE(2),
    });
    const admission = admissionFromFlags({
      'enable-admission-plugins': 'EventRateLimit',
      'admission-control-config-file': join(d, 'conf/admission.yaml'),
    });
    running = await startReferenceServer({ store: 'memory', admission });
    expect(await postEvents(running.url, 3)).toEqual([201, 201, 429]);
  });

  it('an embedded configuration wins over the path', async () => {
    const d = files({
      'admission.yaml': `apiVersion: apiserver.config.svc.io/v1
kind: AdmissionConfiguration
plugins:
  - name: EventRateLimit
    path: missing.yaml
    configuration:
      apiVersion: eventratelimit.admission.svc.io/v1alpha1
      kind: Configuration
      limits: [{type: Server, qps: 1, burst: 1}]
`,
    });
    const admission = admissionFromFlags({
      'enable-admission-plugins': 'EventRateLimit',
      'admission-control-config-file': join(d, 'admission.yaml'),
    });
    running = await startReferenceServer({ store: 'memory', admission });
    expect(await postEvents(running.url, 2)).toEqual([201, 429]);
  });

  it('ImagePolicyWebhook reaches the backend named by its kubeConfigFile (relative to the plugin file)', async () => {
    const tls = selfSignedCertificate();
    const backend = await serveWebhook(
      imagePolicyBackend((spec) => ({ allowed: !spec.containers?.some((c) => c.image.startsWith('evil/')), reason: 'evil' })),
      { tls },
    );
    try {
      const d = files({
        'admission.yaml': `apiVersion: apiserver.config.svc.io/v1
kind: AdmissionConfiguration
plugins:
  - name: ImagePolicyWebhook
    path: image/policy.yaml
`,
        'image/policy.yaml': 'imagePolicy:\n  kubeConfigFile: backend.svcconfig\n  allowTTL: 50\n  denyTTL: 5\n',
        'image/backend.svcconfig': `apiVersion: v1
kind: Config
clusters:
  - name: backend
    cluster:
      server: ${backend.url}
      certificate-authority-data: ${Buffer.from(tls.cert).toString('base64')}
contexts:
  - name: backend
    context: {cluster: backend}
current-context: backend
`,
      });
      const admission = admissionFromFlags({
        'enable-admission-plugins': 'ImagePolicyWebhook',
        'admission-control-config-file': join(d, 'admission.yaml'),
      });
      running = await startReferenceServer({ store: 'memory', admission });
      const pod = (name: string, image: string) =>
        fetch(`${running!.url}/api/v1/namespaces/default/pods`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec: { containers: [{ name: 'c', image }] } }),
        });
      expect((await pod('good', 'good/app:1')).status).toBe(201);
      const denied = await pod('bad', 'evil/app:1');
      expect(denied.status).toBe(403);
      expect(((await denied.json()) as { message: string }).message).toContain(
        'image policy webhook backend denied one or more images: evil',
      );
    } finally {
      await backend.close();
    }
  });

  it('mistakes are usage errors naming the flag, the file and the field', () => {
    expect(() => admissionFromFlags({ 'enable-admission-plugins': 'NoSuchPlugin' })).toThrow(
      new UsageError(
        '--enable-admission-plugins: unknown admission plugin "NoSuchPlugin"; known: ImagePolicyWebhook, EventRateLimit, MutatingAdmissionWebhook, ValidatingAdmissionPolicy, ValidatingAdmissionWebhook',
      ),
    );
    expect(() => admissionFromFlags({ 'enable-admission-plugins': 'EventRateLimit' })).toThrow(/EventRateLimit needs its configuration/);
    const d = files({
      'admission.yaml':
        'apiVersion: apiserver.config.svc.io/v1\nkind: AdmissionConfiguration\nplugins:\n  - name: EventRateLimit\n    path: rate.yaml\n',
      'rate.yaml': RATE(0),
    });
    const bad = () =>
      admissionFromFlags({ 'enable-admission-plugins': 'EventRateLimit', 'admission-control-config-file': join(d, 'admission.yaml') });
    expect(bad).toThrow(UsageError);
    expect(bad).toThrow(/rate\.yaml is not valid:[\s\S]*limits\[0\]\.burst/);
    expect(() => admissionFromFlags({ 'admission-control-config-file': join(d, 'nope.yaml') })).toThrow(/nope\.yaml: no such file/);
  });

  it('the webhook plugins are on by default and can be disabled', () => {
    expect(admissionFromFlags({})).toHaveLength(3);
    expect(
      admissionFromFlags({ 'disable-admission-plugins': 'MutatingAdmissionWebhook,ValidatingAdmissionPolicy,ValidatingAdmissionWebhook' }),
    ).toHaveLength(0);
  });
});
