import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Store, type WriteOptions, createStore } from '../store/index.js';
import { type Harness, crontab, crontabs, expectStatus, service, serviceBody, services, startServer } from './server.testing.js';

let h: Harness;
beforeEach(async () => {
  h = await startServer();
});
afterEach(() => h.close());

describe('patch types', () => {
  it('applies a JSON Patch (RFC 6902), test operations included', async () => {
    const created = await h.createCronTab('a', { labels: { tier: 'web' } });
    const res = await h.patch(
      crontab(h.ns, 'a'),
      [
        { op: 'test', path: '/spec/image', value: 'registry.example/cron:1' },
        { op: 'replace', path: '/spec/image', value: 'next' },
        { op: 'add', path: '/metadata/labels/env', value: 'prod' },
        { op: 'remove', path: '/metadata/labels/tier' },
      ],
      'json',
    );
    expect(res.status).toBe(200);
    expect(res.body.spec.image).toBe('next');
    expect(res.body.metadata.labels).toEqual({ env: 'prod' });
    expect(Number(res.body.metadata.resourceVersion)).toBeGreaterThan(Number(created.metadata.resourceVersion));
    expect(await h.read(crontab(h.ns, 'a'))).toEqual(res.body);
  });

  it('answers 422 when a JSON Patch test fails, and changes nothing', async () => {
    const created = await h.createCronTab('a');
    const res = await h.patch(
      crontab(h.ns, 'a'),
      [
        { op: 'test', path: '/spec/image', value: 'other' },
        { op: 'replace', path: '/spec/image', value: 'x' },
      ],
      'json',
    );
    expectStatus(res, 422, 'Invalid');
    expect(await h.read(crontab(h.ns, 'a'))).toEqual(created);
  });

  it('answers 400 for a JSON Patch that is not a list of operations', async () => {
    await h.createCronTab('a');
    expectStatus(await h.patch(crontab(h.ns, 'a'), { op: 'replace' }, 'json'), 400, 'BadRequest');
  });

  it('applies a JSON Merge Patch (RFC 7386): objects merge, null removes, lists are replaced', async () => {
    await h.create(
      services(h.ns),
      serviceBody('web', {
        labels: { a: '1', b: '2' },
        spec: {
          ports: [
            { name: 'http', port: 80 },
            { name: 'metrics', port: 9090 },
          ],
        },
      }),
    );
    const res = await h.patch(
      service(h.ns, 'web'),
      { metadata: { labels: { a: null, c: '3' } }, spec: { ports: [{ name: 'https', port: 443 }] } },
      'merge',
    );
    expect(res.status).toBe(200);
    expect(res.body.metadata.labels).toEqual({ b: '2', c: '3' });
    // targetPort defaults to the port (SetDefaults_Service).
    expect(res.body.spec.ports).toEqual([{ name: 'https', port: 443, protocol: 'TCP', targetPort: 443 }]);
  });

  it('applies a strategic merge patch on a built-in kind: lists merge by their key', async () => {
    await h.create(services(h.ns), serviceBody('web', { spec: { ports: [{ name: 'http', port: 80 }] } }));
    const res = await h.patch(service(h.ns, 'web'), { spec: { ports: [{ name: 'https', port: 443 }] } }, 'strategic');
    expect(res.status).toBe(200);
    // Patch items first, then the ones only the server had, as upstream orders a merged list.
    expect(res.body.spec.ports).toEqual([
      { name: 'https', port: 443, protocol: 'TCP', targetPort: 443 },
      { name: 'http', port: 80, protocol: 'TCP', targetPort: 80 },
    ]);
    const deleted = await h.patch(service(h.ns, 'web'), { spec: { ports: [{ $patch: 'delete', port: 80 }] } }, 'strategic');
    expect(deleted.status).toBe(200);
    expect(deleted.body.spec.ports).toEqual([{ name: 'https', port: 443, protocol: 'TCP', targetPort: 443 }]);
  });

  it('refuses a strategic merge patch on the CronTab custom resource (415) listing the accepted types', async () => {
    await h.createCronTab('a');
    const res = await h.patch(crontab(h.ns, 'a'), { spec: { image: 'x' } }, 'strategic');
    const status = expectStatus(res, 415, 'UnsupportedMediaType');
    expect(status.message).toBe(
      'the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml',
    );
  });

  it('refuses an unknown patch type (415) listing the accepted types', async () => {
    await h.create(services(h.ns), serviceBody('web'));
    const res = await h.patch(service(h.ns, 'web'), { spec: {} }, 'application/json');
    const status = expectStatus(res, 415, 'UnsupportedMediaType');
    expect(status.message).toBe(
      'the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/strategic-merge-patch+json, application/apply-patch+yaml',
    );
    expect((await h.patch(service(h.ns, 'web'), { spec: {} }, 'text/plain')).status).toBe(415);
  });

  it('answers 400 for a patch body that is not JSON', async () => {
    await h.createCronTab('a');
    const res = await h.patch(crontab(h.ns, 'a'), '{"spec": ', 'merge');
    expectStatus(res, 400, 'BadRequest');
  });

  it('answers 404 for a patch of a missing object', async () => {
    const res = await h.patch(crontab(h.ns, 'missing'), { spec: { image: 'x' } });
    expect(expectStatus(res, 404, 'NotFound').message).toBe('crontabs.stable.example.svc.io "missing" not found');
  });

  it('validates the patched object: a CEL rule failure is 422 and nothing is stored', async () => {
    const created = await h.createCronTab('a');
    const res = await h.patch(crontab(h.ns, 'a'), { spec: { replicas: 11 } });
    const status = expectStatus(res, 422, 'Invalid');
    expect(status.details.causes).toEqual([
      {
        reason: 'FieldValueInvalid',
        message: 'Invalid value: "object": replicas must be less than or equal to maxReplicas',
        field: 'spec',
      },
    ]);
    expect(await h.read(crontab(h.ns, 'a'))).toEqual(created);
  });
});

describe('patch results', () => {
  it('a patch that changes nothing writes nothing: same resourceVersion, no event', async () => {
    const created = await h.createCronTab('a', { labels: { x: 'y' } });
    const w = await h.watch(`${crontabs(h.ns)}?watch=1&resourceVersion=${created.metadata.resourceVersion}`);
    const res = await h.patch(crontab(h.ns, 'a'), { metadata: { labels: { x: 'y' } }, spec: { image: created.spec.image } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual(created);
    await w.quiet(100);
    w.close();
  });

  it('bumps generation for a spec change only, not for metadata', async () => {
    await h.createCronTab('a');
    const labels = await h.patch(crontab(h.ns, 'a'), { metadata: { labels: { x: 'y' } } });
    expect(labels.body.metadata.generation).toBe(1);
    const spec = await h.patch(crontab(h.ns, 'a'), { spec: { image: 'next' } });
    expect(spec.body.metadata.generation).toBe(2);
    const status = await h.patch(`${crontab(h.ns, 'a')}/status`, { status: { replicas: 1 } });
    expect(status.body.metadata.generation).toBe(2);
  });
});

describe('patch and resourceVersion', () => {
  it('checks a resourceVersion carried in the patch: stale is 409 Conflict', async () => {
    const created = await h.createCronTab('a');
    await h.patch(crontab(h.ns, 'a'), { metadata: { labels: { step: '1' } } });
    const res = await h.patch(crontab(h.ns, 'a'), {
      metadata: { resourceVersion: created.metadata.resourceVersion, labels: { step: '2' } },
    });
    expect(expectStatus(res, 409, 'Conflict').message).toBe(
      'Operation cannot be fulfilled on crontabs.stable.example.svc.io "a": the object has been modified; please apply your changes to the latest version and try again',
    );
    expect((await h.read(crontab(h.ns, 'a'))).metadata.labels).toEqual({ step: '1' });
    // The current version passes.
    const current = await h.read(crontab(h.ns, 'a'));
    const ok = await h.patch(crontab(h.ns, 'a'), {
      metadata: { resourceVersion: current.metadata.resourceVersion, labels: { step: '3' } },
    });
    expect(ok.status).toBe(200);
    expect(ok.body.metadata.labels).toEqual({ step: '3' });
  });

  it('checks a resourceVersion set by a JSON Patch too', async () => {
    const created = await h.createCronTab('a');
    await h.patch(crontab(h.ns, 'a'), { metadata: { labels: { step: '1' } } });
    const res = await h.patch(
      crontab(h.ns, 'a'),
      [
        { op: 'replace', path: '/metadata/resourceVersion', value: created.metadata.resourceVersion },
        { op: 'replace', path: '/spec/image', value: 'x' },
      ],
      'json',
    );
    expectStatus(res, 409, 'Conflict');
  });

  // More racers than any fixed retry count: upstream's GuaranteedUpdate re-applies a patch to the
  // newer object for as long as the request lives (a wrk run of 8 appliers met 409s at 5 retries).
  it('never fails for staleness without a resourceVersion, even when many patches race', async () => {
    await h.createCronTab('a');
    const keys = Array.from({ length: 24 }, (_, i) => `k${i}`);
    const results = await Promise.all(keys.map((k) => h.patch(crontab(h.ns, 'a'), { metadata: { labels: { [k]: 'v' } } })));
    expect(results.map((r) => r.status)).toEqual(keys.map(() => 200));
    const stored = await h.read(crontab(h.ns, 'a'));
    expect(stored.metadata.labels).toEqual(Object.fromEntries(keys.map((k) => [k, 'v'])));
    // Every patch was one write.
    expect(new Set(results.map((r) => r.body.metadata.resourceVersion)).size).toBe(keys.length);
  });
});

/**
 * A store in which a rival writer rewrites `key` just before each of the first `times` conditional
 * updates of it: those updates lose their race, as under heavy contention.
 */
function rivalWins(inner: Store, key: RegExp, times: number): Store {
  let left = times;
  const update = async (k: string, value: string, options?: WriteOptions) => {
    if (options?.expectedModRevision !== undefined && key.test(k) && left > 0) {
      left--;
      await inner.update(k, (await inner.get(k))!.value);
    }
    return inner.update(k, value, options);
  };
  return new Proxy(inner, {
    get: (target, p) => (p === 'update' ? update : (Reflect.get(target, p) as (...a: unknown[]) => unknown).bind(target)),
  });
}

describe('patches that lose races', () => {
  // Upstream's GuaranteedUpdate re-applies a patch to the newer object for as long as the request
  // lives; a fixed count of retries turned contention into 409s (eight wrk appliers met them).
  for (const type of ['merge', 'apply'] as const) {
    it(`re-applies a ${type} patch without a resourceVersion however often it loses`, async () => {
      const inner = await createStore('memory', { compactionIntervalMs: 0 });
      const raced = await startServer({ store: rivalWins(inner, /crontabs\/test\/a$/, 12) });
      try {
        await raced.createCronTab('a');
        const res =
          type === 'merge'
            ? await raced.patch(crontab(raced.ns, 'a'), { metadata: { labels: { won: 'yes' } } })
            : await raced.http
                .patch(`${crontab(raced.ns, 'a')}?fieldManager=racer`)
                .set('content-type', 'application/apply-patch+yaml')
                .send(
                  JSON.stringify({
                    apiVersion: 'stable.example.svc.io/v1',
                    kind: 'CronTab',
                    metadata: { name: 'a', labels: { won: 'yes' } },
                  }),
                );
        expect(res.status, JSON.stringify(res.body)).toBe(200);
        expect((await raced.read(crontab(raced.ns, 'a'))).metadata.labels).toEqual(expect.objectContaining({ won: 'yes' }));
      } finally {
        await raced.close();
      }
    });
  }

  it('still answers 409 to a patch that names an older resourceVersion', async () => {
    const inner = await createStore('memory', { compactionIntervalMs: 0 });
    const raced = await startServer({ store: rivalWins(inner, /crontabs\/test\/a$/, 1) });
    try {
      const created = await raced.createCronTab('a');
      const res = await raced.patch(crontab(raced.ns, 'a'), {
        metadata: { resourceVersion: created.metadata.resourceVersion, labels: { won: 'yes' } },
      });
      expectStatus(res, 409, 'Conflict');
    } finally {
      await raced.close();
    }
  });
});

describe('patch of the status subresource', () => {
  it('changes only the status', async () => {
    const created = await h.createCronTab('a');
    const res = await h.patch(`${crontab(h.ns, 'a')}/status`, {
      spec: { image: 'ignored' },
      metadata: { labels: { x: 'y' } },
      status: { replicas: 4 },
    });
    expect(res.status).toBe(200);
    expect(res.body.status).toEqual({ replicas: 4 });
    expect(res.body.spec).toEqual(created.spec);
    expect(res.body.metadata.labels).toBeUndefined();
  });
});
