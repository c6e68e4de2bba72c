import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Harness, crontab, crontabs, expectStatus, names, qs, services, startServer, warningsOf } from './server.testing.js';

let h: Harness;
beforeEach(async () => {
  h = await startServer();
});
afterEach(() => h.close());

/** A CronTab body with two unknown fields and one duplicate key, as raw JSON text. */
const messy = (name: string) =>
  `{"apiVersion":"stable.example.svc.io/v1","kind":"CronTab","metadata":{"name":"${name}","bogus":1},"spec":{"cronSpec":"* * * * *","image":"first","image":"second","foo":{"bar":true}}}`;

const post = (query: string, text: string) =>
  h.http
    .post(`${crontabs(h.ns)}${query}`)
    .set('content-type', 'application/json')
    .send(text);

const UNKNOWN_AND_DUPLICATE = ['unknown field "metadata.bogus"', 'unknown field "spec.foo"', 'duplicate field "spec.image"'];

describe('fieldValidation on create', () => {
  it.each(['', '?fieldValidation=Warn'])(
    'Warn (%s): succeeds with one Warning item per unknown or duplicate field; unknown fields are dropped',
    async (query) => {
      const res = await post(query, messy('a'));
      expect(res.status).toBe(201);
      expect(warningsOf(res)).toEqual(UNKNOWN_AND_DUPLICATE);
      expect(res.body.spec).toEqual({ cronSpec: '* * * * *', image: 'second', replicas: 1, minReplicas: 0, maxReplicas: 10 });
      expect(res.body.metadata.bogus).toBeUndefined();
      const stored = await h.read(crontab(h.ns, 'a'));
      expect(stored.spec.foo).toBeUndefined();
      expect(warningsOf(await h.get(crontab(h.ns, 'a')))).toEqual([]);
    },
  );

  it('Ignore: succeeds silently; unknown fields are dropped', async () => {
    const res = await post('?fieldValidation=Ignore', messy('a'));
    expect(res.status).toBe(201);
    expect(res.headers.warning).toBeUndefined();
    expect(res.body.spec.foo).toBeUndefined();
    expect(res.body.spec.image).toBe('second');
  });

  it('Strict: 400 listing every unknown and duplicate field; nothing stored', async () => {
    const res = await post('?fieldValidation=Strict', messy('a'));
    const status = expectStatus(res, 400, 'BadRequest');
    expect(status.message).toBe(`strict decoding error: ${UNKNOWN_AND_DUPLICATE.join(', ')}`);
    expect(status.details.causes).toEqual([
      { reason: 'FieldValueInvalid', message: 'unknown field "metadata.bogus"', field: 'metadata.bogus' },
      { reason: 'FieldValueInvalid', message: 'unknown field "spec.foo"', field: 'spec.foo' },
      { reason: 'FieldValueDuplicate', message: 'duplicate field "spec.image"', field: 'spec.image' },
    ]);
    expect(res.headers.warning).toBeUndefined();
    expect(names(await h.read(crontabs(h.ns)))).toEqual([]);
  });

  it('Strict with a clean body succeeds', async () => {
    const res = await post('?fieldValidation=Strict', '{"metadata":{"name":"a"},"spec":{"cronSpec":"* * * * *","image":"i"}}');
    expect(res.status).toBe(201);
    expect(res.headers.warning).toBeUndefined();
  });

  it.each(['Ignore', 'Warn', 'Strict'])(
    '%s: another fatal error wins alone: 400 for it, no unknown or duplicate field mentioned',
    async (level) => {
      const text = '{"metadata":{"name":"web","bogus":1,"bogus":2},"spec":{"ports":[{"port":"eighty"}],"nope":true}}';
      const res = await h.http
        .post(`${services(h.ns)}?fieldValidation=${level}`)
        .set('content-type', 'application/json')
        .send(text);
      const status = expectStatus(res, 400, 'BadRequest');
      expect(status.message).toContain('spec.ports[0].port');
      expect(status.message).not.toMatch(/unknown field|duplicate field|bogus|nope/);
      expect(status.details.causes).toHaveLength(1);
      expect(status.details.causes[0].field).toBe('spec.ports[0].port');
      expect(res.headers.warning).toBeUndefined();
    },
  );

  it('a missing required field is a 400 naming it', async () => {
    const res = await post('', '{"metadata":{"name":"a"},"spec":{"cronSpec":"* * * * *"}}');
    const status = expectStatus(res, 400, 'BadRequest');
    expect(status.details.causes).toEqual([
      { reason: 'FieldValueRequired', message: expect.stringContaining('spec.image'), field: 'spec.image' },
    ]);
  });

  // The server answers 400 (query.ts); upstream answers 422 Invalid on CreateOptions. Either is a client error.
  it('rejects an unknown fieldValidation level', async () => {
    const res = await post('?fieldValidation=Loud', messy('a'));
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.status).toBeLessThan(500);
    expect(res.body.message).toContain('fieldValidation');
    expect(names(await h.read(crontabs(h.ns)))).toEqual([]);
  });
});

describe('fieldValidation on update and patch', () => {
  it('update: Warn warns and drops; Strict refuses', async () => {
    const created = await h.createCronTab('a');
    const body = { ...created, spec: { ...created.spec, image: 'next', extraneous: 1 } };
    const warned = await h.put(crontab(h.ns, 'a'), body);
    expect(warned.status).toBe(200);
    expect(warningsOf(warned)).toEqual(['unknown field "spec.extraneous"']);
    expect(warned.body.spec.extraneous).toBeUndefined();
    const strict = await h.put(`${crontab(h.ns, 'a')}?fieldValidation=Strict`, {
      ...warned.body,
      spec: { ...warned.body.spec, extraneous: 1 },
    });
    expect(expectStatus(strict, 400, 'BadRequest').message).toBe('strict decoding error: unknown field "spec.extraneous"');
  });

  it('patch: Warn warns and drops; Strict refuses; Ignore is silent', async () => {
    await h.createCronTab('a');
    const warned = await h.patch(crontab(h.ns, 'a'), { spec: { image: 'next', extraneous: 1 } });
    expect(warned.status).toBe(200);
    expect(warningsOf(warned)).toEqual(['unknown field "spec.extraneous"']);
    expect(warned.body.spec).not.toHaveProperty('extraneous');
    const strict = await h.patch(`${crontab(h.ns, 'a')}?fieldValidation=Strict`, { spec: { extraneous: 1 } });
    expectStatus(strict, 400, 'BadRequest');
    const ignored = await h.patch(`${crontab(h.ns, 'a')}?fieldValidation=Ignore`, { spec: { extraneous: 1 } });
    expect(ignored.status).toBe(200);
    expect(ignored.headers.warning).toBeUndefined();
  });

  it('patch: duplicate keys in a merge patch are reported', async () => {
    await h.createCronTab('a');
    const res = await h.patch(`${crontab(h.ns, 'a')}${qs({ fieldValidation: 'Strict' })}`, '{"spec":{"image":"a","image":"b"}}');
    expect(expectStatus(res, 400, 'BadRequest').message).toBe('strict decoding error: duplicate field "spec.image"');
    const warned = await h.patch(crontab(h.ns, 'a'), '{"spec":{"image":"a","image":"b"}}');
    expect(warned.status).toBe(200);
    expect(warningsOf(warned)).toEqual(['duplicate field "spec.image"']);
    expect(warned.body.spec.image).toBe('b');
  });
});
