import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { DEFAULT_SCENARIO_DIR, parseSuite } from './load.js';
import { readResources } from './resources.js';
import { FEATURES, TAGS } from './types.js';

/** The editor schema and the loader must agree: every suite passes both, and both refuse the same mistakes. */
const schema = JSON.parse(readFileSync(new URL('./scenario.schema.json', import.meta.url), 'utf8')) as {
  definitions: { tag: { enum: string[] }; feature: { enum: string[] } };
};
const validate = new Ajv({ allErrors: true, strict: false }).compile(schema);

function suites(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? suites(join(dir, e.name)) : /\.ya?ml$/.test(e.name) ? [join(dir, e.name)] : [],
  );
}

function problems(value: unknown): string[] {
  return validate(value) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message ?? ''}`);
}

const valid = `
defaults:
  resource: [configmaps]
x-create: &create
  request: { method: POST, path: '\${r.collection}', body: { $sample: {} } }
  expect: { status: [200, 201] }
scenarios:
  - id: core/verbs/example
    rule: "core-protocol.md#Verbs: get"
    steps:
      - *create
      - request: GET /api/v1/namespaces/\${ns}/configmaps
        expect: { status: 2xx, at: { $.kind: ConfigMapList } }
      - watch: { path: /api/v1/configmaps, query: { watch: "true" } }
        expect: { events: [ADDED, { type: MODIFIED }], within: 2s }
      - wait: 100ms
`;

describe('scenario.schema.json', () => {
  it('accepts every scenario suite of the kit', () => {
    const files = suites(DEFAULT_SCENARIO_DIR);
    expect(files.length).toBeGreaterThan(20);
    for (const file of files) expect(problems(parse(readFileSync(file, 'utf8'))), file).toEqual([]);
  });

  it('lists the same tags and features as the loader', () => {
    expect(schema.definitions.tag.enum).toEqual([...TAGS]);
    expect(schema.definitions.feature.enum).toEqual([...FEATURES]);
  });

  it('accepts what the loader accepts and refuses what it refuses', () => {
    const ctx = { resources: readResources() };
    expect(problems(parse(valid))).toEqual([]);
    expect(parseSuite(valid, 'valid.yaml', ctx)).toHaveLength(1);
    const mistakes = [
      valid.replace('core/verbs/example', 'Core/Verbs'),
      valid.replace('    rule: "core-protocol.md#Verbs: get"\n', ''),
      valid.replace('expect: { status: 2xx,', 'expect: { status: 2xx, statuz: 200,'),
      valid.replace('wait: 100ms', 'wait: { for: forever }'),
      valid.replace('within: 2s }', 'within: 2s, gone: true }'),
      valid.replace('resource: [configmaps]', 'resource: [configmaps]\n  tags: [fast]'),
      valid.replace('request: GET /api', 'request: FETCH /api'),
    ];
    for (const text of mistakes) {
      expect(problems(parse(text)), text).not.toEqual([]);
      expect(() => parseSuite(text, 'mistake.yaml', ctx), text).toThrow();
    }
  });
});
