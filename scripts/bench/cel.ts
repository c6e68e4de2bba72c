import { celEnv, parse as bufParse, plan } from '@bufbuild/cel';
import { strings } from '@bufbuild/cel/ext';
import { CelValueConverter, compileRule } from '../../runtime/cel/index.js';
import type { SchemaNode } from '../../runtime/schema/index.js';
import { runCases } from './harness.js';

/** Three representative rules (comparison, macro with regex, strings and map lookup). */
const RULES: Record<string, string> = {
  'field comparison': 'self.replicas >= 0 && self.replicas <= 100 && self.name != ""',
  'macro + regex': "self.containers.all(c, c.name.matches('^[a-z0-9-]+$') && c.ports.all(p, p.port > 0 && p.port < 65536))",
  'strings + map lookup': "self.name.startsWith('web-') && 'app' in self.labels && self.labels['app'] == 'web'",
};

const document = {
  name: 'web-1',
  replicas: 3,
  labels: { app: 'web', tier: 'frontend' },
  containers: [
    { name: 'main', ports: [{ port: 80 }, { port: 443 }] },
    { name: 'sidecar-proxy', ports: [{ port: 15001 }] },
  ],
};

const port: SchemaNode = { type: 'object', fields: [{ name: 'port', schema: { type: 'integer' } }] };
const container: SchemaNode = {
  type: 'object',
  fields: [
    { name: 'name', schema: { type: 'string', maxLength: 63 } },
    { name: 'ports', schema: { type: 'list', maxItems: 64, items: port } },
  ],
};
const schema: SchemaNode = {
  type: 'object',
  fields: [
    { name: 'name', schema: { type: 'string', maxLength: 253 } },
    { name: 'replicas', schema: { type: 'integer' } },
    { name: 'labels', schema: { type: 'map', maxProperties: 64, values: { type: 'string', maxLength: 63 } } },
    { name: 'containers', schema: { type: 'list', maxItems: 32, items: container } },
  ],
};

/** @bufbuild/cel reads maps as Map and integers as bigint. */
const asCelMaps = (v: unknown): unknown =>
  typeof v === 'number'
    ? BigInt(v)
    : Array.isArray(v)
      ? v.map(asCelMaps)
      : v && typeof v === 'object'
        ? new Map(Object.entries(v).map(([k, x]) => [k, asCelMaps(x)]))
        : v;

/** CEL evaluations per second: runtime/cel (compiled once, values converted once) vs @bufbuild/cel. */
export async function benchCel(): Promise<void> {
  const n = 20_000;
  const cases = Object.entries(RULES).map(([name, rule]) => {
    const ours = compileRule(rule, { self: schema });
    const converter = new CelValueConverter();
    const peer = plan(celEnv({ funcs: strings }), bufParse(rule));
    const peerInput = { self: asCelMaps(document) };
    if (ours.evaluate({ self: document }, { converter }) !== true || peer(peerInput as never) !== true)
      throw new Error(`${name}: both should hold`);
    return {
      name: `${name} x${n}`,
      ours: () => {
        for (let i = 0; i < n; i++) ours.evaluate({ self: document }, { converter });
      },
      peer: {
        name: '@bufbuild/cel',
        run: () => {
          for (let i = 0; i < n; i++) peer(peerInput as never);
        },
      },
    };
  });
  const results = await runCases('CEL evaluations (compiled once) vs @bufbuild/cel', cases);
  for (const r of results)
    process.stdout.write(
      `${r.name}: ${Math.round(n / (r.oursMs / 1000)).toLocaleString('en')} evaluations/s (peer ${Math.round(n / (r.peerMs / 1000)).toLocaleString('en')}/s)\n`,
    );
}
