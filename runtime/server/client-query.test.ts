import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CRONTABS, type Harness, NAMESPACES, type WatchReader, crontab, crontabs, expectStatus, startServer } from './server.testing.js';

// What the clients people use send (Python's `watch=True`, `force=True`, kubeclient's
// `/watch/` paths), read as a 1.30 kube-apiserver reads it.

let h: Harness;
const open: WatchReader[] = [];
beforeEach(async () => {
  h = await startServer();
});
afterEach(async () => {
  for (const w of open.splice(0)) w.close();
  await h.close();
});

async function watch(path: string): Promise<WatchReader> {
  const w = await h.watch(path);
  open.push(w);
  expect(w.status).toBe(200);
  return w;
}

const names = (events: { type: string; object: { metadata: { name?: string } } }[]) =>
  events.map((e) => `${e.type} ${e.object.metadata.name ?? ''}`.trim());

describe('bool query parameters: anything but 0 and false (any case) is true', () => {
  it.each(['True', 'TRUE', 'yes', '1', ''])('watch=%s watches', async (value) => {
    const rv = await h.currentRv();
    const w = await watch(`${crontabs(h.ns)}?watch=${value}&resourceVersion=${rv}`);
    await h.createCronTab('a');
    expect(names([await w.next()])).toEqual(['ADDED a']);
  });

  it.each(['False', 'FALSE', '0'])('watch=%s lists', async (value) => {
    await h.createCronTab('a');
    const res = await h.get(`${crontabs(h.ns)}?watch=${value}`);
    expect([res.status, res.body.kind]).toEqual([200, 'CronTabList']);
  });

  it('allowWatchBookmarks=False asks for no bookmarks; allowWatchBookmarks=True for some', async () => {
    const rv = await h.currentRv();
    const none = await watch(`${crontabs(h.ns)}?watch=True&allowWatchBookmarks=False&resourceVersion=${rv}`);
    const some = await watch(`${crontabs(h.ns)}?watch=True&allowWatchBookmarks=True&resourceVersion=${rv}`);
    expect((await some.next()).type).toBe('BOOKMARK');
    expect(none.pending()).toEqual([]);
  });

  it('force=True forces an apply', async () => {
    const apply = (manager: string, image: string, force = '') =>
      h.patch(
        `${crontab(h.ns, 'a')}?fieldManager=${manager}${force}`,
        { apiVersion: 'stable.example.svc.io/v1', kind: 'CronTab', metadata: { name: 'a' }, spec: { cronSpec: '* * * * *', image } },
        'application/apply-patch+yaml',
      );
    expect((await apply('alice', 'one')).status).toBe(201);
    expectStatus(await apply('bob', 'two'), 409, 'Conflict');
    const forced = await apply('bob', 'two', '&force=True');
    expect([forced.status, forced.body.spec?.image]).toEqual([200, 'two']);
  });

  it('orphanDependents=True from the query is the Orphan policy', async () => {
    await h.create(`/api/v1/namespaces/${h.ns}/configmaps`, { metadata: { name: 'owner' } });
    const res = await h.delete(`/api/v1/namespaces/${h.ns}/configmaps/owner?orphanDependents=True`);
    expect([res.status, res.body.metadata?.finalizers]).toEqual([200, ['orphan']]);
  });
});

describe('integer query parameters: strconv.ParseInt, and only where the verb has the option', () => {
  it("timeoutSeconds=1.5 and gracePeriodSeconds= are 400 with Go's error; an option a get does not have is ignored", async () => {
    await h.createCronTab('a');
    expect(expectStatus(await h.get(`${crontabs(h.ns)}?watch=1&timeoutSeconds=1.5`), 400, 'BadRequest').message).toBe(
      'strconv.ParseInt: parsing "1.5": invalid syntax',
    );
    expect(expectStatus(await h.delete(`${crontab(h.ns, 'a')}?gracePeriodSeconds=`), 400, 'BadRequest').message).toBe(
      'strconv.ParseInt: parsing "": invalid syntax',
    );
    expect((await h.read(crontab(h.ns, 'a'))).metadata.name).toBe('a');
    expect((await h.get(`${crontab(h.ns, 'a')}?limit=ten&timeoutSeconds=x&watch=maybe`)).status).toBe(200);
  });

  it('a negative timeoutSeconds ends the watch at once', async () => {
    const w = await watch(`${crontabs(h.ns)}?watch=1&timeoutSeconds=-1&resourceVersion=${await h.currentRv()}`);
    expect(await w.rest()).toEqual([]);
  });
});

describe('the deprecated /watch/ paths are served as watches (kubeclient watches through them)', () => {
  const legacy = `${CRONTABS}/watch`;

  it('a namespaced collection, and the collection across namespaces', async () => {
    await h.createNamespace('other');
    const rv = await h.currentRv();
    const mine = await watch(`${legacy}/namespaces/${h.ns}/crontabs?resourceVersion=${rv}`);
    const all = await watch(`${legacy}/crontabs?resourceVersion=${rv}`);
    await h.createCronTab('x', {}, 'other');
    await h.createCronTab('y');
    expect(names([await mine.next()])).toEqual(['ADDED y']);
    expect(names(await all.take(2))).toEqual(['ADDED x', 'ADDED y']);
  });

  it('with a name: a watch of that object alone, its initial state first; ?watch=false changes nothing', async () => {
    await h.createCronTab('a');
    await h.createCronTab('b');
    const w = await watch(`${legacy}/namespaces/${h.ns}/crontabs/b?watch=false`);
    expect(names([await w.next()])).toEqual(['ADDED b']);
    await h.patch(crontab(h.ns, 'a'), { spec: { image: 'a2' } });
    await h.patch(crontab(h.ns, 'b'), { spec: { image: 'b2' } });
    const modified = await w.next();
    expect([modified.type, modified.object.metadata.name, modified.object.spec.image]).toEqual(['MODIFIED', 'b', 'b2']);
    await w.quiet(100);
  });

  it('a cluster-scoped object by name (a namespace)', async () => {
    await h.createNamespace('other');
    const w = await watch(`/api/v1/watch/namespaces/other?resourceVersion=${await h.currentRv()}`);
    await h.patch(`${NAMESPACES}/${h.ns}`, { metadata: { labels: { x: '1' } } });
    await h.patch(`${NAMESPACES}/other`, { metadata: { labels: { x: '2' } } });
    const e = await w.next();
    expect([e.type, e.object.metadata.name]).toEqual(['MODIFIED', 'other']);
  });

  it('a field selector naming another object is 400; other methods are 405; subresources have no watch path', async () => {
    await h.createCronTab('a');
    expect(
      expectStatus(await h.get(`${legacy}/namespaces/${h.ns}/crontabs/a?fieldSelector=metadata.name%3Db`), 400, 'BadRequest').message,
    ).toBe("fieldSelector metadata.name doesn't match requested name");
    expectStatus(await h.delete(`${legacy}/namespaces/${h.ns}/crontabs/a`), 405, 'MethodNotAllowed');
    expectStatus(await h.get(`${legacy}/namespaces/${h.ns}/crontabs/a/status`), 404, 'NotFound');
    expect((await h.read(crontab(h.ns, 'a'))).metadata.name).toBe('a');
  });
});

describe("write options: upstream's Validate<Verb>Options, one 422 on the verb's options kind", () => {
  const cm = (name: string) => `/api/v1/namespaces/${h.ns}/configmaps/${name}`;

  it('create: dryRun, fieldValidation and fieldManager problems are causes of one CreateOptions 422; nothing is created', async () => {
    const long = 'm'.repeat(129);
    const res = await h.post(`/api/v1/namespaces/${h.ns}/configmaps?dryRun=Bogus&fieldValidation=Loud&fieldManager=${long}`, {
      metadata: { name: 'a' },
    });
    const status = expectStatus(res, 422, 'Invalid');
    expect(status.message).toBe(
      'CreateOptions.meta.svc.io "" is invalid: [fieldManager: Too long: may not be more than 128 bytes, ' +
        'dryRun: Unsupported value: []string{"Bogus"}: supported values: "All", ' +
        'fieldValidation: Unsupported value: "Loud": supported values: "", "Ignore", "Strict", "Warn"]',
    );
    expect(status.details).toMatchObject({ group: 'meta.svc.io', kind: 'CreateOptions' });
    expect(status.details.causes.map((c: { field: string }) => c.field)).toEqual(['fieldManager', 'dryRun', 'fieldValidation']);
    expect((await h.get(cm('a'))).status).toBe(404);
  });

  it('update and patch report on UpdateOptions and PatchOptions; a fieldManager with a control character is named by its byte offset', async () => {
    await h.create(`/api/v1/namespaces/${h.ns}/configmaps`, { metadata: { name: 'a' } });
    const put = expectStatus(await h.put(`${cm('a')}?fieldManager=%C3%A9x%07`, { metadata: { name: 'a' } }), 422, 'Invalid');
    expect(put.message).toBe(
      'UpdateOptions.meta.svc.io "" is invalid: fieldManager: Invalid value: "éx\\a": invalid character U+0007 (at position 3)',
    );
    const patch = expectStatus(await h.patch(`${cm('a')}?dryRun=all`, { data: { x: '1' } }), 422, 'Invalid');
    expect(patch.message).toBe(
      'PatchOptions.meta.svc.io "" is invalid: dryRun: Unsupported value: []string{"all"}: supported values: "All"',
    );
    expect((await h.read(cm('a'))).data).toBeUndefined();
  });

  it('delete: a body is the source of options (its query is read for dryRun=All alone, as the spec says); without one the query is', async () => {
    await h.create(`/api/v1/namespaces/${h.ns}/configmaps`, { metadata: { name: 'a' } });
    const bad = expectStatus(await h.delete(`${cm('a')}?dryRun=All`, { kind: 'DeleteOptions', dryRun: ['Nope'] }), 422, 'Invalid');
    expect(bad.message).toBe(
      'DeleteOptions.meta.svc.io "" is invalid: dryRun: Unsupported value: []string{"Nope"}: supported values: "All"',
    );
    expect(expectStatus(await h.delete(`${cm('a')}?dryRun=Nope`), 422, 'Invalid').details.kind).toBe('DeleteOptions');
    // The query's propagation policy is not read beside a body: an orphan policy there changes nothing.
    await h.create(`/api/v1/namespaces/${h.ns}/configmaps`, { metadata: { name: 'b' } });
    const bodyWins = await h.delete(`${cm('b')}?propagationPolicy=Bogus`, { kind: 'DeleteOptions', apiVersion: 'v1' });
    expect(bodyWins.status).toBe(200);
    // The query asks for a dry run, the body does not: the spec's dryRun=All holds on every DELETE.
    expect((await h.delete(`${cm('a')}?dryRun=All`, { kind: 'DeleteOptions', apiVersion: 'v1' })).status).toBe(200);
    expect((await h.get(cm('a'))).status).toBe(200);
  });
});
