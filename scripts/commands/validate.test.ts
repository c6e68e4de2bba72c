import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { cliArgs } from './cli.testing.js';

const ROOT = new URL('../../', import.meta.url).pathname;
const CRDS = join(ROOT, 'generator/testdata/crds');

/** A cache folder of its own for the CLI, which must stay empty. */
const cache = mkdtempSync(join(tmpdir(), 'svckit-cache-'));

function svckit(args: string[], cwd: string, input?: string) {
  const r = spawnSync(process.execPath, cliArgs(...args), {
    cwd,
    encoding: 'utf8',
    input,
    timeout: 120_000,
    env: { ...process.env, XDG_CACHE_HOME: cache },
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('svckit validate', () => {
  it("validates documents against a consuming project's CRDs (--schemas)", () => {
    const dir = mkdtempSync(join(tmpdir(), 'svckit-validate-'));
    writeFileSync(
      join(dir, 'certs.yaml'),
      [
        'apiVersion: pki.example.io/v1',
        'kind: Certificate',
        'metadata: {name: ok, namespace: default}',
        'spec: {secretName: ok-tls, issuerRef: {name: letsencrypt}, dnsNames: [example.com]}',
        '---',
        'apiVersion: pki.example.io/v1',
        'kind: Certificate',
        'metadata: {name: bad}',
        'spec:',
        '  secretName: 42',
        '  issuerRef: {name: letsencrypt}',
        '',
      ].join('\n'),
    );
    const r = svckit(['validate', '--schemas', CRDS, 'certs.yaml', '--output', 'json'], dir);
    expect(r.stderr).toContain('svckit validate: loaded 6 group/versions');
    expect(r.stderr).toContain('svckit validate: warning: skipped');
    // The kinds are built in memory: nothing is written, neither to the working directory nor the cache.
    expect(readdirSync(dir)).toEqual(['certs.yaml']);
    expect(readdirSync(cache)).toEqual([]);
    expect(r.code).toBe(1);
    const report = JSON.parse(r.stdout) as {
      summary: unknown;
      documents: { status: string; findings: { message: string; position: { line: number } }[] }[];
    };
    expect(report.summary).toEqual({ documents: 2, valid: 1, invalid: 1, skipped: 0 });
    expect(report.documents[1]!.findings[0]).toMatchObject({
      message: 'spec.secretName: Invalid value: "integer": spec.secretName in body must be of type string: "integer"',
      position: { line: 10 },
    });
  });

  it('knows the built-in kinds beside the CRDs (under --group-suffix k8s.io too), and reports every finding of a document at once', () => {
    const dir = mkdtempSync(join(tmpdir(), 'svckit-validate-builtin-'));
    const deployment = (apiVersion: string) =>
      [
        `apiVersion: ${apiVersion}`,
        'kind: Deployment',
        'metadata: {name: web}',
        'spec:',
        '  replicas: -1',
        '  selector: {matchLabels: {app: web}}',
        '  template:',
        '    metadata: {labels: {app: other}}',
        '    spec: {containers: [{name: c, image: nginx}]}',
        '',
      ].join('\n');
    writeFileSync(join(dir, 'deploy.yaml'), deployment('apps/v1'));
    writeFileSync(
      join(dir, 'binding.yaml'),
      'apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRoleBinding\nmetadata: {name: b}\nroleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: view}\n',
    );
    const r = svckit(['validate', '--schemas', CRDS, '--group-suffix', 'k8s.io', 'deploy.yaml', 'binding.yaml', '--output', 'json'], dir);
    const report = JSON.parse(r.stdout) as { summary: unknown; documents: { file: string; findings: { message: string }[] }[] };
    expect(report.summary, r.stderr).toEqual({ documents: 2, valid: 1, invalid: 1, skipped: 0 });
    // The range check and the cross-field rule (the selector must match the template's labels) together.
    const messages = report.documents.find((d) => d.file.endsWith('deploy.yaml'))!.findings.map((f) => f.message);
    expect(messages).toHaveLength(2);
    expect(messages.join('\n')).toContain('spec.replicas');
    expect(messages.join('\n')).toContain('selector');
    expect(r.code).toBe(1);
  });

  it('reports a CRD rule that does not compile as a finding, keeping every other result (no crash)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'svckit-validate-'));
    const crd = readFileSync(join(CRDS, 'pki.example.io_issuers.yaml'), 'utf8').replace(
      '"[has(self.acme), has(self.ca), has(self.selfSigned)].filter(x, x).size() == 1"',
      '"self.acme.server +"',
    );
    mkdirSync(join(dir, 'crds'));
    writeFileSync(join(dir, 'crds', 'issuers.yaml'), crd);
    writeFileSync(
      join(dir, 'docs.yaml'),
      [
        'apiVersion: pki.example.io/v1',
        'kind: Issuer',
        'metadata: {name: a, namespace: default}',
        'spec: {ca: {secretName: x}}',
        '---',
        'apiVersion: eventratelimit.admission.svc.io/v1alpha1',
        'kind: Configuration',
        'limits: [{type: Server, qps: 1, burst: 1}]',
        '',
      ].join('\n'),
    );
    const r = svckit(['validate', '--schemas', join(dir, 'crds'), 'docs.yaml'], dir);
    expect(r.stderr).not.toMatch(/\n\s+at /);
    // Said once when the schemas load, also when no document reaches the rule.
    expect(r.stderr).toContain(
      'svckit validate: warning: pki.example.io/v1 Issuer: compiling rule "self.acme.server +": Unexpected token: EOF',
    );
    expect(r.code).toBe(1);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^docs\.yaml:4:1: error: spec: Invalid value: "object": rule does not compile: /);
    // The built-in configuration kind is known beside the CRDs.
    expect(lines.at(-1)).toBe('2 documents: 1 valid, 1 invalid, 0 skipped');
  });

  it('warns of a CRD default the server would refuse, as it warns of a rule', () => {
    const dir = mkdtempSync(join(tmpdir(), 'svckit-validate-'));
    const crd = readFileSync(join(CRDS, 'pki.example.io_issuers.yaml'), 'utf8').replace(
      'secretName: {type: string}',
      'secretName: {type: string, default: 42}',
    );
    expect(crd).toContain('default: 42');
    mkdirSync(join(dir, 'crds'));
    writeFileSync(join(dir, 'crds', 'issuers.yaml'), crd);
    writeFileSync(
      join(dir, 'docs.yaml'),
      'apiVersion: pki.example.io/v1\nkind: Issuer\nmetadata: {name: a, namespace: default}\nspec: {ca: {secretName: x}}\n',
    );
    const r = svckit(['validate', '--schemas', join(dir, 'crds'), 'docs.yaml'], dir);
    expect(r.stderr).toMatch(
      /svckit validate: warning: pki\.example\.io\/v1 Issuer: openAPIV3Schema\.properties\[spec\]\.properties\[ca\]\.properties\[secretName\]\.default: Invalid value: "integer": {2}in body must be of type string: "integer"\n/,
    );
    expect(r.code).toBe(0);
  });

  it("warns of a CRD rule whose estimated cost the server would refuse, in the server's words", () => {
    const dir = mkdtempSync(join(tmpdir(), 'svckit-validate-'));
    const crd = readFileSync(join(CRDS, 'pki.example.io_issuers.yaml'), 'utf8').replace(
      'secretName: {type: string}',
      "secretName: {type: string, x-kubernetes-validations: [{rule: 'self.matches(self)'}]}",
    );
    expect(crd).toContain('self.matches(self)');
    mkdirSync(join(dir, 'crds'));
    writeFileSync(join(dir, 'crds', 'issuers.yaml'), crd);
    writeFileSync(
      join(dir, 'docs.yaml'),
      'apiVersion: pki.example.io/v1\nkind: Issuer\nmetadata: {name: a, namespace: default}\nspec: {ca: {secretName: x}}\n',
    );
    const r = svckit(['validate', '--schemas', join(dir, 'crds'), 'docs.yaml'], dir);
    expect(r.stderr).toContain(
      'svckit validate: warning: pki.example.io/v1 Issuer: openAPIV3Schema.properties[spec].properties[ca].properties[secretName].x-kubernetes-validations[0].rule: Forbidden: estimated rule cost exceeds budget by factor of more than 100x',
    );
    expect(r.code).toBe(0);
  });

  it('reads standard input and exits 0 when all documents are valid', () => {
    const r = svckit(
      ['validate', '-'],
      ROOT,
      'apiVersion: eventratelimit.admission.svc.io/v1alpha1\nkind: Configuration\nlimits: [{type: Server, qps: 1, burst: 1}]\n',
    );
    expect(r.code).toBe(0);
    expect(r.stdout.trim()).toBe('1 documents: 1 valid, 0 invalid, 0 skipped');
  });

  it('fails a kind typo with --strict-kinds, and only warns without it', () => {
    const typo = 'apiVersion: eventratelimit.admission.svc.io/v1alpha1\nkind: Configuraton\nlimits: [{type: Server, qps: 1, burst: 1}]\n';
    const loose = svckit(['validate', '-'], ROOT, typo);
    expect(loose.code).toBe(0);
    expect(loose.stdout).toContain(
      'warning: unknown kind Configuraton in eventratelimit.admission.svc.io/v1alpha1: skipped (did you mean Configuration?)',
    );
    expect(loose.stdout.trimEnd().split('\n').at(-1)).toBe('1 documents: 0 valid, 0 invalid, 1 skipped');
    const strict = svckit(['validate', '--strict-kinds', '-'], ROOT, typo);
    expect(strict.code).toBe(1);
    expect(strict.stdout).toContain('<stdin>:2:1: error: unknown kind Configuraton');
    expect(strict.stdout.trimEnd().split('\n').at(-1)).toBe('1 documents: 0 valid, 1 invalid, 0 skipped');
  });

  it('prints the defaulted documents as YAML with --print-defaults (the report goes to standard error)', () => {
    const r = svckit(
      ['validate', '--print-defaults', '-'],
      ROOT,
      'apiVersion: svcscheduler.config.svc.io/v1\nkind: SvcSchedulerConfiguration\nprofiles:\n  - schedulerName: default-scheduler\n    pluginConfig:\n      - name: DefaultPreemption\n',
    );
    expect(r.code).toBe(0);
    const docs = parseAllDocuments(r.stdout).map((d) => d.toJS() as Record<string, unknown>);
    expect(docs).toHaveLength(1);
    expect(docs[0]).toMatchObject({
      kind: 'SvcSchedulerConfiguration',
      parallelism: 16,
      podInitialBackoffSeconds: 1,
      podMaxBackoffSeconds: 10,
      profiles: [
        {
          schedulerName: 'default-scheduler',
          pluginConfig: [
            {
              name: 'DefaultPreemption',
              args: { kind: 'DefaultPreemptionArgs', minCandidateNodesPercentage: 10, minCandidateNodesAbsolute: 100 },
            },
          ],
        },
      ],
    });
    expect(r.stderr.trimEnd().split('\n').at(-1)).toBe('1 documents: 1 valid, 0 invalid, 0 skipped');
  });

  it('prints its help and exits 0', () => {
    const r = svckit(['validate', '--help'], ROOT);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('usage: svckit validate');
  });

  it('exits 2 for usage errors', () => {
    expect(svckit(['validate'], ROOT).code).toBe(2);
    expect(svckit(['validate', '--output', 'xml', '-'], ROOT, '').code).toBe(2);
    expect(svckit(['validate', 'no-such-file.yaml'], ROOT).code).toBe(2);
  });
});
