import { Agent } from 'undici';
import { admissionWebhook, allow, deny, selfSignedCertificate, serveWebhook } from '../../runtime/webhook/index.js';
import { startReferenceServer } from '../../reference/index.js';
import { type BenchCase, runCases } from './harness.js';
import { inParallel, post } from './requests.js';

/**
 * The cost of admission webhooks: creates on a server with one mutating and one validating webhook
 * (real HTTPS servers made with the callback kit, on this machine) beside the same creates on a
 * server without webhooks. Both servers keep objects in memory, so the difference is the callbacks.
 */
export async function benchAdmission(): Promise<void> {
  const tls = selfSignedCertificate();
  const mutating = await serveWebhook(
    admissionWebhook((req) => {
      const meta = (req.object?.metadata ?? {}) as { labels?: Record<string, string> };
      meta.labels = { ...meta.labels, admitted: 'yes' };
      return allow();
    }),
    { tls },
  );
  const validating = await serveWebhook(
    admissionWebhook((req) => (req.name === 'forbidden' ? deny('no') : allow())),
    { tls },
  );
  const withHooks = await startReferenceServer({ store: 'memory' });
  const without = await startReferenceServer({ store: 'memory' });
  const agent = new Agent({ connections: 16, pipelining: 1 });
  const caBundle = Buffer.from(tls.cert).toString('base64');
  const rules = [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }];
  const hook = (name: string, url: string) => ({
    name,
    clientConfig: { url, caBundle },
    rules,
    sideEffects: 'None',
    admissionReviewVersions: ['v1'],
  });
  try {
    await post(agent, withHooks.url, '/apis/admissionregistration.svc.io/v1/mutatingwebhookconfigurations', {
      metadata: { name: 'bench' },
      webhooks: [hook('label.bench.svc.io', mutating.url)],
    });
    await post(agent, withHooks.url, '/apis/admissionregistration.svc.io/v1/validatingwebhookconfigurations', {
      metadata: { name: 'bench' },
      webhooks: [hook('check.bench.svc.io', validating.url)],
    });
    for (const s of [withHooks, without]) await post(agent, s.url, '/api/v1/namespaces', { metadata: { name: 'bench' } });
    let a = 0;
    let b = 0;
    const cm = (name: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { key: 'x'.repeat(200) } });
    const cases: BenchCase[] = [
      {
        name: 'create x300 with a mutating + a validating webhook (8 in flight)',
        ours: () => inParallel(300, 8, () => post(agent, withHooks.url, '/api/v1/namespaces/bench/configmaps', cm(`c${a++}`))),
        peer: {
          name: 'no webhooks',
          run: () => inParallel(300, 8, () => post(agent, without.url, '/api/v1/namespaces/bench/configmaps', cm(`c${b++}`))),
        },
        runs: 3,
      },
    ];
    const [result] = await runCases('Admission webhooks: creates with one mutating and one validating webhook vs none', cases);
    process.stdout.write(`webhook cost: ${(result!.oursMs / result!.peerMs).toFixed(2)}x the time of a create without webhooks\n`);
  } finally {
    await agent.close();
    await withHooks.close();
    await without.close();
    await mutating.close();
    await validating.close();
  }
}
