/**
 * Write-path rules with Protobuf bodies (write-paths.yaml has the other paths): a server that decodes
 * Protobuf through its own path must still check required fields, the name against the URL and the
 * resourceVersion precondition. The kit encodes the messages itself with the real system's core/v1
 * field numbers: Pod metadata 1, spec 2; ConfigMap metadata 1, data 2; ObjectMeta name 1,
 * namespace 3, resourceVersion 6; map entries key 1, value 2.
 */
import type { CodeScenarioDefinition } from '../../load.js';
import { encodeEnvelope, lengthDelimited } from '../../protobuf-envelope.js';
import type { HttpResult, Json, ScenarioContext } from '../../types.js';

const PROTOBUF = 'application/vnd.svc.protobuf';

function field(number: number, value: Buffer | string): Buffer {
  return lengthDelimited(number, typeof value === 'string' ? Buffer.from(value) : value);
}

function meta(name: string, namespace: string, resourceVersion?: string): Buffer {
  return Buffer.concat([field(1, name), field(3, namespace), ...(resourceVersion ? [field(6, resourceVersion)] : [])]);
}

function configMap(metadata: Buffer, data: Record<string, string>): Buffer {
  const entries = Object.entries(data).map(([k, v]) => field(2, Buffer.concat([field(1, k), field(2, v)])));
  return encodeEnvelope({ apiVersion: 'v1', kind: 'ConfigMap', raw: Buffer.concat([field(1, metadata), ...entries]) });
}

function send(ctx: ScenarioContext, method: string, path: string, body: Buffer, step: string): Promise<HttpResult> {
  return ctx.request(method, path, { bodyRaw: body, contentType: PROTOBUF, headers: { accept: 'application/json' }, step });
}

/** Creates a ConfigMap as JSON, then changes it once: its first resourceVersion is stale afterwards. */
async function staleConfigMap(ctx: ScenarioContext, path: string, name: string): Promise<string> {
  const created = await ctx.request('POST', path, {
    body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { a: '1' } },
    step: 'create',
  });
  ctx.check(created, { status: [200, 201] }, 'create');
  const rv = ((created.json as { metadata?: { resourceVersion?: Json } }).metadata?.resourceVersion ?? '') as string;
  const touched = await ctx.request('PATCH', `${path}/${name}`, {
    body: { data: { touched: 'yes' } },
    contentType: 'application/merge-patch+json',
    step: 'touch',
  });
  ctx.check(touched, { status: [200] }, 'touch');
  return rv;
}

async function unchanged(ctx: ScenarioContext, path: string, name: string): Promise<void> {
  const got = await ctx.request('GET', `${path}/${name}`, { step: 'read back' });
  ctx.check(got, { status: [200], body: { metadata: { name }, data: { a: '1' } } }, 'read back');
}

export const scenarios: CodeScenarioDefinition[] = [
  {
    id: 'core/validation/protobuf-required-absent-400',
    rule: ['core-protocol.md#Field validation: 1', 'core-protocol.md#Errors: 400'],
    description: 'A Pod posted as Protobuf without spec is refused with 400 naming spec.containers (FieldValueRequired) and is not stored.',
    needs: ['protobuf'],
    serves: ['v1/pods'],
    exercises: { verbs: ['create'], formats: ['protobuf'], versions: ['v1'], boundaries: ['absent'] },
    async run(ctx) {
      const ns = ctx.sub('${ns}');
      const name = ctx.sub('${n}-p');
      const pod = encodeEnvelope({ apiVersion: 'v1', kind: 'Pod', raw: field(1, meta(name, ns)) });
      const res = await send(ctx, 'POST', `/api/v1/namespaces/${ns}/pods`, pod, 'create as Protobuf');
      ctx.check(
        res,
        { status: [400], error: { causes: [{ reason: 'FieldValueRequired', field: 'spec.containers' }] } },
        'create as Protobuf',
      );
      ctx.check(await ctx.request('GET', `/api/v1/namespaces/${ns}/pods/${name}`, { step: 'not stored' }), { status: [404] }, 'not stored');
    },
  },
  {
    id: 'core/validation/protobuf-name-change-by-update-400',
    rule: 'core-protocol.md#Common object metadata: metadata.name',
    description: 'A PUT whose Protobuf body names another object than the URL is 400 BadRequest; the object is unchanged.',
    needs: ['protobuf'],
    serves: ['v1/configmaps'],
    exercises: { verbs: ['update'], formats: ['protobuf'], versions: ['v1'], boundaries: [] },
    async run(ctx) {
      const ns = ctx.sub('${ns}');
      const path = `/api/v1/namespaces/${ns}/configmaps`;
      const name = ctx.sub('${n}-a');
      const created = await ctx.request('POST', path, { body: { metadata: { name }, data: { a: '1' } }, step: 'create' });
      ctx.check(created, { status: [200, 201] }, 'create');
      const rv = ((created.json as { metadata?: { resourceVersion?: Json } }).metadata?.resourceVersion ?? '') as string;
      const body = configMap(meta(ctx.sub('${n}-b'), ns, rv), { a: '2' });
      const res = await send(ctx, 'PUT', `${path}/${name}`, body, 'update as Protobuf');
      ctx.check(
        res,
        { status: [400], error: { reason: 'BadRequest', message: 'does not match the name on the URL' } },
        'update as Protobuf',
      );
      await unchanged(ctx, path, name);
    },
  },
  {
    id: 'core/validation/protobuf-stale-update-409',
    rule: ['core-protocol.md#Update rules: 1', 'core-protocol.md#Errors: 409'],
    description: 'A PUT with a Protobuf body carrying a stale resourceVersion is 409 Conflict and changes nothing.',
    needs: ['protobuf'],
    serves: ['v1/configmaps'],
    exercises: { verbs: ['update'], formats: ['protobuf'], versions: ['v1'], boundaries: [] },
    async run(ctx) {
      const ns = ctx.sub('${ns}');
      const path = `/api/v1/namespaces/${ns}/configmaps`;
      const name = ctx.sub('${n}-a');
      const stale = await staleConfigMap(ctx, path, name);
      const res = await send(ctx, 'PUT', `${path}/${name}`, configMap(meta(name, ns, stale), { a: '2' }), 'update as Protobuf');
      ctx.check(res, { status: [409], error: { reason: 'Conflict' } }, 'update as Protobuf');
      const got = await ctx.request('GET', `${path}/${name}`, { step: 'read back' });
      ctx.check(got, { status: [200], body: { data: { a: '1', touched: 'yes' } } }, 'read back');
    },
  },
  {
    id: 'core/validation/protobuf-namespace-mismatch-400',
    rule: 'core-protocol.md#Common object metadata: metadata.namespace',
    description: 'A ConfigMap posted as Protobuf whose metadata names another namespace than the path is 400 and stored in neither.',
    needs: ['protobuf'],
    serves: ['v1/configmaps'],
    namespaces: 2,
    exercises: { verbs: ['create'], formats: ['protobuf'], versions: ['v1'], boundaries: [] },
    async run(ctx) {
      const [ns, ns2] = [ctx.sub('${ns}'), ctx.sub('${ns2}')];
      const name = ctx.sub('${n}-a');
      const res = await send(
        ctx,
        'POST',
        `/api/v1/namespaces/${ns}/configmaps`,
        configMap(meta(name, ns2), { a: '1' }),
        'create as Protobuf',
      );
      ctx.check(
        res,
        {
          status: [400],
          error: { reason: 'BadRequest', message: 'namespace of the provided object does not match the namespace sent on the request' },
        },
        'create as Protobuf',
      );
      for (const n of [ns, ns2]) {
        ctx.check(
          await ctx.request('GET', `/api/v1/namespaces/${n}/configmaps/${name}`, { step: `not in ${n}` }),
          { status: [404] },
          `not in ${n}`,
        );
      }
    },
  },
];
