import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Harness, cronTabBody, crontab, crontabs, expectStatus, names, startServer } from './server.testing.js';

let h: Harness;
beforeEach(async () => {
  h = await startServer();
});
afterEach(() => h.close());

describe('CEL rules of the CronTab', () => {
  it('refuses a create that breaks a rule: 422 with the rule message and field path', async () => {
    const res = await h.post(crontabs(h.ns), cronTabBody('a', { spec: { replicas: 11 } }));
    const status = expectStatus(res, 422, 'Invalid');
    expect(status.message).toBe(
      'CronTab.stable.example.svc.io "a" is invalid: spec: Invalid value: "object": replicas must be less than or equal to maxReplicas',
    );
    expect(status.details).toEqual({
      name: 'a',
      group: 'stable.example.svc.io',
      kind: 'CronTab',
      causes: [
        {
          reason: 'FieldValueInvalid',
          message: 'Invalid value: "object": replicas must be less than or equal to maxReplicas',
          field: 'spec',
        },
      ],
    });
    expect(names(await h.read(crontabs(h.ns)))).toEqual([]);
  });

  it('lists every broken rule', async () => {
    const res = await h.post(crontabs(h.ns), cronTabBody('a', { spec: { replicas: 5, minReplicas: 6, maxReplicas: 4 } }));
    const status = expectStatus(res, 422, 'Invalid');
    expect(status.details.causes.map((c: { message: string }) => c.message)).toEqual([
      'Invalid value: "object": replicas must be greater than or equal to minReplicas',
      'Invalid value: "object": replicas must be less than or equal to maxReplicas',
    ]);
    expect(status.message).toBe(
      'CronTab.stable.example.svc.io "a" is invalid: [spec: Invalid value: "object": replicas must be greater than or equal to minReplicas, spec: Invalid value: "object": replicas must be less than or equal to maxReplicas]',
    );
  });

  it('checks rules on update too, against the defaulted object', async () => {
    const created = await h.createCronTab('a');
    const res = await h.put(crontab(h.ns, 'a'), { ...created, spec: { ...created.spec, minReplicas: 2 } });
    expect(expectStatus(res, 422, 'Invalid').details.causes[0].message).toBe(
      'Invalid value: "object": replicas must be greater than or equal to minReplicas',
    );
  });

  it('runs the transition rule on spec.mode on update only', async () => {
    // On create there is no old object: a suspended CronTab can be created.
    const created = await h.createCronTab('a', { spec: { mode: 'Suspended' } });
    expect(created.spec.mode).toBe('Suspended');
    // Staying suspended is fine, resuming is not.
    expect((await h.patch(crontab(h.ns, 'a'), { spec: { image: 'other' } })).status).toBe(200);
    const res = await h.patch(crontab(h.ns, 'a'), { spec: { mode: 'Normal' } });
    const status = expectStatus(res, 422, 'Invalid');
    expect(status.details.causes).toHaveLength(1);
    expect(status.details.causes[0]).toMatchObject({ reason: 'FieldValueInvalid', field: 'spec.mode' });
    expect(status.details.causes[0].message).toMatch(/^Invalid value: "\w+": a suspended CronTab cannot be resumed; create a new one$/);
    expect((await h.read(crontab(h.ns, 'a'))).spec.mode).toBe('Suspended');
    // Normal to Suspended is allowed.
    await h.createCronTab('b', { spec: { mode: 'Normal' } });
    expect((await h.patch(crontab(h.ns, 'b'), { spec: { mode: 'Suspended' } })).status).toBe(200);
  });

  // cel-rules.ts renders every rule failure as `Invalid value: "object"`; upstream shows the schema
  // type of the node the rule sits on (`"string"` for spec.mode). Not editable here: reported.
  it('names the schema type of a scalar field in a rule failure (upstream: Invalid value: "string")', async () => {
    await h.createCronTab('a', { spec: { mode: 'Suspended' } });
    const res = await h.patch(crontab(h.ns, 'a'), { spec: { mode: 'Normal' } });
    expect(res.body.details.causes[0].message).toBe('Invalid value: "string": a suspended CronTab cannot be resumed; create a new one');
  });

  it('checks schema constraints: an enum value and a pattern', async () => {
    const mode = await h.post(crontabs(h.ns), cronTabBody('a', { spec: { mode: 'Paused' } }));
    expect(expectStatus(mode, 422, 'Invalid').details.causes[0]).toMatchObject({ reason: 'FieldValueNotSupported', field: 'spec.mode' });
    const cron = await h.post(crontabs(h.ns), cronTabBody('a', { spec: { cronSpec: 'every minute' } }));
    expect(expectStatus(cron, 422, 'Invalid').details.causes[0]).toMatchObject({ reason: 'FieldValueInvalid', field: 'spec.cronSpec' });
  });
});

describe('unknown fields of a custom resource', () => {
  it('are pruned, not stored', async () => {
    const res = await h.post(crontabs(h.ns), { ...cronTabBody('a', { spec: { unknown: { deep: 1 } } }), topLevel: true });
    expect(res.status).toBe(201);
    expect(res.body.spec.unknown).toBeUndefined();
    expect(res.body.topLevel).toBeUndefined();
    const stored = await h.read(crontab(h.ns, 'a'));
    expect(Object.keys(stored).sort()).toEqual(['apiVersion', 'kind', 'metadata', 'spec']);
    expect(Object.keys(stored.spec).sort()).toEqual(['cronSpec', 'image', 'maxReplicas', 'minReplicas', 'replicas']);
  });

  it('are kept where the schema preserves them (spec.extra), without warnings', async () => {
    const extra = { plugin: { name: 'x', options: [1, 'two', { three: null }] }, flag: true };
    const res = await h.post(`${crontabs(h.ns)}?fieldValidation=Strict`, cronTabBody('a', { spec: { extra } }));
    expect(res.status).toBe(201);
    expect(res.headers.warning).toBeUndefined();
    expect(res.body.spec.extra).toEqual(extra);
    expect((await h.read(crontab(h.ns, 'a'))).spec.extra).toEqual(extra);
    const patched = await h.patch(crontab(h.ns, 'a'), { spec: { extra: { added: 'later' } } });
    expect(patched.body.spec.extra).toEqual({ ...extra, added: 'later' });
  });
});
