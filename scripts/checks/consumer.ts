/**
 * The consumer path, from nothing, as a new user takes it: `npm pack`, a fresh project outside
 * this repository, `npm install <tarball>`, an npm script `codegen` over CRDs the project writes
 * itself, `tsc` in strict NodeNext mode with skipLibCheck off, then plain `node` runs a program
 * that uses the generated client against `svckit serve` started from the installed package
 * (create, get, list, watch, apply; configured by `loadClientConfig()` from `$KUBECONFIG`, as the
 * README's three steps write it), then runs the README's controller example as written (it marks
 * a widget ready, and on SIGTERM releases its Lease and exits 0), and esbuild bundles the client
 * and `svckit/controller` for browsers with no `node:` import. Asserts that the install built no
 * native module, and prints how long it took.
 *
 *   npx tsx scripts/checks/consumer.ts [--keep]
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const ROOT = new URL('../../', import.meta.url).pathname;
const keep = process.argv.includes('--keep');
const work = mkdtempSync(join(tmpdir(), 'svckit-consumer-'));
const project = join(work, 'project');
const servers: ChildProcess[] = [];

function step(title: string): void {
  process.stdout.write(`consumer: ${title}\n`);
}

function run(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = {}): string {
  try {
    return execFileSync(command, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
  } catch (e) {
    const { stdout, stderr } = e as { stdout?: string; stderr?: string };
    throw new Error(`${command} ${args.join(' ')} failed in ${cwd}:\n${stdout ?? ''}${stderr ?? ''}`);
  }
}

function check(condition: unknown, message: string): asserts condition {
  if (!condition) throw new Error(`consumer: ${message}`);
}

/** Native addons a package install compiled or unpacked (`*.node` files), anywhere below node_modules. */
function nativeModules(dir: string): string[] {
  return (readdirSync(join(dir, 'node_modules'), { recursive: true }) as string[]).filter((f) => f.endsWith('.node'));
}

const WIDGET_CRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.shop.example.io
spec:
  group: shop.example.io
  names: {kind: Widget, listKind: WidgetList, plural: widgets, singular: widget}
  scope: Namespaced
  versions:
    - name: v1
      served: true
      storage: true
      subresources: {status: {}}
      schema:
        openAPIV3Schema:
          type: object
          properties:
            apiVersion: {type: string}
            kind: {type: string}
            metadata: {type: object}
            spec:
              type: object
              required: [size]
              properties:
                size: {type: integer, minimum: 1, maximum: 10}
                color: {type: string, enum: [red, green, blue], default: red}
                tags: {type: array, items: {type: string}, x-kubernetes-list-type: set}
            status:
              type: object
              properties:
                ready: {type: boolean}
`;

const MAIN = `import { createClient } from './generated/client.js';
import type { Widget } from './generated/shop.example.io/v1/types.js';
import { loadClientConfig } from 'svckit/client/node';

const client = createClient(await loadClientConfig()); // as the README writes it; $SVCCONFIG names the file serve wrote
const widgets = client.shop.v1.widgets('default');

const seen: string[] = [];
const stop = new AbortController();
const watching = (async () => {
  for await (const event of widgets.watch({ signal: stop.signal })) seen.push(\`\${event.type} \${event.object.metadata?.name}\`);
})();

const created: Widget = await widgets.create({ apiVersion: 'shop.example.io/v1', kind: 'Widget', metadata: { name: 'w1' }, spec: { size: 3 } });
const got = await widgets.get('w1');
await widgets.apply({ apiVersion: 'shop.example.io/v1', kind: 'Widget', metadata: { name: 'w2' }, spec: { size: 5, tags: ['a'] } }, { fieldManager: 'consumer' });
const list = await widgets.list();
for (let i = 0; i < 100 && seen.length < 2; i++) await new Promise((r) => setTimeout(r, 50));
stop.abort();
await watching;
console.log(JSON.stringify({ color: created.spec?.color, got: got.metadata?.name, listed: list.items.map((w) => w.metadata?.name), managers: list.items[1]?.metadata?.managedFields?.map((m) => m.manager), seen }));
`;

const BROWSER = `import { Controller } from 'svckit/controller';
import { createClient } from './generated/client.js';

export const client = createClient({ server: location.origin });
export async function widgetNames(): Promise<string[]> {
  return (await client.shop.v1.widgets('default').list()).items.map((w) => w.metadata?.name ?? '');
}
/** svckit/controller's work queue and controller loop run in a browser too. */
export function widgetController(onKey: (key: string) => void): Controller {
  return new Controller({ informers: [client.shop.v1.widgets('default').informer()], reconcile: async (key) => onKey(key) });
}
`;

/** The README's controller example, as written there (the first TypeScript block under its heading). */
function readmeControllerExample(): string {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('### Writing controllers: `svckit/controller`'));
  const block = /```ts\n([\s\S]*?)```/.exec(section);
  check(block, 'README.md has no TypeScript block under "Writing controllers"');
  return block[1]!;
}

/** The served object at `path` as JSON. */
async function getJson(url: string, path: string): Promise<{ status?: { ready?: boolean }; spec?: { holderIdentity?: string } }> {
  const response = await fetch(new URL(path, url));
  check(response.ok, `GET ${path}: ${response.status}`);
  return (await response.json()) as never;
}

const TSCONFIG = {
  compilerOptions: {
    target: 'ES2022',
    module: 'NodeNext',
    moduleResolution: 'NodeNext',
    lib: ['ES2023', 'DOM'],
    types: ['node'],
    strict: true,
    skipLibCheck: false,
    outDir: 'dist',
    rootDir: 'src',
  },
  include: ['src'],
};

/** `svckit serve --port 0 --store memory` from the installed package with `args`; resolves to its URL. */
async function startServer(...args: string[]): Promise<string> {
  const child = spawn(join(project, 'node_modules/.bin/svckit'), ['serve', '--port', '0', '--store', 'memory', ...args], {
    cwd: project,
    env: { ...process.env, XDG_CACHE_HOME: join(work, 'cache') },
  });
  servers.push(child);
  let err = '';
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /listening on (\S+)/.exec(out);
      if (m) resolve(m[1]!);
    });
    child.on('exit', (code) => reject(new Error(`svckit serve exited with ${code}:\n${err}`)));
  });
}

try {
  step('npm pack (builds dist/)');
  const tarball = join(work, run('npm', ['pack', '--silent', '--pack-destination', work], ROOT).trim().split('\n').pop()!);

  step('a fresh project with its own CRDs, TypeScript and esbuild');
  mkdirSync(join(project, 'crds'), { recursive: true });
  mkdirSync(join(project, 'src'), { recursive: true });
  writeFileSync(
    join(project, 'package.json'),
    `${JSON.stringify({ name: 'consumer', private: true, type: 'module', scripts: { codegen: 'svckit codegen --schemas crds --out src/generated', build: 'tsc -p .' } }, null, 2)}\n`,
  );
  writeFileSync(join(project, 'crds/widgets.yaml'), WIDGET_CRD);
  writeFileSync(join(project, 'src/main.ts'), MAIN);
  writeFileSync(join(project, 'src/browser.ts'), BROWSER);
  writeFileSync(join(project, 'src/controller.ts'), readmeControllerExample());
  writeFileSync(join(project, 'tsconfig.json'), `${JSON.stringify(TSCONFIG, null, 2)}\n`);
  run('npm', ['install', '--no-audit', '--no-fund', 'typescript@~6.0.3', '@types/node@^20', 'esbuild@^0.28'], project);

  step(`npm install ${tarball.slice(work.length + 1)}`);
  const started = performance.now();
  run('npm', ['install', '--no-audit', '--no-fund', tarball], project);
  const seconds = (performance.now() - started) / 1000;
  const native = nativeModules(project);
  check(native.length === 0, `the client-only install built or unpacked native modules: ${native.join(', ')}`);
  check(!readdirSync(join(project, 'node_modules')).includes('better-sqlite3'), 'better-sqlite3 was installed for a client-only project');
  step(`installed svckit in ${seconds.toFixed(1)} s; native modules built: 0`);

  step('npm run codegen');
  run('npm', ['run', '-s', 'codegen'], project);
  const generated = (readdirSync(join(project, 'src/generated'), { recursive: true }) as string[]).filter((f) => f.endsWith('.ts'));
  for (const f of generated) {
    const text = readFileSync(join(project, 'src/generated', f), 'utf8');
    check(!/from '(\.\.\/)+\.\.\/node_modules|from '\//.test(text), `${f} imports by a path out of the output folder`);
  }

  step('tsc (strict, NodeNext, skipLibCheck off)');
  run('npm', ['run', '-s', 'build'], project);

  step('svckit serve from the installed package, then node dist/main.js against it');
  // As the README says: serve writes its client config, SVCCONFIG names it.
  const kubeconfig = join(work, 'svc.config');
  await startServer('--schemas', 'crds', '--write-kubeconfig', kubeconfig);
  const result = JSON.parse(run('node', ['dist/main.js'], project, { SVCCONFIG: kubeconfig, KUBECONFIG: '' })) as {
    color: string;
    got: string;
    listed: string[];
    managers: string[];
    seen: string[];
  };
  check(result.color === 'red', `the server did not default spec.color: ${JSON.stringify(result)}`);
  check(result.got === 'w1' && result.listed.join() === 'w1,w2', `get/list: ${JSON.stringify(result)}`);
  check(result.managers.includes('consumer'), `apply did not record the field manager: ${JSON.stringify(result)}`);
  check(result.seen.join() === 'ADDED w1,ADDED w2', `watch saw ${JSON.stringify(result.seen)}`);
  step(`create, get, list, watch and apply work: ${JSON.stringify(result)}`);

  // Leader election needs the built-in Leases beside the project's kinds: serve both (--crds).
  step("svckit serve --crds crds, then node dist/controller.js (the README's controller example) against it, then SIGTERM");
  const builtInsConfig = join(work, 'svc-builtins.config');
  const withBuiltIns = await startServer('--crds', 'crds', '--write-kubeconfig', builtInsConfig);
  const widget = '/apis/shop.example.io/v1/namespaces/default/widgets';
  const created = await fetch(new URL(widget, withBuiltIns), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ apiVersion: 'shop.example.io/v1', kind: 'Widget', metadata: { name: 'w1' }, spec: { size: 3 } }),
  });
  check(created.status === 201, `creating w1: ${created.status}`);
  const controller = spawn('node', ['dist/controller.js'], {
    cwd: project,
    env: { ...process.env, SVCCONFIG: builtInsConfig, KUBECONFIG: '' },
  });
  let controllerErr = '';
  controller.stderr.on('data', (d: Buffer) => (controllerErr += d.toString()));
  const exited = new Promise<number | null>((resolve) => controller.on('exit', resolve));
  let ready = false;
  for (let i = 0; i < 200 && !ready; i++) {
    ready = (await getJson(withBuiltIns, `${widget}/w1`)).status?.ready === true;
    if (!ready) await new Promise((r) => setTimeout(r, 50));
  }
  check(ready, `the controller did not mark w1 ready: ${controllerErr}`);
  controller.kill('SIGTERM');
  const code = await exited;
  check(code === 0, `the controller exited with ${code} after SIGTERM: ${controllerErr}`);
  const lease = await getJson(withBuiltIns, '/apis/coordination.svc.io/v1/namespaces/default/leases/widget-controller');
  check(lease.spec?.holderIdentity === '', `the controller did not release its Lease: ${JSON.stringify(lease.spec)}`);
  step('the controller marked w1 ready, and on SIGTERM released its Lease and exited 0');

  step('esbuild --platform=browser of the generated client and svckit/controller');
  run(
    join(project, 'node_modules/.bin/esbuild'),
    ['src/browser.ts', '--bundle', '--platform=browser', '--format=esm', '--outfile=browser/bundle.js', '--log-level=warning'],
    project,
  );
  const bundle = readFileSync(join(project, 'browser/bundle.js'), 'utf8');
  const nodeImports = [...bundle.matchAll(/(?:from|import\()\s*["'](node:[^"']+)["']/g)].map((m) => m[1]);
  check(nodeImports.length === 0, `the browser bundle imports ${nodeImports.join(', ')}`);
  step(`browser bundle: ${(bundle.length / 1024).toFixed(0)} KiB, no node: import`);
  process.stdout.write('consumer: 1 passed, 0 failed\n');
} catch (e) {
  process.stderr.write(`${(e as Error).message}\n`);
  process.stdout.write('consumer: 0 passed, 1 failed\n');
  process.exitCode = 1;
} finally {
  for (const child of servers) child.kill('SIGTERM');
  if (keep) process.stdout.write(`consumer: kept ${work}\n`);
  else rmSync(work, { recursive: true, force: true });
}
