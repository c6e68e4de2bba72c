/**
 * A create with a Protobuf body: the kit encodes the envelope and the ConfigMap message itself
 * (field numbers of the real system's core/v1 messages: ConfigMap metadata 1, data 2; ObjectMeta
 * name 1, namespace 3, labels 11; map entries key 1, value 2), so the server must read Protobuf it did
 * not produce.
 */
import type { CodeScenarioDefinition } from '../../load.js';
import { encodeEnvelope, lengthDelimited } from '../../protobuf-envelope.js';

function field(number: number, value: Buffer | string): Buffer {
  return lengthDelimited(number, typeof value === 'string' ? Buffer.from(value) : value);
}

function mapEntry(number: number, key: string, value: string): Buffer {
  return field(number, Buffer.concat([field(1, key), field(2, value)]));
}

export const scenarios: CodeScenarioDefinition[] = [
  {
    id: 'core/media/protobuf-request-body',
    rule: ['core-protocol.md#Headers and media types: Content-Type', 'core-protocol.md#Verbs: create'],
    description:
      'A ConfigMap posted as a Protobuf envelope with Content-Type application/vnd.svc.protobuf is created; read back as JSON it holds the name, label and data sent.',
    needs: ['protobuf'],
    serves: ['v1/configmaps'],
    async run(ctx) {
      const ns = ctx.sub('${ns}');
      const name = ctx.sub('${n}-pb');
      const meta = Buffer.concat([field(1, name), field(3, ns), mapEntry(11, ctx.sub('${scenarioLabelKey}'), ctx.sub('${n}'))]);
      const configMap = Buffer.concat([field(1, meta), mapEntry(2, 'greeting', 'from protobuf')]);
      const body = encodeEnvelope({ apiVersion: 'v1', kind: 'ConfigMap', raw: configMap });
      const res = await ctx.request('POST', `/api/v1/namespaces/${ns}/configmaps`, {
        bodyRaw: body,
        contentType: 'application/vnd.svc.protobuf',
        headers: { accept: 'application/json' },
        step: 'create as Protobuf',
      });
      ctx.check(res, { status: [200, 201] }, 'create as Protobuf');
      const got = await ctx.request('GET', `/api/v1/namespaces/${ns}/configmaps/${name}`, { step: 'read back as JSON' });
      ctx.check(
        got,
        { status: [200], body: { kind: 'ConfigMap', metadata: { name }, data: { greeting: 'from protobuf' } } },
        'read back as JSON',
      );
    },
  },
];
