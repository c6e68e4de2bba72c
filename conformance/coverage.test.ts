import { describe, expect, it } from 'vitest';
import { exercisesOf, unionOf, writePathGaps, writePathProblems } from './coverage.js';
import { type LoadContext, parseSuite } from './load.js';
import { parseResources } from './resources.js';
import { parseRules } from './rules.js';

const rules = parseRules(
  `
- section: "core-protocol.md#Field validation"
  rules:
    - key: 1
      text: Field types are always validated.
      writePath:
        versions: [v1, example.svc.io/v2]
        boundaries: ["null", absent]
        exempt: { protobuf: no Protobuf encoding here }
`,
  'rules.yaml',
);
const resources = parseResources(
  'configmaps: { group: "", version: v1, plural: configmaps, kind: ConfigMap, namespaced: true, sample: { data: { a: b } } }\n',
  'resources.yaml',
);
const ctx: LoadContext = { rules, resources };
const RULE = 'core-protocol.md#Field validation: 1';

function scenario(steps: string) {
  const [s] = parseSuite(
    `scenarios:\n  - id: core/x/y\n    rule: "${RULE}"\n    resource: [configmaps]\n    steps:\n${steps}`,
    'x.yaml',
    ctx,
    'x',
  );
  return s!;
}

describe('write-path coverage', () => {
  it('reads the verbs, formats, versions and boundaries of the writes a scenario judges, not of its setup', () => {
    const s = scenario(
      [
        "      - request: { method: POST, path: '${r.collection}', body: { metadata: { name: a } } }",
        '        expect: { status: [200, 201] }',
        "      - request: { method: PATCH, path: '${r.collection}/a', contentType: application/merge-patch+json, body: { data: null } }",
        '        expect: { status: 400, error: { causes: [{ reason: FieldValueRequired }] } }',
        "      - request: { method: PUT, path: '/apis/example.svc.io/v2/things/a', contentType: application/yaml, bodyText: 'spec: {n: 0}' }",
        '        expect: { status: 422 }',
        '',
      ].join('\n'),
    );
    expect(exercisesOf(s)).toEqual({
      verbs: ['merge-patch', 'update'],
      formats: ['yaml'],
      versions: ['v1', 'example.svc.io/v2'],
      boundaries: ['null', 'absent', 'zero'],
    });
  });

  it('names every verb, format, version and boundary the rule applies to that no scenario exercises; exemptions excepted', () => {
    const rule = rules.get(RULE)!;
    const got = unionOf([
      { verbs: ['create', 'apply'], formats: ['json'], versions: ['v1'], boundaries: ['null'] },
      { verbs: ['update'], formats: ['yaml'], versions: [], boundaries: [] },
    ]);
    expect(writePathGaps(rule, got)).toEqual([
      'verb:merge-patch',
      'verb:json-patch',
      'verb:strategic-merge-patch',
      'version:example.svc.io/v2',
      'boundary:absent',
    ]);
    const all = {
      verbs: [...got.verbs, 'merge-patch', 'json-patch', 'strategic-merge-patch'] as typeof got.verbs,
      formats: got.formats,
      versions: ['v1', 'example.svc.io/v2'],
      boundaries: ['null', 'absent'] as typeof got.boundaries,
    };
    expect(writePathGaps(rule, all)).toEqual([]);
  });

  it('asks no body format of a rule whose create and update are exempt', () => {
    const [patchOnly] = parseRules(
      '- section: "a.md#B"\n  rules:\n    - { key: 1, text: t, writePath: { exempt: { create: not a patch, update: not a patch } } }\n',
      'r.yaml',
    ).values();
    const got = {
      verbs: ['merge-patch', 'json-patch', 'strategic-merge-patch', 'apply'] as const,
      formats: [],
      versions: [],
      boundaries: [],
    };
    expect(writePathGaps(patchOnly!, { ...got, verbs: [...got.verbs] })).toEqual([]);
  });

  it('refuses an exemption of something unknown or without a reason', () => {
    const [bad] = parseRules(
      '- section: "a.md#B"\n  rules:\n    - { key: 1, text: t, writePath: { exempt: { xml: "", apply: " " } } }\n',
      'r.yaml',
    ).values();
    expect(writePathProblems(bad!)).toEqual([
      'a.md#B: 1: writePath.exempt names "xml", not a verb, format or boundary',
      'a.md#B: 1: writePath.exempt.xml needs a reason',
      'a.md#B: 1: writePath.exempt.apply needs a reason',
    ]);
  });
});
