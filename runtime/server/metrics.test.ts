import { afterEach, describe, expect, it } from 'vitest';
import { parsePrometheusText, samples } from '../metrics/prometheus-text.testing.js';
import { type Harness, startServer } from './server.testing.js';

const CMS = '/api/v1/namespaces/test/configmaps';
const FS_V1BETA3 = '/apis/flowcontrol.apiserver.svc.io/v1beta3/flowschemas';

describe('/metrics', () => {
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  async function scrape(s: Harness) {
    const res = await s.get('/metrics');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/plain; version=0.0.4; charset=utf-8');
    return parsePrometheusText(res.text);
  }

  it('counts requests by verb, resource, scope and code, with latency histograms, in the Prometheus text format', async () => {
    const s = (h = await startServer());
    for (const name of ['a', 'b']) await s.post(CMS, { metadata: { name } });
    await s.get(`${CMS}/a`);
    await s.get(`${CMS}/missing`);
    await s.get(CMS);
    await s
      .patch(`${CMS}/a`, 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n', 'application/apply-patch+yaml')
      .query({ fieldManager: 't' });
    await s.get('/api/v1/configmaps');
    await s.get('/no/such/path');
    const m = await scrape(s);
    expect(m.get('apiserver_request_total')?.help).toMatch(/^\[STABLE\] /);
    const total = (labels: Record<string, string>) =>
      samples(m, 'apiserver_request_total', { component: 'apiserver', ...labels }).map((x) => x.value);
    const cm = { group: '', version: 'v1', resource: 'configmaps', subresource: '' };
    expect(total({ ...cm, verb: 'POST', scope: 'resource', code: '201' })).toEqual([2]);
    expect(total({ ...cm, verb: 'GET', scope: 'resource', code: '200' })).toEqual([1]);
    expect(total({ ...cm, verb: 'GET', scope: 'resource', code: '404' })).toEqual([1]);
    expect(total({ ...cm, verb: 'LIST', scope: 'namespace', code: '200' })).toEqual([1]);
    expect(total({ ...cm, verb: 'LIST', scope: 'cluster', code: '200' })).toEqual([1]);
    expect(total({ ...cm, verb: 'APPLY', scope: 'resource' })).toEqual([1]);
    // An unknown path is counted without inventing resource labels.
    expect(total({ verb: 'GET', code: '404', resource: '', scope: '' })).toEqual([1]);
    const count = samples(m, 'apiserver_request_duration_seconds_count', { ...cm, verb: 'POST', scope: 'resource' });
    expect(count.map((x) => x.value)).toEqual([2]);
    expect(m.get('apiserver_request_duration_seconds')?.type).toBe('histogram');
  });

  it('keeps counting across scrapes: each shows every request before it', async () => {
    const s = (h = await startServer());
    const gets = async () =>
      samples(await scrape(s), 'apiserver_request_total', { verb: 'GET', resource: 'configmaps', code: '404' }).map((x) => x.value);
    await s.get(`${CMS}/missing`);
    expect(await gets()).toEqual([1]);
    expect(await gets()).toEqual([1]);
    await s.get(`${CMS}/missing`);
    await s.get(`${CMS}/missing`);
    expect(await gets()).toEqual([3]);
  });

  it('sets apiserver_requested_deprecated_apis for a deprecated version, joinable with the request counter', async () => {
    const s = (h = await startServer());
    expect(samples(await scrape(s), 'apiserver_requested_deprecated_apis')).toEqual([]);
    await s.get('/apis/flowcontrol.apiserver.svc.io/v1/flowschemas');
    expect(samples(await scrape(s), 'apiserver_requested_deprecated_apis')).toEqual([]);
    expect((await s.get(FS_V1BETA3)).status).toBe(200);
    const m = await scrape(s);
    expect(m.get('apiserver_requested_deprecated_apis')?.help).toMatch(/^\[STABLE\] /);
    const gauge = samples(m, 'apiserver_requested_deprecated_apis');
    expect(gauge).toEqual([
      {
        name: 'apiserver_requested_deprecated_apis',
        labels: {
          group: 'flowcontrol.apiserver.svc.io',
          version: 'v1beta3',
          resource: 'flowschemas',
          subresource: '',
          removed_release: '1.32',
        },
        value: 1,
      },
    ]);
    const { removed_release: _, ...join } = gauge[0]!.labels;
    expect(samples(m, 'apiserver_request_total', join).map((x) => [x.labels.verb, x.value])).toEqual([['LIST', 1]]);

    // A subresource of the deprecated version is its own series.
    const fs = {
      apiVersion: 'flowcontrol.apiserver.svc.io/v1',
      kind: 'FlowSchema',
      metadata: { name: 'fs' },
      spec: { priorityLevelConfiguration: { name: 'p' }, matchingPrecedence: 9100, distinguisherMethod: { type: 'ByUser' } },
    };
    expect((await s.post('/apis/flowcontrol.apiserver.svc.io/v1/flowschemas', fs)).status).toBe(201);
    expect((await s.get(`${FS_V1BETA3}/fs/status`)).status).toBe(200);
    const status = samples(await scrape(s), 'apiserver_requested_deprecated_apis', { subresource: 'status' });
    expect(status.map((x) => [x.labels.resource, x.labels.version, x.labels.removed_release, x.value])).toEqual([
      ['flowschemas', 'v1beta3', '1.32', 1],
    ]);
  });

  it('tracks an open watch as a long-running request until it ends', async () => {
    const s = (h = await startServer());
    const watching = async () =>
      samples(await scrape(s), 'apiserver_longrunning_requests', { verb: 'WATCH', resource: 'configmaps', scope: 'namespace' }).map(
        (x) => x.value,
      );
    const watch = await s.watch(`${CMS}?watch=1`);
    expect(await watching()).toEqual([1]);
    watch.close();
    await expect.poll(watching).toEqual([0]);
  });

  it('counts the stored objects of each resource at the scrape', async () => {
    const s = (h = await startServer());
    for (const name of ['a', 'b', 'c']) await s.post(CMS, { metadata: { name } });
    await s.createCronTab('d');
    const m = await scrape(s);
    const stored = (resource: string) => samples(m, 'apiserver_storage_objects', { resource }).map((x) => x.value);
    expect(stored('configmaps')).toEqual([3]);
    expect(stored('crontabs.stable.example.svc.io')).toEqual([1]);
    expect(stored('namespaces')).toEqual([1]);
    expect(stored('subjectaccessreviews.authorization.svc.io')).toEqual([]); // virtual: never stored
  });

  it('declares the authorizer and admission webhook latencies for those stages to observe into', async () => {
    const s = (h = await startServer());
    s.server.context.metrics!.authorizationWebhookDuration.observe({ name: 'authz', result: 'success' }, 0.02);
    s.server.context.metrics!.admissionWebhookDuration.observe(
      { name: 'w.example.com', type: 'validating', operation: 'CREATE', rejected: 'false' },
      0.2,
    );
    const m = await scrape(s);
    expect(samples(m, 'apiserver_authorization_webhook_duration_seconds_count', { name: 'authz' }).map((x) => x.value)).toEqual([1]);
    expect(
      samples(m, 'apiserver_admission_webhook_admission_duration_seconds_count', { name: 'w.example.com' }).map((x) => x.value),
    ).toEqual([1]);
    expect(m.get('apiserver_admission_webhook_admission_duration_seconds')?.help).toMatch(/^\[STABLE\] /);
  });

  it('is absent from a server built without metrics', async () => {
    const s = (h = await startServer({ server: { metrics: false } }));
    expect((await s.get('/metrics')).status).toBe(404);
  });
});
