import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { describe, expect, it } from 'vitest';
import { cliArgs } from './cli.testing.js';
import { loadPolicy, serveAuditOptions } from './serve-audit.js';
import { UsageError } from './usage-error.js';

const ROOT = new URL('../../', import.meta.url).pathname;

function file(text: string): string {
  const path = join(mkdtempSync(join(tmpdir(), 'svckit-policy-')), 'policy.yaml');
  writeFileSync(path, text);
  return path;
}

const POLICY = `apiVersion: audit.svc.io/v1
kind: Policy
omitStages: [RequestReceived]
rules:
  - level: None
    nonResourceURLs: ["/healthz*"]
  - level: Request
    resources: [{ group: "", resources: ["configmaps"] }]
`;

/** The UsageError message a call throws. */
function usage(f: () => unknown): string {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(UsageError);
    return (e as Error).message;
  }
  throw new Error('no error');
}

describe('svckit serve audit and metrics flags', () => {
  it('loads a policy file', () => {
    const p = loadPolicy(file(POLICY));
    expect(p.evaluate({ user: undefined, attributes: { isResourceRequest: false, path: '/healthz', verb: 'get' } as never }).level).toBe(
      'None',
    );
  });

  it('refuses a policy that is missing, not a Policy, invalid against its schema, or of no rules, saying where', () => {
    expect(usage(() => loadPolicy('/nonexistent/policy.yaml'))).toMatch(/^--audit-policy-file \/nonexistent\/policy.yaml: ENOENT/);
    const notPolicy = file('apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n');
    expect(usage(() => loadPolicy(notPolicy))).toBe(
      `--audit-policy-file ${notPolicy}: expected one document of kind Policy (audit.svc.io/v1), found v1 ConfigMap`,
    );
    const typo = file('apiVersion: audit.svc.io/v1\nkind: Policy\nrules:\n  - level: Metadata\n    verb: [get]\n');
    expect(usage(() => loadPolicy(typo))).toMatch(
      new RegExp(`is not a valid policy:\\n${typo}:5:5: error: unknown field "rules\\[0\\]\\.verb"`),
    );
    const empty = file('apiVersion: audit.svc.io/v1\nkind: Policy\nrules: []\n');
    expect(usage(() => loadPolicy(empty))).toContain('rules: Required value: a policy needs at least one rule');
  });

  it('checks the numbers and the hidden-metrics release, and warns when audit lacks a policy or a backend', () => {
    const warnings: string[] = [];
    const warn = (l: string) => warnings.push(l);
    expect(usage(() => serveAuditOptions({ 'audit-log-maxsize': '-1' }, '1.30', warn))).toBe(
      '--audit-log-maxsize must be a whole number, 0 or more, not -1',
    );
    expect(usage(() => serveAuditOptions({ 'audit-log-maxage': '1.5' }, '1.30', warn))).toBe(
      '--audit-log-maxage must be a whole number, 0 or more, not 1.5',
    );
    expect(usage(() => serveAuditOptions({ 'show-hidden-metrics-for-version': '1.27' }, '1.30', warn))).toBe(
      '--show-hidden-metrics-for-version 1.27: must be the previous minor release, 1.29',
    );
    expect(serveAuditOptions({ 'show-hidden-metrics-for-version': '1.29' }, '1.30', warn).options).toEqual({
      showHiddenMetricsForVersion: '1.29',
    });
    expect(serveAuditOptions({ 'audit-policy-file': file(POLICY) }, '1.30', warn).options.audit).toBeUndefined();
    expect(serveAuditOptions({ 'audit-log-path': '/tmp/x.log' }, '1.30', warn).options.audit).toBeUndefined();
    expect(warnings).toEqual([
      'svckit serve: --audit-policy-file without --audit-log-path: no audit backend, nothing is recorded',
      'svckit serve: --audit-log-path without --audit-policy-file: no audit policy, nothing is recorded',
    ]);
  });

  it('serves with the policy: events in the log file, and with - on stdout after the listening line', async () => {
    const policy = file(POLICY);
    const log = join(mkdtempSync(join(tmpdir(), 'svckit-audit-log-')), 'audit.log');
    const child = spawn(
      process.execPath,
      cliArgs('serve', '--port', '0', '--store', 'memory', '--audit-policy-file', policy, '--audit-log-path', '-'),
      { cwd: ROOT },
    );
    const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
    try {
      const first = (await lines.next()).value as string;
      const url = /^listening on (\S+)$/.exec(first)?.[1];
      expect(url, first).toBeDefined();
      // Then how to connect, then the events.
      expect((await lines.next()).value as string).toMatch(/^connect: /);
      await fetch(`${url}/healthz`);
      const res = await fetch(`${url}/api/v1/namespaces/default/configmaps`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ metadata: { name: 'c' }, data: { k: 'v' } }),
      });
      expect(res.status).toBe(201);
      const event = JSON.parse((await lines.next()).value as string);
      expect(event).toMatchObject({
        auditID: res.headers.get('audit-id'),
        stage: 'ResponseComplete',
        level: 'Request',
        requestObject: { data: { k: 'v' } },
      });
    } finally {
      child.kill('SIGTERM');
    }
    const toFile = spawn(
      process.execPath,
      cliArgs('serve', '--port', '0', '--store', 'memory', '--audit-policy-file', policy, '--audit-log-path', log),
      { cwd: ROOT },
    );
    const out = createInterface({ input: toFile.stdout })[Symbol.asyncIterator]();
    const url = /^listening on (\S+)$/.exec((await out.next()).value as string)?.[1];
    await fetch(`${url}/api/v1/namespaces/default/configmaps/none`);
    const exited = new Promise((resolve) => toFile.once('exit', resolve));
    toFile.kill('SIGTERM');
    await exited;
    const events = readFileSync(log, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(events.map((e) => [e.verb, e.objectRef?.resource, e.responseStatus?.code])).toEqual([['get', 'configmaps', 404]]);
  }, 60_000);
});
