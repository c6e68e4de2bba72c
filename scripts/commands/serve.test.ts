import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { describe, expect, it } from 'vitest';
import { createClient } from '../../generated/client.js';
import { loadClientConfig } from '../../runtime/client-node/index.js';
import { cliArgs } from './cli.testing.js';

const ROOT = new URL('../../', import.meta.url).pathname;

/** Starts `svckit serve` and resolves with the URL from its first stdout line. */
function serve(args: string[]): Promise<{ url: string; process: ChildProcessWithoutNullStreams; stopped: Promise<number | null> }> {
  const child = spawn(process.execPath, cliArgs('serve', ...args), { cwd: ROOT });
  const stopped = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    const lines = createInterface({ input: child.stdout });
    lines.once('line', (line) => {
      const m = /^listening on (http:\/\/\S+)$/.exec(line);
      if (m) resolve({ url: m[1]!, process: child, stopped });
      else reject(new Error(`unexpected first line: ${line}`));
    });
    child.once('exit', (code) => reject(new Error(`svckit serve exited with ${code}`)));
  });
}

const json = { 'content-type': 'application/json' };

const BROKEN_RULE_CRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: { name: widgets.example.com }
spec:
  group: example.com
  scope: Namespaced
  names: { plural: widgets, singular: widget, kind: Widget }
  versions:
    - name: v1
      served: true
      storage: true
      schema:
        openAPIV3Schema:
          type: object
          properties:
            spec:
              type: object
              properties: { size: { type: integer } }
              x-kubernetes-validations: [{ rule: 'self.size >' }]
`;

/** Starts `svckit serve` and resolves with its stdout lines up to the one that says how to connect. */
function serveUntilConnect(
  args: string[],
): Promise<{ lines: string[]; process: ChildProcessWithoutNullStreams; stopped: Promise<number | null> }> {
  const child = spawn(process.execPath, cliArgs('serve', '--store', 'memory', '--port', '0', ...args), { cwd: ROOT });
  const stopped = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += String(d)));
  const lines: string[] = [];
  return new Promise((resolve, reject) => {
    createInterface({ input: child.stdout }).on('line', (line) => {
      lines.push(line);
      if (line.startsWith('connect: ')) resolve({ lines, process: child, stopped });
    });
    child.once('exit', (code) => reject(new Error(`svckit serve exited with ${code}: ${stderr}`)));
  });
}

describe('svckit serve', () => {
  it('keeps every acknowledged object across a restart on the same SQLite file and continues the revisions', async () => {
    const db = join(mkdtempSync(join(tmpdir(), 'svckit-serve-')), 'data.db');
    const first = await serve(['--port', '0', '--store', `sqlite:${db}`]);
    await fetch(`${first.url}/api/v1/namespaces`, { method: 'POST', headers: json, body: JSON.stringify({ metadata: { name: 'keep' } }) });
    const created: { metadata: { resourceVersion: string } }[] = [];
    for (let i = 0; i < 20; i++) {
      const res = await fetch(`${first.url}/api/v1/namespaces/keep/configmaps`, {
        method: 'POST',
        headers: json,
        body: JSON.stringify({ metadata: { name: `c${i}` }, data: { i: String(i) } }),
      });
      expect(res.status).toBe(201);
      created.push((await res.json()) as { metadata: { resourceVersion: string } });
    }
    first.process.kill('SIGTERM');
    expect(await first.stopped).toBe(0);

    const second = await serve(['--port', '0', '--store', `sqlite:${db}`]);
    try {
      const list = (await (await fetch(`${second.url}/api/v1/namespaces/keep/configmaps`)).json()) as {
        items: { metadata: { name: string } }[];
      };
      expect(list.items.map((i) => i.metadata.name).sort()).toEqual(Array.from({ length: 20 }, (_, i) => `c${i}`).sort());
      const next = (await (
        await fetch(`${second.url}/api/v1/namespaces/keep/configmaps`, {
          method: 'POST',
          headers: json,
          body: JSON.stringify({ metadata: { name: 'after' } }),
        })
      ).json()) as { metadata: { resourceVersion: string } };
      expect(Number(next.metadata.resourceVersion)).toBeGreaterThan(Number(created.at(-1)!.metadata.resourceVersion));
    } finally {
      second.process.kill('SIGTERM');
      await second.stopped;
    }
  });

  it('answers bad flags with a usage error (exit 2)', async () => {
    const child = spawn(process.execPath, cliArgs('serve', '--port', 'eighty'), { cwd: ROOT });
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect(code).toBe(2);
  });

  it('refuses to start on --schemas whose CEL rules do not compile, naming the kind and the rule', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svckit-serve-rules-'));
    writeFileSync(join(dir, 'widgets.yaml'), BROKEN_RULE_CRD);
    const child = spawn(process.execPath, cliArgs('serve', '--store', 'memory', '--port', '0', '--schemas', dir), { cwd: ROOT });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += String(d)));
    // A server that starts anyway is stopped, so the test fails at once rather than at its timeout.
    child.stdout.on('data', () => child.kill());
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect(code).not.toBe(0);
    expect(stderr).toContain("the schemas' CEL rules do not compile:");
    expect(stderr).toMatch(/example\.com\/v1 Widget: .*self\.size >/);
  });

  it('starts with a GA gate set to its locked value, warning that it will be removed, and honours WatchList=true', async () => {
    const child = spawn(
      process.execPath,
      cliArgs('serve', '--store', 'memory', '--port', '0', '--feature-gates', 'APIListChunking=true,WatchList=true'),
      { cwd: ROOT },
    );
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += String(d)));
    const stopped = new Promise<number | null>((resolve) => child.once('exit', resolve));
    const url = await new Promise<string>((resolve, reject) => {
      createInterface({ input: child.stdout }).once('line', (line) => resolve(line.replace(/^listening on /, '')));
      child.once('exit', (code) => reject(new Error(`svckit serve exited with ${code}: ${stderr}`)));
    });
    try {
      // stderr and stdout are separate pipes: the warning, written first, may be read after the URL.
      const warning = 'warning: Setting GA feature gate APIListChunking=true. It will be removed in a future release.';
      for (const end = Date.now() + 10_000; !stderr.includes(warning) && Date.now() < end; ) await new Promise((r) => setTimeout(r, 20));
      expect(stderr).toContain(warning);
      const res = await fetch(
        `${url}/api/v1/namespaces/default/configmaps?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&timeoutSeconds=1`,
      );
      expect(res.status).toBe(200);
      await res.body?.cancel();
    } finally {
      child.kill('SIGTERM');
      await stopped;
    }
  });

  it('refuses unknown or malformed --feature-gates and --runtime-config with a usage error, no stack trace', async () => {
    const cases: [string[], RegExp][] = [
      [['--feature-gates', 'WatchLists=true'], /unrecognized feature gate: WatchLists \(known gates: .*WatchList/],
      [['--feature-gates', 'WatchList=yes'], /invalid value of WatchList=yes/],
      [['--feature-gates', 'APIListChunking=false'], /feature is locked to true/],
      [['--runtime-config', 'nosuch.svc.io/v1=true'], /--runtime-config nosuch\.svc\.io\/v1=true: unknown API group "nosuch\.svc\.io"/],
      [['--runtime-config', 'batch/v1beta1=maybe'], /--runtime-config batch\/v1beta1=maybe: the value must be true or false/],
      [['--group-suffix', 'k8s'], /--group-suffix: expected a DNS domain of at least two labels such as k8s\.io or svc\.io, found "k8s"/],
      // Under --group-suffix the groups are named by the suffix, in --runtime-config too.
      [
        ['--group-suffix', 'k8s.io', '--runtime-config', 'flowcontrol.apiserver.svc.io/v1beta2=true'],
        /unknown API group "flowcontrol\.apiserver\.svc\.io"/,
      ],
    ];
    await Promise.all(
      cases.map(async ([flags, message]) => {
        const child = spawn(process.execPath, cliArgs('serve', '--store', 'memory', '--port', '0', ...flags), { cwd: ROOT });
        let stderr = '';
        child.stderr.on('data', (d) => (stderr += String(d)));
        const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
        expect({ code, stderr }).toMatchObject({ code: 2, stderr: expect.stringMatching(message) });
        expect(stderr).not.toMatch(/^\s+at /m);
      }),
    );
  });

  it('writes a client config for itself with --write-kubeconfig (0600) that loadClientConfig reads through SVCCONFIG', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svckit-serve-kubeconfig-'));
    for (const secure of [[], ['--secure', '--cert-dir', join(dir, 'pki')]]) {
      const file = join(dir, secure.length > 0 ? 'secure.config' : 'svc.config');
      const served = await serveUntilConnect(['--write-kubeconfig', file, ...secure]);
      try {
        const url = served.lines[0]!.replace(/^listening on /, '');
        expect(served.lines).toContain(`connect: SVCCONFIG=${file} for loadClientConfig(), KUBECONFIG=${file} for kubectl`);
        expect(statSync(file).mode & 0o777).toBe(0o600);
        expect(readFileSync(file, 'utf8')).toContain(`server: ${url}`);
        const client = createClient(await loadClientConfig({ env: { SVCCONFIG: file } }));
        await client.core.v1.configMaps('default').create({ metadata: { name: 'through-the-file' }, data: { a: '1' } });
        const names = (await client.core.v1.configMaps('default').list()).items.map((c) => c.metadata?.name);
        expect(names).toContain('through-the-file');
      } finally {
        served.process.kill('SIGTERM');
        await served.stopped;
      }
    }
  });

  it('says how to connect when no client config is written', async () => {
    const served = await serveUntilConnect([]);
    try {
      const url = served.lines[0]!.replace(/^listening on /, '');
      expect(served.lines.at(-1)).toBe(
        `connect: createClient({ server: '${url}' }), or serve with --write-kubeconfig <file> and set SVCCONFIG=<file> for loadClientConfig(), KUBECONFIG=<file> for kubectl`,
      );
    } finally {
      served.process.kill('SIGTERM');
      await served.stopped;
    }
  });
});
