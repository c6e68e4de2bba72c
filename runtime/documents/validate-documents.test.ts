import { describe, expect, it } from 'vitest';
import { allKinds } from '../../generated/kinds.js';
import type { KindRegistration } from '../schema/index.js';
import { DocumentValidator, junitReport, summarize, textReport } from './index.js';

const validator = new DocumentValidator(allKinds);

const SCHEDULER = `apiVersion: svcscheduler.config.svc.io/v1
kind: SvcSchedulerConfiguration
parallelism: 0
profiles:
  - schedulerName: default-scheduler
    plugins:
      score:
        enabled:
          - name: NodeResourcesFit
            weight: "heavy"
bogus: true
---
# a comment between documents
apiVersion: eventratelimit.admission.svc.io/v1alpha1
kind: Configuration
limits:
  - type: Namespace
    qps: 5
    burst: 10
---
apiVersion: example.com/v1
kind: Widget
`;

describe('DocumentValidator', () => {
  const results = validator.validateText('cfg.yaml', SCHEDULER);

  it('checks each document of a multi-document file on its own', () => {
    expect(results.map((r) => [r.kind, r.status])).toEqual([
      ['SvcSchedulerConfiguration', 'invalid'],
      ['Configuration', 'valid'],
      ['Widget', 'skipped'],
    ]);
    expect(summarize(results)).toEqual({ documents: 3, valid: 1, invalid: 1, skipped: 1 });
  });

  it('points every finding at the offending node (file:line:column)', () => {
    const findings = results[0]!.findings.map((f) => `${f.position.line}:${f.position.column} ${f.severity} ${f.message}`);
    expect(findings).toEqual([
      '11:1 warning unknown field "bogus"',
      '3:1 error parallelism: Invalid value: 0: must be greater than or equal to 1',
      '10:13 error profiles[0].plugins.score.enabled[0].weight: Invalid value: "heavy": must be of type integer, not string',
    ]);
  });

  it('applies defaults before validating (a defaulted document is valid)', () => {
    const [r] = validator.validateText(
      'x.yaml',
      'apiVersion: eventratelimit.admission.svc.io/v1alpha1\nkind: Configuration\nlimits: [{type: Server, qps: 1, burst: 1}]\n',
    );
    expect(r!.status).toBe('valid');
  });

  it('accepts contention profiling with profiling off, as the real system does (it only takes effect with profiling)', () => {
    const docs = [
      'apiVersion: svcscheduler.config.svc.io/v1\nkind: SvcSchedulerConfiguration\nenableContentionProfiling: true\n',
      'apiVersion: svccontrollermanager.config.svc.io/v1alpha1\nkind: SvcControllerManagerConfiguration\nGeneric:\n  Debugging:\n    enableContentionProfiling: true\n',
    ];
    for (const text of docs) expect(validator.validateText('x.yaml', text).map((r) => r.status)).toEqual(['valid']);
  });

  it('skips unknown kinds with a warning, as the bootstrap tool does', () => {
    expect(results[2]!.findings).toEqual([
      { severity: 'warning', field: '', message: 'unknown kind Widget in example.com/v1: skipped', position: { line: 21, column: 1 } },
    ]);
  });

  it('makes unknown and duplicate fields errors only with --strict', () => {
    const text =
      'apiVersion: eventratelimit.admission.svc.io/v1alpha1\nkind: Configuration\nlimits: [{type: Server, qps: 1, burst: 1}]\nextra: 1\nkind: Configuration\n';
    const loose = validator.validateText('x.yaml', text)[0]!;
    expect(loose.status).toBe('valid');
    expect(loose.findings.map((f) => [f.severity, f.message])).toEqual([
      ['warning', 'duplicate field "kind"'],
      ['warning', 'unknown field "extra"'],
    ]);
    const strict = validator.validateText('x.yaml', text, { strict: true })[0]!;
    expect(strict.status).toBe('invalid');
    expect(strict.findings.map((f) => `${f.position.line} ${f.severity}`)).toEqual(['5 error', '4 error']);
  });

  it('runs CEL rules once the structure is right, naming the rule and the field', () => {
    const text =
      'apiVersion: svcscheduler.config.svc.io/v1\nkind: SvcSchedulerConfiguration\npodInitialBackoffSeconds: 5\npodMaxBackoffSeconds: 3\n';
    const [r] = validator.validateText('s.yaml', text);
    expect(r!.status).toBe('invalid');
    expect(r!.findings).toHaveLength(1);
    expect(r!.findings[0]!.message).toContain('podMaxBackoffSeconds must be greater than podInitialBackoffSeconds');
    expect(r!.findings[0]!.rule).toContain('podMaxBackoffSeconds');
  });

  it('reads JSON documents too and reports YAML syntax errors with their position', () => {
    expect(
      validator.validateText('a.json', '{"apiVersion":"eventratelimit.admission.svc.io/v1alpha1","kind":"Configuration","limits":[]}')[0]!
        .findings[0]!.message,
    ).toContain('limits');
    const [bad] = validator.validateText('b.yaml', 'apiVersion: v1\nkind: [\n');
    expect(bad!.status).toBe('invalid');
    expect(bad!.findings[0]!.message).toMatch(/^not valid YAML/);
  });
});

describe('reports', () => {
  const results = validator.validateText('cfg.yaml', SCHEDULER);

  it('ends the text report with a summary line', () => {
    const text = textReport(results);
    expect(text).toContain('cfg.yaml:3:1: error: parallelism: Invalid value: 0');
    expect(text.trimEnd().split('\n').at(-1)).toBe('3 documents: 1 valid, 1 invalid, 1 skipped');
  });

  it('writes JUnit XML with a failure per invalid document and escaped text', () => {
    const xml = junitReport(results);
    expect(xml).toContain('<testsuites name="svckit validate" tests="3" failures="1" skipped="1">');
    expect(xml).toContain('<failure message="parallelism: Invalid value: 0: must be greater than or equal to 1">');
    expect(xml).toContain('<skipped message="unknown kind Widget in example.com/v1: skipped"/>');
    expect(xml).toContain('&quot;heavy&quot;');
  });
});

describe('schemas whose rules do not compile', () => {
  const kind = (rules: { rule: string }[]): KindRegistration => ({
    group: 'example.com',
    version: 'v1',
    kind: 'Widget',
    apiVersion: 'example.com/v1',
    schema: {
      type: 'object',
      typeName: 'example.Widget',
      fields: [
        { name: 'apiVersion', schema: { type: 'string' } },
        { name: 'kind', schema: { type: 'string' } },
        {
          name: 'spec',
          schema: {
            type: 'object',
            fields: [
              { name: 'size', schema: { type: 'integer', rules: [{ rule: 'self >= 0' }] } },
              { name: 'items', schema: { type: 'list', items: { type: 'string' }, rules } },
            ],
          },
        },
      ],
    },
    resource: { custom: true } as KindRegistration['resource'],
  });
  const doc = 'apiVersion: example.com/v1\nkind: Widget\nspec:\n  size: -1\n  items: [a, b]\n';

  it('reports a rule that does not compile as a finding at its field, and still runs the other rules', () => {
    const [r] = new DocumentValidator([kind([{ rule: 'self.size() >' }])]).validateText('w.yaml', doc);
    expect(r!.status).toBe('invalid');
    const lines = r!.findings.map((f) => `${f.position.line} ${f.field} ${f.message}`);
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^4 spec.size spec.size: Invalid value/);
    expect(lines[1]).toMatch(/^5 spec.items spec.items: Invalid value: .*rule does not compile/);
  });

  it('runs a rule over the cost estimate on the document (the estimate is checked on the definition, said once when the schemas load)', () => {
    const [r] = new DocumentValidator([
      kind([{ rule: 'self.all(a, self.all(b, self.all(c, self.all(d, a + b + c + d != "")))) && self.all(x, x.matches("^[0-9]+$"))' }]),
    ]).validateText('w.yaml', doc);
    expect(r!.status).toBe('invalid');
    const messages = r!.findings.map((f) => f.message);
    expect(messages).toContain('spec.size: Invalid value: "integer": failed rule: self >= 0');
    expect(messages.join('\n')).toMatch(/spec.items: Invalid value: "array": failed rule: /);
    expect(messages.join('\n')).not.toMatch(/cost/);
  });
});

describe('unknown kinds and the text report', () => {
  const typo = 'apiVersion: svcscheduler.config.svc.io/v1\nkind: SvcSchedulerConfiguraton\n';

  it('suggests the kind meant, and makes unknown kinds errors with strictKinds', () => {
    const [loose] = validator.validateText('t.yaml', typo);
    expect(loose!.status).toBe('skipped');
    expect(loose!.findings[0]!.message).toBe(
      'unknown kind SvcSchedulerConfiguraton in svcscheduler.config.svc.io/v1: skipped (did you mean SvcSchedulerConfiguration?)',
    );
    const [strict] = validator.validateText('t.yaml', typo, { strictKinds: true });
    expect(strict!.status).toBe('invalid');
    expect(strict!.findings).toEqual([
      {
        severity: 'error',
        field: 'kind',
        message: 'unknown kind SvcSchedulerConfiguraton in svcscheduler.config.svc.io/v1 (did you mean SvcSchedulerConfiguration?)',
        position: { line: 2, column: 1 },
      },
    ]);
    const [noKind] = validator.validateText('t.yaml', 'a: 1\n', { strictKinds: true });
    expect(noKind!.status).toBe('invalid');
  });

  it('prints one finding a line: no rule text, newlines in messages folded', () => {
    const text = textReport([
      {
        file: 'x.yaml',
        index: 0,
        position: { line: 1, column: 1 },
        status: 'invalid',
        findings: [
          {
            severity: 'error',
            field: 'spec',
            message: 'spec: Invalid value: "object": first line\nsecond line',
            position: { line: 3, column: 1 },
            rule: 'self.a == 1 ||\n  self.b == 2',
          },
        ],
      },
    ]);
    expect(text).toBe(
      'x.yaml:3:1: error: spec: Invalid value: "object": first line second line\n1 documents: 0 valid, 1 invalid, 0 skipped\n',
    );
  });
});
