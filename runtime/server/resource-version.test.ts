import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Harness, crontab, crontabs, expectStatus, names, qs, startServer } from './server.testing.js';

let h: Harness;
beforeEach(async () => {
  h = await startServer();
});
afterEach(() => h.close());

/** a at rv1, b at rv2, then a updated at rv3: the collection differs at rv1 and now. */
async function history(): Promise<{ rv1: string; rv2: string; rv3: string }> {
  const a = await h.createCronTab('a');
  const b = await h.createCronTab('b');
  const updated = await h.patch(crontab(h.ns, 'a'), { metadata: { labels: { v: '2' } } });
  return { rv1: a.metadata.resourceVersion, rv2: b.metadata.resourceVersion, rv3: updated.body.metadata.resourceVersion };
}

function expectTooLarge(res: Awaited<ReturnType<Harness['get']>>, requested: number, current: string): void {
  const status = expectStatus(res, 504, 'Timeout');
  expect(status.message).toBe(`Timeout: Too large resource version: ${requested}, current: ${current}`);
  expect(status.details).toEqual({
    causes: [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }],
    retryAfterSeconds: 1,
  });
  expect(res.headers['retry-after']).toBe('1');
}

describe('get', () => {
  it('unset: Most Recent', async () => {
    const { rv3 } = await history();
    expect((await h.read(crontab(h.ns, 'a'))).metadata.resourceVersion).toBe(rv3);
  });

  it('empty (resourceVersion=): a consistent read, Most Recent', async () => {
    const { rv3 } = await history();
    expect((await h.read(`${crontab(h.ns, 'a')}?resourceVersion=`)).metadata.resourceVersion).toBe(rv3);
  });

  it('"0": Any (the newest is served)', async () => {
    const { rv3 } = await history();
    expect((await h.read(`${crontab(h.ns, 'a')}${qs({ resourceVersion: '0' })}`)).metadata.resourceVersion).toBe(rv3);
  });

  it('other value: Not older than (an older version gives the current object)', async () => {
    const { rv1, rv3 } = await history();
    const res = await h.read(`${crontab(h.ns, 'a')}${qs({ resourceVersion: rv1 })}`);
    expect(res.metadata.resourceVersion).toBe(rv3);
    expect(res.metadata.labels).toEqual({ v: '2' });
    // Even one that compaction dropped: not older than is always satisfiable from the present.
    await h.expireHistory();
    expect((await h.read(`${crontab(h.ns, 'a')}${qs({ resourceVersion: rv1 })}`)).metadata.resourceVersion).toBe(rv3);
  });

  it('a version the server has not reached: 504 Timeout with Retry-After, "Too large resource version"', async () => {
    const { rv3 } = await history();
    const started = Date.now();
    const res = await h.get(`${crontab(h.ns, 'a')}${qs({ resourceVersion: Number(rv3) + 100 })}`);
    expect(Date.now() - started).toBeGreaterThanOrEqual(40);
    expectTooLarge(res, Number(rv3) + 100, rv3);
  });

  it('a version that arrives while the read waits is served', async () => {
    const { rv3 } = await history();
    const pending = h.get(`${crontab(h.ns, 'a')}${qs({ resourceVersion: Number(rv3) + 1 })}`).then((r) => r);
    // futureRevisionWaitMs is 50: write right away.
    await h.patch(crontab(h.ns, 'a'), { metadata: { labels: { v: '3' } } });
    const res = await pending;
    expect(res.status).toBe(200);
    expect(res.body.metadata.resourceVersion).toBe(String(Number(rv3) + 1));
  });

  it('a malformed version is 400', async () => {
    await history();
    expect(expectStatus(await h.get(`${crontab(h.ns, 'a')}${qs({ resourceVersion: 'abc' })}`), 400, 'BadRequest').message).toContain(
      'invalid resource version',
    );
  });
});

describe('list', () => {
  const list = (params: Record<string, string | number | undefined>) => h.get(`${crontabs(h.ns)}${qs(params)}`);

  describe('resourceVersionMatch unset, limit unset', () => {
    it('version unset: Most Recent', async () => {
      const { rv3 } = await history();
      const res = await list({});
      expect(res.status).toBe(200);
      expect(res.body.metadata.resourceVersion).toBe(rv3);
      expect(res.body.items[0].metadata.labels).toEqual({ v: '2' });
    });

    it('version "0": Any', async () => {
      const { rv3 } = await history();
      const res = await list({ resourceVersion: '0' });
      expect(res.status).toBe(200);
      expect(res.body.metadata.resourceVersion).toBe(rv3);
      expect(names(res.body)).toEqual(['a', 'b']);
    });

    it('other value: Not older than', async () => {
      const { rv1, rv3 } = await history();
      const res = await list({ resourceVersion: rv1 });
      expect(res.status).toBe(200);
      expect(Number(res.body.metadata.resourceVersion)).toBeGreaterThanOrEqual(Number(rv1));
      expect(res.body.metadata.resourceVersion).toBe(rv3);
      expect(names(res.body)).toEqual(['a', 'b']);
    });

    it('empty version: Most Recent', async () => {
      const { rv3 } = await history();
      const res = await h.get(`${crontabs(h.ns)}?resourceVersion=`);
      expect(res.status).toBe(200);
      expect(res.body.metadata.resourceVersion).toBe(rv3);
    });
  });

  describe('resourceVersionMatch unset, limit=n, continue unset', () => {
    it('version unset: Most Recent', async () => {
      const { rv3 } = await history();
      const res = await list({ limit: 1 });
      expect(res.body.metadata.resourceVersion).toBe(rv3);
      expect(names(res.body)).toEqual(['a']);
      expect(res.body.items[0].metadata.labels).toEqual({ v: '2' });
    });

    it('version "0": Any', async () => {
      const { rv3 } = await history();
      const res = await list({ limit: 1, resourceVersion: '0' });
      expect(res.status).toBe(200);
      expect(res.body.metadata.resourceVersion).toBe(rv3);
    });

    it('other value: Exact (the collection as it was at that version)', async () => {
      const { rv1 } = await history();
      const res = await list({ limit: 5, resourceVersion: rv1 });
      expect(res.status).toBe(200);
      expect(res.body.metadata).toEqual({ resourceVersion: rv1, continue: '' });
      expect(names(res.body)).toEqual(['a']);
      expect(res.body.items[0].metadata.labels).toBeUndefined();
    });

    it('other value, paged: every page at that exact version', async () => {
      const { rv2 } = await history();
      const first = await list({ limit: 1, resourceVersion: rv2 });
      expect(first.body.metadata.resourceVersion).toBe(rv2);
      expect(first.body.items[0].metadata.resourceVersion).not.toBe(await h.currentRv());
      const second = await list({ limit: 1, continue: first.body.metadata.continue });
      expect(second.body.metadata).toEqual({ resourceVersion: rv2, continue: '' });
      expect(names(second.body)).toEqual(['b']);
    });

    it('other value, compacted: 410 Expired', async () => {
      const { rv1 } = await history();
      await h.expireHistory();
      const res = await list({ limit: 1, resourceVersion: rv1 });
      expect(expectStatus(res, 410, 'Expired').message).toMatch(/^too old resource version: /);
    });
  });

  describe('resourceVersionMatch unset, limit=n, continue=token', () => {
    it('version unset: Continue Token, Exact', async () => {
      const { rv3 } = await history();
      const first = await list({ limit: 1 });
      await h.createCronTab('c');
      const second = await list({ limit: 1, continue: first.body.metadata.continue });
      expect(second.body.metadata).toEqual({ resourceVersion: rv3, continue: '' });
      expect(names(second.body)).toEqual(['b']);
    });

    it('version "0": Invalid, treated as Continue Token, Exact', async () => {
      const { rv3 } = await history();
      const first = await list({ limit: 1 });
      await h.createCronTab('c');
      const second = await list({ limit: 1, resourceVersion: '0', continue: first.body.metadata.continue });
      expect(second.status).toBe(200);
      expect(second.body.metadata).toEqual({ resourceVersion: rv3, continue: '' });
    });

    it('other value: Invalid, 400', async () => {
      const { rv3 } = await history();
      const first = await list({ limit: 1 });
      const res = await list({ limit: 1, resourceVersion: rv3, continue: first.body.metadata.continue });
      expect(expectStatus(res, 400, 'BadRequest').message).toBe('specifying resource version is not allowed when using continue');
    });
  });

  describe('resourceVersionMatch=Exact', () => {
    for (const limit of [undefined, 1]) {
      const paging = limit === undefined ? 'limit unset' : 'limit=n';
      it(`${paging}: version unset is Invalid (422 on ListOptions, as upstream)`, async () => {
        await history();
        const res = await list({ limit, resourceVersionMatch: 'Exact' });
        expect(expectStatus(res, 422, 'Invalid').message).toBe(
          'ListOptions.meta.svc.io "" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided',
        );
        expectStatus(
          await h.get(`${crontabs(h.ns)}?resourceVersion=&resourceVersionMatch=Exact${limit ? '&limit=1' : ''}`),
          422,
          'Invalid',
        );
      });

      it(`${paging}: version "0" is Invalid (422)`, async () => {
        await history();
        const res = await list({ limit, resourceVersion: '0', resourceVersionMatch: 'Exact' });
        expect(expectStatus(res, 422, 'Invalid').message).toBe(
          'ListOptions.meta.svc.io "" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch "exact" is forbidden for resourceVersion "0"',
        );
      });

      it(`${paging}: other value is Exact`, async () => {
        const { rv1 } = await history();
        const res = await list({ limit, resourceVersion: rv1, resourceVersionMatch: 'Exact' });
        expect(res.status).toBe(200);
        expect(res.body.metadata.resourceVersion).toBe(rv1);
        expect(names(res.body)).toEqual(['a']);
        expect(res.body.items[0].metadata.resourceVersion).toBe(rv1);
      });

      it(`${paging}: a compacted version is 410 Expired`, async () => {
        const { rv1 } = await history();
        await h.expireHistory();
        const res = await list({ limit, resourceVersion: rv1, resourceVersionMatch: 'Exact' });
        expect(expectStatus(res, 410, 'Expired').message).toMatch(/^too old resource version: /);
      });

      it(`${paging}: a version not reached yet is 504 with Retry-After`, async () => {
        const { rv3 } = await history();
        expectTooLarge(await list({ limit, resourceVersion: Number(rv3) + 5, resourceVersionMatch: 'Exact' }), Number(rv3) + 5, rv3);
      });
    }
  });

  describe('resourceVersionMatch=NotOlderThan', () => {
    for (const limit of [undefined, 1]) {
      const paging = limit === undefined ? 'limit unset' : 'limit=n';
      it(`${paging}: version unset is Invalid (422)`, async () => {
        await history();
        expectStatus(await list({ limit, resourceVersionMatch: 'NotOlderThan' }), 422, 'Invalid');
      });

      it(`${paging}: version "0" is Any`, async () => {
        const { rv3 } = await history();
        const res = await list({ limit, resourceVersion: '0', resourceVersionMatch: 'NotOlderThan' });
        expect(res.status).toBe(200);
        expect(res.body.metadata.resourceVersion).toBe(rv3);
      });

      it(`${paging}: other value is Not older than`, async () => {
        const { rv1, rv3 } = await history();
        const res = await list({ limit, resourceVersion: rv1, resourceVersionMatch: 'NotOlderThan' });
        expect(res.status).toBe(200);
        expect(res.body.metadata.resourceVersion).toBe(rv3);
        expect(res.body.items[0].metadata.labels).toEqual({ v: '2' });
      });

      it(`${paging}: a version not reached yet is 504 with Retry-After`, async () => {
        const { rv3 } = await history();
        expectTooLarge(await list({ limit, resourceVersion: Number(rv3) + 5, resourceVersionMatch: 'NotOlderThan' }), Number(rv3) + 5, rv3);
      });
    }

    it('limit=n with a version older than the history: 410 Expired; without limit: served', async () => {
      const { rv1, rv3 } = await history();
      await h.createCronTab('c');
      await h.expireHistory();
      expectStatus(await list({ limit: 1, resourceVersion: rv1, resourceVersionMatch: 'NotOlderThan' }), 410, 'Expired');
      const res = await list({ resourceVersion: rv1, resourceVersionMatch: 'NotOlderThan' });
      expect(res.status).toBe(200);
      expect(Number(res.body.metadata.resourceVersion)).toBeGreaterThan(Number(rv3));
    });
  });

  it('rejects resourceVersionMatch values other than Exact and NotOlderThan (422)', async () => {
    const { rv1 } = await history();
    expect(expectStatus(await list({ resourceVersion: rv1, resourceVersionMatch: 'Newest' }), 422, 'Invalid').message).toBe(
      'ListOptions.meta.svc.io "" is invalid: resourceVersionMatch: Unsupported value: "Newest": supported values: "Exact", "NotOlderThan", ""',
    );
  });

  it('rejects resourceVersionMatch together with continue (422), every cause at once as upstream', async () => {
    await history();
    const first = await list({ limit: 1 });
    const res = await list({ limit: 1, resourceVersionMatch: 'Exact', continue: first.body.metadata.continue });
    expect(expectStatus(res, 422, 'Invalid').details.causes.map((c: { message: string }) => c.message)).toEqual([
      'Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided',
      'Forbidden: resourceVersionMatch is forbidden when continue is provided',
    ]);
  });

  it('sendInitialEvents on a list is Invalid (422)', async () => {
    expect(expectStatus(await list({ sendInitialEvents: 'false' }), 422, 'Invalid').message).toBe(
      'ListOptions.meta.svc.io "" is invalid: sendInitialEvents: Forbidden: sendInitialEvents is forbidden for list',
    );
  });

  it('a malformed version is 400', async () => {
    await history();
    expectStatus(await list({ resourceVersion: '12a' }), 400, 'BadRequest');
    expectStatus(await list({ resourceVersion: '-1', resourceVersionMatch: 'Exact' }), 400, 'BadRequest');
  });

  it('other value not reached yet, no match, no limit: 504', async () => {
    const { rv3 } = await history();
    expectTooLarge(await list({ resourceVersion: Number(rv3) + 1 }), Number(rv3) + 1, rv3);
  });
});
