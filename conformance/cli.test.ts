import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runConformanceCli } from './cli.js';
import { type ScriptedServer, startScriptedServer } from './scripted-server.testing.js';

const suite = `
scenarios:
  - id: core/verbs/reads-object
    rule: "core-protocol.md#Verbs: get"
    steps:
      - request: GET /api/v1/namespaces/\${ns}/configmaps/x
        expect: { status: 200, body: { kind: ConfigMap } }
  - id: core/verbs/slow-one
    rule: "core-protocol.md#Verbs: get"
    tags: [slow]
    namespaces: 0
    steps:
      - request: GET /missing
        expect: { status: 200 }
`;

function scenarioDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'svckit-cli-'));
  mkdirSync(join(dir, 'verbs'));
  writeFileSync(join(dir, 'verbs', 'suite.yaml'), suite);
  return dir;
}

let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function cli(argv: string[], withServer = true): Promise<{ code: number; out: string; err: string; started: number }> {
  let out = '';
  let err = '';
  let started = 0;
  server = await startScriptedServer((req) =>
    req.path.endsWith('/configmaps/x') ? { status: 200, body: { kind: 'ConfigMap', metadata: { name: 'x' } } } : undefined,
  );
  const url = server.url;
  const code = await runConformanceCli(argv, {
    stdout: (t) => {
      out += t;
    },
    stderr: {
      write: (t: string) => {
        err += t;
        return true;
      },
    },
    scenarioDir: scenarioDir(),
    ...(withServer
      ? {
          startReferenceServer: async () => {
            started++;
            return { url, close: () => undefined };
          },
        }
      : {}),
  });
  return { code, out, err, started };
}

describe('svckit conformance', () => {
  it('starts the reference server when no --server is given and exits 1 on a failure', async () => {
    const r = await cli([]);
    expect(r.started).toBe(1);
    expect(r.code).toBe(1);
    expect(r.out.trimEnd().split('\n').at(-1)).toBe('1 passed, 1 failed, 0 skipped');
    expect(r.err).toContain('started the reference server');
  });

  it('exits 0 when nothing failed and writes the JSON and JUnit reports', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svckit-reports-'));
    const json = join(dir, 'r.json');
    const junit = join(dir, 'r.xml');
    const r = await cli(['--tags', '!slow', '--report', `json:${json}`, '--report', `junit:${junit}`]);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/1 passed, 0 failed, 0 skipped\n$/);
    expect(JSON.parse(readFileSync(json, 'utf8')).summary).toMatchObject({ passed: 1, failed: 0 });
    expect(readFileSync(junit, 'utf8')).toContain('<testcase classname="core/verbs" name="core/verbs/reads-object"');
  });

  it('keeps the traces of passed scenarios in the JSON report only with --report-traces all', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svckit-traces-'));
    const tracesOf = (file: string) =>
      (JSON.parse(readFileSync(file, 'utf8')) as { results: { id: string; trace?: unknown[] }[] }).results.map((r) => [
        r.id,
        r.trace === undefined ? 'none' : r.trace.length > 0,
      ]);
    expect((await cli(['--report', `json:${join(dir, 'failed.json')}`])).code).toBe(1);
    expect(tracesOf(join(dir, 'failed.json'))).toEqual([
      ['core/verbs/reads-object', 'none'],
      ['core/verbs/slow-one', true],
    ]);
    expect((await cli(['--report', `json:${join(dir, 'all.json')}`, '--report-traces', 'all'])).code).toBe(1);
    expect(tracesOf(join(dir, 'all.json'))).toEqual([
      ['core/verbs/reads-object', true],
      ['core/verbs/slow-one', true],
    ]);
    expect((await cli(['--report-traces', 'passed'])).err).toContain('--report-traces: expected failed or all, found "passed"');
  });

  it('judges the server named by --server without starting one', async () => {
    const other = await startScriptedServer(() => undefined);
    try {
      const r = await cli(['--server', other.url, '--focus', 'core/verbs/reads-object']);
      expect(r.started).toBe(0);
      expect(r.code).toBe(1);
      expect(other.requests.some((q) => q.path.endsWith('/configmaps/x'))).toBe(true);
    } finally {
      await other.close();
    }
  });

  it('accepts a known-failing list and fails on a stale one', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svckit-known-'));
    writeFileSync(join(dir, 'known.txt'), 'core/verbs/slow-one\n');
    expect((await cli(['--known-failing', join(dir, 'known.txt')])).code).toBe(0);
    writeFileSync(join(dir, 'stale.txt'), 'core/verbs/reads-object\n');
    const stale = await cli(['--known-failing', join(dir, 'stale.txt'), '--tags', '!slow']);
    expect(stale.code).toBe(1);
    expect(stale.out).toContain('but passed: remove it from the list');
  });

  it('lists scenario ids', async () => {
    const r = await cli(['--list', '--tags', 'slow']);
    expect(r.code).toBe(0);
    expect(r.out).toBe('core/verbs/slow-one\n');
  });

  it('exits 2 on usage errors', async () => {
    expect((await cli(['--parallel', 'many'])).code).toBe(2);
    expect((await cli(['--report', 'html:x'])).err).toContain('expected json:<file> or junit:<file>');
    expect((await cli(['--without', 'telepathy'])).err).toContain('unknown feature "telepathy"');
    expect((await cli(['--token', 't', '--config', 'c'])).code).toBe(2);
    expect((await cli(['--history-window', 'soon'])).err).toContain('invalid duration');
    expect((await cli(['--nope'])).code).toBe(2);
  });

  it('exits 2, naming the pattern, when a --focus or --skip pattern matches no scenario', async () => {
    const typo = await cli(['--focus', 'core/wach/*']);
    expect(typo.code).toBe(2);
    expect(typo.started).toBe(0);
    expect(typo.err).toContain('--focus pattern "core/wach/*" matches no scenario id');
    const skip = await cli(['--focus', 'core/verbs', '--skip', 'core/verbs/slow-on']);
    expect(skip.code).toBe(2);
    expect(skip.err).toContain('--skip pattern "core/verbs/slow-on" matches no scenario id');
    expect(skip.err).not.toContain('--focus pattern');
    expect((await cli(['--list', '--focus', 'core/nothing/**'])).code).toBe(2);
  });

  it('runs when every --focus and --skip pattern matches something', async () => {
    const r = await cli(['--focus', 'core/verbs/*', '--skip', 'core/verbs/slow-one']);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/1 passed, 0 failed, 0 skipped\n$/);
  });

  it('says so and exits 2 when the reference server module does not exist', async () => {
    let err = '';
    const code = await runConformanceCli([], {
      stdout: () => undefined,
      stderr: {
        write: (t: string) => {
          err += t;
          return true;
        },
      },
      scenarioDir: scenarioDir(),
      referenceServerModule: new URL('./no-such-server/index.js', import.meta.url),
    });
    expect(code).toBe(2);
    expect(err).toMatch(/the reference server is not built yet .*no-such-server\/index\.ts is missing\); pass --server <url>/);
  });
});
