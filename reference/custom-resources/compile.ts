import { createHash } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  renameSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { isAbsolute, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { SVCKIT_ROOT, codegen, svckitVersion } from '../../generator/index.js';
import { privateFolder } from '../../runtime/files/index.js';
import type { KindRegistration } from '../../runtime/schema/index.js';

export interface ProjectKinds {
  kinds: readonly KindRegistration[];
  openApiDocuments: Record<string, () => Promise<Record<string, unknown>>>;
}

/**
 * A project's schemas or CRDs, generated and loaded: the same runtime then serves or checks them.
 * The code goes to svckit's private code cache ({@link codeCache}; never the working directory),
 * keyed by its own content, and is compiled to JavaScript there, so the compiled CLI runs it with
 * plain node.
 */
export async function projectKinds(schemas: string[], command: string, options: { quiet?: boolean } = {}): Promise<ProjectKinds> {
  const root = join(codeCache(), 'kinds');
  mkdirSync(root, { recursive: true, mode: 0o700 });
  const work = mkdtempSync(join(root, 'new-'));
  try {
    // By path into this svckit's own code: the cache sits outside any project's node_modules.
    codegen({
      schemas,
      out: work,
      runtime: { root: SVCKIT_ROOT },
      log: (line) => options.quiet || process.stderr.write(`svckit ${command}: ${line}\n`),
      warn: (line) => process.stderr.write(`svckit ${command}: warning: ${line}\n`),
    });
    const dir = join(root, contentKey(work));
    if (!existsSync(dir)) {
      await compileToJavaScript(work);
      try {
        renameSync(work, dir); // atomic: a folder under its key is always complete
      } catch (e) {
        // Another svckit made the same folder first; its content is the same by construction.
        if (!existsSync(dir)) throw e;
      }
    }
    utimesSync(dir, new Date(), new Date()); // in use: not aged out
    const kinds = (await import(pathToFileURL(join(dir, 'kinds.js')).href)) as { allKinds: readonly KindRegistration[] };
    const openapi = (await import(pathToFileURL(join(dir, 'openapi.js')).href)) as Pick<ProjectKinds, 'openApiDocuments'>;
    return { kinds: kinds.allKinds, openApiDocuments: openapi.openApiDocuments };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/**
 * The kinds one CustomResourceDefinition (an object the server stores) declares, compiled as
 * `--schemas` compiles files: the definition is written under a name of its content, so the same
 * definition finds the same compiled code.
 */
export async function definitionKinds(definition: unknown): Promise<ProjectKinds> {
  // Only what the kinds are built from: a write that changes metadata or status compiles nothing.
  const { apiVersion, kind, metadata, spec } = definition as {
    apiVersion?: unknown;
    kind?: unknown;
    metadata?: { name?: unknown };
    spec?: unknown;
  };
  const text = JSON.stringify({ apiVersion, kind, metadata: { name: metadata?.name }, spec });
  const dir = join(codeCache(), 'definitions');
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const file = join(dir, `${createHash('sha256').update(text).digest('hex').slice(0, 24)}.yaml`);
  if (existsSync(file))
    utimesSync(file, new Date(), new Date()); // in use: not aged out
  else writeFileSync(file, `${text}\n`);
  return projectKinds([file], 'serve', { quiet: true });
}

/** What of the cache unused this long is removed (once per process, at first use). */
export const CACHE_MAX_AGE_MS = 30 * 24 * 3600_000;

const agedOut = new Set<string>();
let processCache: string | undefined;

/**
 * svckit's code cache: `$XDG_CACHE_HOME/svckit` or `~/.cache/svckit`. Its code is imported, so it
 * must be this user's and written by no one else: made 0700, checked before every use, refused
 * otherwise (NotPrivateError). Without a home (or with a relative XDG_CACHE_HOME, which XDG says
 * to ignore) it is a folder of this process made by mkdtemp in the temp folder, removed at exit:
 * never the shared temp folder's top level, where another user could have made `svckit` first.
 */
export function codeCache(env: NodeJS.ProcessEnv = process.env, home: string = homeOrEmpty()): string {
  const base = env.XDG_CACHE_HOME && isAbsolute(env.XDG_CACHE_HOME) ? env.XDG_CACHE_HOME : home ? join(home, '.cache') : undefined;
  if (base === undefined) return processCodeCache();
  const root = join(base, 'svckit');
  privateFolder(root);
  if (!agedOut.has(root)) {
    agedOut.add(root);
    removeUnused(root, CACHE_MAX_AGE_MS);
  }
  return root;
}

function homeOrEmpty(): string {
  try {
    return homedir();
  } catch {
    return ''; // no HOME and no passwd entry
  }
}

function processCodeCache(): string {
  if (processCache === undefined) {
    const dir = mkdtempSync(join(tmpdir(), 'svckit-cache-'));
    processCache = dir;
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  }
  return processCache;
}

/** Removes the compiled kinds and definitions of `root` unused for `maxAgeMs` (a folder in use is touched). */
export function removeUnused(root: string, maxAgeMs: number, now = Date.now()): void {
  for (const folder of ['kinds', 'definitions']) {
    const dir = join(root, folder);
    if (!existsSync(dir)) continue;
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      const stat = statSync(path, { throwIfNoEntry: false }); // another svckit may be removing it too
      if (stat && now - stat.mtimeMs > maxAgeMs) rmSync(path, { recursive: true, force: true });
    }
  }
}

/** The generated files' content and this svckit's version and location: same key, same code. */
function contentKey(dir: string): string {
  const hash = createHash('sha256').update(`${svckitVersion()}\0${SVCKIT_ROOT}\0`);
  for (const file of tsFiles(dir)) hash.update(`${file}\0`).update(readFileSync(join(dir, file)));
  return hash.digest('hex').slice(0, 24);
}

function tsFiles(dir: string): string[] {
  return (readdirSync(dir, { recursive: true }) as string[]).filter((f) => f.endsWith('.ts')).sort();
}

/** Strips the types of every generated file (sucrase: the fastest of three, docs/decisions.md). */
async function compileToJavaScript(dir: string): Promise<void> {
  const { transform } = await import('sucrase');
  for (const file of tsFiles(dir)) {
    const path = join(dir, file);
    const { code } = transform(readFileSync(path, 'utf8'), { transforms: ['typescript'], disableESTransforms: true, filePath: path });
    writeFileSync(path.replace(/\.ts$/, '.js'), code);
    rmSync(path);
  }
  // Generated code is ESM; a cache folder belongs to no project that says so.
  writeFileSync(join(dir, 'package.json'), '{ "type": "module" }\n');
}
