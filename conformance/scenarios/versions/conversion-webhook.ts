/**
 * A custom resource whose versions convert through a webhook (the kit's own, conformance/
 * webhook-server.ts): `v1` keeps `spec.size`, `v2` `spec.sizing.value`. The server stores in `v1`
 * and must convert on the way in and out, so an object round-trips through either version; a
 * webhook failure fails the request and stores nothing. Each scenario defines a group of its own
 * and deletes its definition at the end.
 */
import { ScenarioSkipped } from '../../errors.js';
import type { CodeScenarioDefinition } from '../../load.js';
import type { JsonObject, ScenarioContext } from '../../types.js';

const CRDS = '/apis/apiextensions.svc.io/v1/customresourcedefinitions';

/** Defines `widgets.<group>` converting through the kit's webhook; resolves once it is served. */
async function define(ctx: ScenarioContext): Promise<{ group: string; done: () => Promise<void> }> {
  const hook = ctx.settings.webhook;
  if (!hook) throw new ScenarioSkipped('the kit runs no webhook: pass --webhook-url <https://host:port the server can reach>');
  const group = ctx.sub('${n}.conversion.example.com');
  const version = (name: string, spec: JsonObject) => ({
    name,
    served: true,
    storage: name === 'v1',
    schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: spec } } } },
  });
  const name = `widgets.${group}`;
  const created = await ctx.request('POST', CRDS, {
    body: {
      apiVersion: 'apiextensions.svc.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name },
      spec: {
        group,
        scope: 'Namespaced',
        names: { plural: 'widgets', singular: 'widget', kind: 'Widget' },
        versions: [
          version('v1', { size: { type: 'integer' } }),
          version('v2', { sizing: { type: 'object', properties: { value: { type: 'integer' } } } }),
        ],
        conversion: {
          strategy: 'Webhook',
          webhook: { clientConfig: { url: `${hook.url}/convert`, caBundle: hook.caBundle }, conversionReviewVersions: ['v1'] },
        },
      },
    },
    step: 'define the resource',
  });
  ctx.check(created, { status: [201] }, 'define the resource');
  const done = async () => {
    await ctx.request('DELETE', `${CRDS}/${name}`, { step: 'delete the definition' });
  };
  // Served once its collection answers (Established); bounded, not timed.
  for (let i = 0; ; i++) {
    const list = await ctx.request('GET', `/apis/${group}/v2/namespaces/${ctx.sub('${ns}')}/widgets`, { step: 'wait until served' });
    if (list.status === 200) break;
    if (i >= 100) {
      await done();
      ctx.fail(`the definition ${name} was not served after 100 tries (last status ${list.status})`);
    }
    await ctx.sleep(50);
  }
  return { group, done };
}

/** Runs `body` with a definition of its own (its collection path per version), deleting the definition after. */
async function withDefinition(
  ctx: ScenarioContext,
  body: (at: (version: string) => string, group: string) => Promise<void>,
): Promise<void> {
  const { group, done } = await define(ctx);
  try {
    await body((v) => `/apis/${group}/${v}/namespaces/${ctx.sub('${ns}')}/widgets`, group);
  } finally {
    await done();
  }
}

function widget(group: string, version: string, name: string, spec: JsonObject, annotations?: Record<string, string>): JsonObject {
  return { apiVersion: `${group}/${version}`, kind: 'Widget', metadata: { name, ...(annotations ? { annotations } : {}) }, spec };
}

const RULES = ['core-protocol.md#Deprecation rules: 2', 'core-protocol.md#Deprecation rules: 4b'];

export const scenarios: CodeScenarioDefinition[] = [
  {
    id: 'core/versions/conversion-webhook-round-trip',
    rule: RULES,
    description:
      'A custom resource converting through a webhook: written through v2, stored as v1, read back through either version with its fields converted, and listed through v2.',
    needs: ['webhooks'],
    serves: ['apiextensions.svc.io/v1/customresourcedefinitions'],
    async run(ctx) {
      await withDefinition(ctx, async (at, group) => {
        const name = ctx.sub('${n}-w');
        const made = await ctx.request('POST', at('v2'), {
          body: widget(group, 'v2', name, { sizing: { value: 3 } }),
          step: 'create through v2',
        });
        ctx.check(made, { status: [201], body: { apiVersion: `${group}/v2`, spec: { sizing: { value: 3 } } } }, 'create through v2');
        const v1 = await ctx.request('GET', `${at('v1')}/${name}`, { step: 'read through v1' });
        ctx.check(v1, { status: [200], body: { apiVersion: `${group}/v1`, spec: { size: 3 } } }, 'read through v1');
        const list = await ctx.request('GET', at('v2'), { step: 'list through v2' });
        ctx.check(
          list,
          { status: [200], body: { apiVersion: `${group}/v2`, items: [{ spec: { sizing: { value: 3 } } }] } },
          'list through v2',
        );
      });
    },
  },
  {
    id: 'core/versions/conversion-webhook-failure-stores-nothing',
    rule: RULES,
    description:
      "A conversion webhook that fails the review fails the write with a 500 Status carrying the webhook's message; nothing is stored.",
    needs: ['webhooks'],
    serves: ['apiextensions.svc.io/v1/customresourcedefinitions'],
    async run(ctx) {
      await withDefinition(ctx, async (at, group) => {
        const name = ctx.sub('${n}-f');
        const body = widget(group, 'v2', name, { sizing: { value: 1 } }, { 'conformance.svc.io/conversion-fail': 'the kit refuses' });
        const res = await ctx.request('POST', at('v2'), { body, step: 'create through a failing conversion' });
        ctx.check(
          res,
          { status: [500], body: { kind: 'Status' }, text: { matches: 'the kit refuses' } },
          'create through a failing conversion',
        );
        const read = await ctx.request('GET', `${at('v1')}/${name}`, { step: 'nothing stored' });
        ctx.check(read, { status: [404] }, 'nothing stored');
      });
    },
  },
];
