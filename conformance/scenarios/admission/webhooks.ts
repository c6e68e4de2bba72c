/**
 * Admission webhooks as a server calls them: the kit registers its own webhook (conformance/
 * webhook-server.ts, at --webhook-url) in a webhook configuration that selects only this
 * scenario's objects by label, then writes objects whose annotations tell the webhook what to do.
 */
import { ScenarioSkipped } from '../../errors.js';
import type { CodeScenarioDefinition } from '../../load.js';
import type { JsonObject, ScenarioContext } from '../../types.js';

const GROUP = 'admissionregistration.svc.io';

/** Registers the kit's webhook for configmap creates and updates of objects labelled for this scenario. */
async function register(ctx: ScenarioContext, kind: 'Mutating' | 'Validating', extra: JsonObject = {}): Promise<string> {
  const hook = ctx.settings.webhook;
  if (!hook) throw new ScenarioSkipped('the kit runs no webhook: pass --webhook-url <https://host:port the server can reach>');
  const name = ctx.sub('${n}-hook');
  const plural = `${kind.toLowerCase()}webhookconfigurations`;
  const res = await ctx.request('POST', `/apis/${GROUP}/v1/${plural}`, {
    body: {
      apiVersion: `${GROUP}/v1`,
      kind: `${kind}WebhookConfiguration`,
      metadata: { name },
      webhooks: [
        {
          name: `${name}.conformance.svc.io`,
          clientConfig: { url: `${hook.url}/admit`, caBundle: hook.caBundle },
          rules: [{ operations: ['CREATE', 'UPDATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }],
          objectSelector: { matchLabels: { 'conformance-webhook': ctx.sub('${n}') } },
          sideEffects: 'None',
          admissionReviewVersions: ['v1'],
          timeoutSeconds: 10,
          ...extra,
        },
      ],
    },
    step: `register the kit's ${kind.toLowerCase()} webhook`,
  });
  ctx.check(res, { status: [201] }, `register the kit's ${kind.toLowerCase()} webhook`);
  return `${name}.conformance.svc.io`;
}

function configMap(ctx: ScenarioContext, suffix: string, annotations: Record<string, string>): JsonObject {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: ctx.sub(`\${n}-${suffix}`), labels: { 'conformance-webhook': ctx.sub('${n}') }, annotations },
    data: { a: '1' },
  };
}

const RULES = ['config-kinds-and-cel.md#Callback payloads: Admission review'];

export const scenarios: CodeScenarioDefinition[] = [
  {
    id: 'config/admission/webhook-mutating-patch-is-stored',
    rule: [...RULES, 'config-kinds-and-cel.md#Callback payloads: Endpoints'],
    description:
      "A mutating webhook's JSON patch (response.patchType JSONPatch, uid echoed) changes the object before it is stored: the create's response and a later read carry the added label.",
    needs: ['webhooks'],
    serves: ['v1/configmaps'],
    async run(ctx) {
      await register(ctx, 'Mutating');
      const ns = ctx.sub('${ns}');
      const created = await ctx.request('POST', `/api/v1/namespaces/${ns}/configmaps`, {
        body: configMap(ctx, 'mutated', { 'conformance.svc.io/webhook-mutate': 'yes' }),
        step: 'create through the webhook',
      });
      ctx.check(created, { status: [201], body: { metadata: { labels: { 'conformance-mutated': 'yes' } } } }, 'create through the webhook');
      const read = await ctx.request('GET', `/api/v1/namespaces/${ns}/configmaps/${ctx.sub('${n}-mutated')}`, { step: 'read back' });
      ctx.check(read, { status: [200], body: { metadata: { labels: { 'conformance-mutated': 'yes' } } } }, 'read back');
    },
  },
  {
    id: 'config/admission/webhook-denial-message',
    rule: RULES,
    description:
      'A validating webhook that denies refuses the write with its status code and the message `admission webhook "<name>" denied the request: <message>`; nothing is stored.',
    needs: ['webhooks'],
    serves: ['v1/configmaps'],
    async run(ctx) {
      const webhook = await register(ctx, 'Validating');
      const ns = ctx.sub('${ns}');
      const res = await ctx.request('POST', `/api/v1/namespaces/${ns}/configmaps`, {
        body: configMap(ctx, 'denied', { 'conformance.svc.io/webhook-deny': 'refused by the kit' }),
        step: 'create refused by the webhook',
      });
      ctx.check(
        res,
        { status: [403], body: { kind: 'Status', message: `admission webhook "${webhook}" denied the request: refused by the kit` } },
        'create refused by the webhook',
      );
      const read = await ctx.request('GET', `/api/v1/namespaces/${ns}/configmaps/${ctx.sub('${n}-denied')}`, { step: 'nothing stored' });
      ctx.check(read, { status: [404] }, 'nothing stored');
    },
  },
  {
    id: 'config/admission/webhook-warnings-reach-the-client',
    rule: RULES,
    description: "A webhook's response.warnings reach the client as Warning headers of the write's response.",
    needs: ['webhooks'],
    serves: ['v1/configmaps'],
    async run(ctx) {
      await register(ctx, 'Validating');
      const res = await ctx.request('POST', `/api/v1/namespaces/${ctx.sub('${ns}')}/configmaps`, {
        body: configMap(ctx, 'warned', { 'conformance.svc.io/webhook-warn': 'the kit warns' }),
        step: 'create with a warning',
      });
      ctx.check(res, { status: [201], headers: { warning: { matches: 'the kit warns' } } }, 'create with a warning');
    },
  },
  {
    id: 'config/admission/webhook-dry-run-reaches-webhook-without-side-effects',
    rule: [...RULES, 'core-protocol.md#Dry-run: 1'],
    description:
      'dryRun=All runs admission: a webhook declaring sideEffects NoneOnDryRun is called with request.dryRun true (it answers "dry run seen"); nothing is stored.',
    needs: ['webhooks'],
    serves: ['v1/configmaps'],
    async run(ctx) {
      const webhook = await register(ctx, 'Validating', { sideEffects: 'NoneOnDryRun' });
      const ns = ctx.sub('${ns}');
      const res = await ctx.request('POST', `/api/v1/namespaces/${ns}/configmaps`, {
        query: { dryRun: 'All' },
        body: configMap(ctx, 'dry', { 'conformance.svc.io/webhook-deny-dry-run': 'true' }),
        step: 'dry-run create',
      });
      ctx.check(
        res,
        { status: [403], body: { message: `admission webhook "${webhook}" denied the request: dry run seen` } },
        'dry-run create',
      );
      const real = await ctx.request('POST', `/api/v1/namespaces/${ns}/configmaps`, {
        body: configMap(ctx, 'dry', { 'conformance.svc.io/webhook-deny-dry-run': 'true' }),
        step: 'the same create for real passes',
      });
      ctx.check(real, { status: [201] }, 'the same create for real passes');
    },
  },
];
