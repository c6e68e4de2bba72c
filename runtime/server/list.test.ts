import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type ListOptions, createStore, encodeContinueToken } from '../store/index.js';
import { CONTINUE_TTL_MS, CRONTABS, type Harness, crontab, crontabs, expectStatus, names, qs, startServer } from './server.testing.js';

let h: Harness;
beforeEach(async () => {
  h = await startServer();
});
afterEach(() => h.close());

async function seed(...list: string[]): Promise<void> {
  for (const name of list) await h.createCronTab(name);
}

describe('chunked lists', () => {
  it('pages with limit and continue until continue is empty; remainingItemCount counts the rest', async () => {
    await seed('a', 'b', 'c', 'd', 'e');
    const rv = await h.currentRv();
    const first = await h.read(`${crontabs(h.ns)}${qs({ limit: 2 })}`);
    expect(names(first)).toEqual(['a', 'b']);
    expect(first.metadata.resourceVersion).toBe(rv);
    expect(first.metadata.continue).toMatch(/.+/);
    expect(first.metadata.remainingItemCount).toBe(3);

    const second = await h.read(`${crontabs(h.ns)}${qs({ limit: 2, continue: first.metadata.continue })}`);
    expect(names(second)).toEqual(['c', 'd']);
    expect(second.metadata.resourceVersion).toBe(rv);
    expect(second.metadata.remainingItemCount).toBe(1);

    const last = await h.read(`${crontabs(h.ns)}${qs({ limit: 2, continue: second.metadata.continue })}`);
    expect(names(last)).toEqual(['e']);
    expect(last.metadata).toEqual({ resourceVersion: rv, continue: '' });
  });

  it('ends with an empty continue when the last page is exactly full', async () => {
    await seed('a', 'b');
    const page = await h.read(`${crontabs(h.ns)}${qs({ limit: 2 })}`);
    expect(names(page)).toEqual(['a', 'b']);
    expect(page.metadata).toEqual({ resourceVersion: await h.currentRv(), continue: '' });
  });

  it('serves every page from one snapshot, even with writes between pages', async () => {
    await seed('a', 'b', 'c', 'd');
    const first = await h.read(`${crontabs(h.ns)}${qs({ limit: 2 })}`);
    const rv = first.metadata.resourceVersion;
    const c = await h.read(crontab(h.ns, 'c'));
    await h.patch(crontab(h.ns, 'c'), { metadata: { labels: { changed: 'yes' } } });
    expect((await h.delete(crontab(h.ns, 'd'))).status).toBe(200);
    await h.createCronTab('bb');
    await h.createCronTab('z');

    const second = await h.read(`${crontabs(h.ns)}${qs({ limit: 2, continue: first.metadata.continue })}`);
    expect(names(second)).toEqual(['c', 'd']);
    expect(second.items[0]).toEqual(c);
    expect(second.metadata).toEqual({ resourceVersion: rv, continue: '' });

    // A watch from the snapshot's version afterwards misses no update.
    const w = await h.watch(`${crontabs(h.ns)}${qs({ watch: 1, resourceVersion: rv })}`);
    const events = await w.take(4);
    expect(events.map((e) => `${e.type} ${e.object.metadata.name}`)).toEqual(['MODIFIED c', 'DELETED d', 'ADDED bb', 'ADDED z']);
    w.close();
  });

  it('keeps remainingItemCount exact on every page while objects are created and deleted after the first', async () => {
    await seed('a', 'b', 'c', 'd', 'e', 'f', 'g');
    const first = await h.read(`${crontabs(h.ns)}${qs({ limit: 2 })}`);
    expect(first.metadata.remainingItemCount).toBe(5);
    // Not in the snapshot: neither the new objects nor the deletions change what later pages count.
    await h.createCronTab('bb');
    await h.createCronTab('zz');
    expect((await h.delete(crontab(h.ns, 'c'))).status).toBe(200);
    expect((await h.delete(crontab(h.ns, 'f'))).status).toBe(200);
    const counts: number[] = [];
    let token: string = first.metadata.continue;
    const seen = names(first);
    while (token !== '') {
      const page = await h.read(`${crontabs(h.ns)}${qs({ limit: 2, continue: token })}`);
      seen.push(...names(page));
      if (page.metadata.continue !== '') counts.push(page.metadata.remainingItemCount);
      else expect(page.metadata.remainingItemCount).toBeUndefined();
      token = page.metadata.continue;
    }
    expect(seen).toEqual(['a', 'b', 'c', 'd', 'e', 'f', 'g']);
    expect(counts).toEqual([3, 1]);
  });

  it('counts the collection on the first page only; later pages take the count from the token', async () => {
    const store = await createStore('memory', { compactionIntervalMs: 0 });
    const asked: { prefix: string; countRemaining: boolean }[] = [];
    const spy = new Proxy(store, {
      get(target, prop) {
        const value = Reflect.get(target, prop, target);
        if (prop === 'list') {
          return (prefix: string, options: ListOptions = {}) => {
            asked.push({ prefix, countRemaining: options.countRemaining !== false });
            return target.list(prefix, options);
          };
        }
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    const s = await startServer({ store: spy, namespace: 'counted' });
    try {
      for (const name of ['a', 'b', 'c', 'd', 'e']) await s.createCronTab(name);
      const pages = [];
      let token = '';
      do {
        asked.length = 0;
        const page = await s.read(`${crontabs('counted')}${qs({ limit: 2, ...(token ? { continue: token } : {}) })}`);
        pages.push({
          remainingItemCount: page.metadata.remainingItemCount,
          counted: asked.filter((a) => a.prefix.endsWith('/crontabs/counted/')).map((a) => a.countRemaining),
        });
        token = page.metadata.continue;
      } while (token !== '');
      expect(pages).toEqual([
        { remainingItemCount: 3, counted: [true] },
        { remainingItemCount: 1, counted: [false] },
        { remainingItemCount: undefined, counted: [false] },
      ]);
    } finally {
      await s.close();
    }
  });

  it('still counts for a continue token that carries no count (issued before the count was carried)', async () => {
    await seed('a', 'b', 'c', 'd');
    const first = await h.read(`${crontabs(h.ns)}${qs({ limit: 1 })}`);
    const [payload] = (first.metadata.continue as string).split('.') as [string];
    const { p, s, r, t } = JSON.parse(Buffer.from(payload, 'base64url').toString());
    const old = encodeContinueToken({ prefix: p, startAfter: s, revision: r, issuedAt: t }, h.server.context.settings.continueSecret);
    const second = await h.read(`${crontabs(h.ns)}${qs({ limit: 1, continue: old })}`);
    expect(names(second)).toEqual(['b']);
    expect(second.metadata.remainingItemCount).toBe(2);
    const third = await h.read(`${crontabs(h.ns)}${qs({ limit: 1, continue: second.metadata.continue })}`);
    expect([names(third), third.metadata.remainingItemCount]).toEqual([['c'], 1]);
  });

  it('omits remainingItemCount when a selector is used, on every page', async () => {
    await h.createCronTab('a', { labels: { app: 'x' } });
    await h.createCronTab('b', { labels: { app: 'y' } });
    await h.createCronTab('c', { labels: { app: 'x' } });
    await h.createCronTab('d', { labels: { app: 'x' } });
    const first = await h.read(`${crontabs(h.ns)}${qs({ limit: 2, labelSelector: 'app=x' })}`);
    expect(names(first)).toEqual(['a', 'c']);
    expect(first.metadata.continue).not.toBe('');
    expect(first.metadata.remainingItemCount).toBeUndefined();
    const second = await h.read(`${crontabs(h.ns)}${qs({ limit: 2, labelSelector: 'app=x', continue: first.metadata.continue })}`);
    expect(names(second)).toEqual(['d']);
    expect(second.metadata).toEqual({ resourceVersion: first.metadata.resourceVersion, continue: '' });

    const byField = await h.read(`${crontabs(h.ns)}${qs({ limit: 1, fieldSelector: 'metadata.name!=a' })}`);
    expect(names(byField)).toEqual(['b']);
    expect(byField.metadata.remainingItemCount).toBeUndefined();
    expect(byField.metadata.continue).not.toBe('');
  });

  it('treats limit=0 as no limit', async () => {
    await seed('a', 'b', 'c');
    const list = await h.read(`${crontabs(h.ns)}${qs({ limit: 0 })}`);
    expect(names(list)).toEqual(['a', 'b', 'c']);
    expect(list.metadata.continue).toBe('');
  });

  it("rejects a limit that is not an integer with Go's ParseInt error (400); a negative one pages nothing, as upstream", async () => {
    await seed('a', 'b');
    for (const limit of ['ten', '1.5', '', '1e3', '9223372036854775808']) {
      const problem = limit === '9223372036854775808' ? 'value out of range' : 'invalid syntax';
      expect(expectStatus(await h.get(`${crontabs(h.ns)}?limit=${limit}`), 400, 'BadRequest').message).toBe(
        `strconv.ParseInt: parsing "${limit}": ${problem}`,
      );
    }
    const all = await h.read(`${crontabs(h.ns)}${qs({ limit: -1 })}`);
    expect([names(all), all.metadata.continue]).toEqual([['a', 'b'], '']);
    const first = await h.read(`${crontabs(h.ns)}?limit=%2B1`);
    expect(names(first)).toEqual(['a']);
  });

  it('rejects a tampered continue token (400)', async () => {
    await seed('a', 'b', 'c');
    const first = await h.read(`${crontabs(h.ns)}${qs({ limit: 1 })}`);
    const token: string = first.metadata.continue;
    const [payload, signature] = token.split('.') as [string, string];
    // Point the token at another position with the same signature.
    const forged = Buffer.from(
      JSON.stringify({ ...JSON.parse(Buffer.from(payload, 'base64url').toString()), s: `/stable.example.svc.io/crontabs/${h.ns}/b` }),
    ).toString('base64url');
    for (const bad of [`${forged}.${signature}`, `${payload}.${signature.slice(0, -2)}xx`, 'not-a-token', `${payload}`]) {
      const res = await h.get(`${crontabs(h.ns)}${qs({ limit: 1, continue: bad })}`);
      expect(expectStatus(res, 400, 'BadRequest').message).toMatch(/^invalid continue token: /);
    }
  });

  it('rejects a continue token issued for another collection (400)', async () => {
    await h.createNamespace('other');
    await seed('a', 'b');
    await h.createCronTab('a', {}, 'other');
    await h.createCronTab('b', {}, 'other');
    const first = await h.read(`${crontabs(h.ns)}${qs({ limit: 1 })}`);
    const res = await h.get(`${crontabs('other')}${qs({ limit: 1, continue: first.metadata.continue })}`);
    expect(expectStatus(res, 400, 'BadRequest').message).toMatch(/^invalid continue token: issued for another collection/);
    // Nor across resources or to the all-namespaces list.
    expectStatus(
      await h.get(`/api/v1/namespaces/${h.ns}/services${qs({ limit: 1, continue: first.metadata.continue })}`),
      400,
      'BadRequest',
    );
    expectStatus(await h.get(`${CRONTABS}/crontabs${qs({ limit: 1, continue: first.metadata.continue })}`), 400, 'BadRequest');
  });

  it('answers 410 Expired for a continue token older than its lifetime', async () => {
    await seed('a', 'b', 'c');
    const first = await h.read(`${crontabs(h.ns)}${qs({ limit: 1 })}`);
    h.clock.advance(CONTINUE_TTL_MS - 1000);
    const second = await h.read(`${crontabs(h.ns)}${qs({ limit: 1, continue: first.metadata.continue })}`);
    expect(names(second)).toEqual(['b']);
    // The lifetime counts from the first page, not from the token of the page before.
    h.clock.advance(2000);
    const res = await h.get(`${crontabs(h.ns)}${qs({ limit: 1, continue: second.metadata.continue })}`);
    expect(expectStatus(res, 410, 'Expired').message).toMatch(
      /^The provided continue parameter is too old to display a consistent list result/,
    );
  });

  it('answers 410 Expired when the snapshot of a token was compacted', async () => {
    await seed('a', 'b', 'c');
    const first = await h.read(`${crontabs(h.ns)}${qs({ limit: 1 })}`);
    await h.createCronTab('d');
    await h.expireHistory();
    const res = await h.get(`${crontabs(h.ns)}${qs({ limit: 1, continue: first.metadata.continue })}`);
    expectStatus(res, 410, 'Expired');
  });
});

describe('label selectors', () => {
  beforeEach(async () => {
    await h.createCronTab('a', { labels: { env: 'prod', tier: 'web' } });
    await h.createCronTab('b', { labels: { env: 'dev' } });
    await h.createCronTab('c', { labels: { tier: 'db' } });
  });

  it.each([
    ['env=prod', ['a']],
    ['env==prod', ['a']],
    ['env!=prod', ['b', 'c']],
    ['env in (prod,dev)', ['a', 'b']],
    ['env notin (prod)', ['b', 'c']],
    ['tier', ['a', 'c']],
    ['!tier', ['b']],
    ['env=prod,tier=web', ['a']],
    ['env,!tier', ['b']],
    ['env=staging', []],
  ])('%s selects %j', async (selector, expected) => {
    expect(names(await h.read(`${crontabs(h.ns)}${qs({ labelSelector: selector })}`))).toEqual(expected);
  });

  it('rejects a malformed label selector (400)', async () => {
    const res = await h.get(`${crontabs(h.ns)}${qs({ labelSelector: 'env in (prod' })}`);
    expect(expectStatus(res, 400, 'BadRequest').message).toMatch(/^unable to parse requirement: labelSelector: /);
  });
});

describe('field selectors', () => {
  beforeEach(async () => {
    await h.createNamespace('other');
    await h.createCronTab('a');
    await h.createCronTab('b');
    await h.createCronTab('a', {}, 'other');
  });

  it('selects by metadata.name with =, == and !=', async () => {
    expect(names(await h.read(`${crontabs(h.ns)}${qs({ fieldSelector: 'metadata.name=a' })}`))).toEqual(['a']);
    expect(names(await h.read(`${crontabs(h.ns)}${qs({ fieldSelector: 'metadata.name==b' })}`))).toEqual(['b']);
    expect(names(await h.read(`${crontabs(h.ns)}${qs({ fieldSelector: 'metadata.name!=a' })}`))).toEqual(['b']);
  });

  it('selects by metadata.namespace across all namespaces, combined with metadata.name', async () => {
    const list = await h.read(`${CRONTABS}/crontabs${qs({ fieldSelector: 'metadata.namespace=other' })}`);
    expect(list.items.map((i: { metadata: { namespace: string } }) => i.metadata.namespace)).toEqual(['other']);
    const both = await h.read(`${CRONTABS}/crontabs${qs({ fieldSelector: `metadata.name=a,metadata.namespace=${h.ns}` })}`);
    expect(both.items.map((i: { metadata: { namespace: string; name: string } }) => `${i.metadata.namespace}/${i.metadata.name}`)).toEqual([
      `${h.ns}/a`,
    ]);
  });

  it('rejects an unsupported field (400)', async () => {
    const res = await h.get(`${crontabs(h.ns)}${qs({ fieldSelector: 'spec.image=x' })}`);
    expect(expectStatus(res, 400, 'BadRequest').message).toMatch(/^field label not supported: spec\.image/);
  });

  it('combines label and field selectors', async () => {
    await h.patch(crontab(h.ns, 'b'), { metadata: { labels: { pick: 'me' } } });
    expect(names(await h.read(`${crontabs(h.ns)}${qs({ labelSelector: 'pick', fieldSelector: 'metadata.name=b' })}`))).toEqual(['b']);
    expect(names(await h.read(`${crontabs(h.ns)}${qs({ labelSelector: 'pick', fieldSelector: 'metadata.name=a' })}`))).toEqual([]);
  });
});
