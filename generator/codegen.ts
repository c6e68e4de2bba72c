import { type Dirent, closeSync, mkdirSync, openSync, readFileSync, readSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import {
  GENERATOR_NAME,
  type RuntimeImports,
  createEmitContext,
  emitClients,
  emitAllKinds,
  emitIndexes,
  emitKinds,
  emitOpenApi,
  emitProto,
  emitProtobufPackages,
  emitRootClient,
  emitSchemas,
  emitTypes,
} from './emit/index.js';
import { loadSchemas } from './load/index.js';
import { type Model, ownGroupVersions } from './model/index.js';
import type { OutputFile } from './print/index.js';
import { svckitVersion } from './version.js';

export interface CodegenOptions {
  /** Schema files or directories (svckit format, CRDs, OpenAPI documents). */
  schemas: string[];
  /** Output directory. */
  out: string;
  /** Compare with what is on disk instead of writing. */
  check?: boolean;
  cwd?: string;
  /** Progress lines (to stderr in the CLI). */
  log?: (line: string) => void;
  /** One line per input document that is not a schema and was skipped (to stderr in the CLI). */
  warn?: (line: string) => void;
  /** Documents that are not schemas are skipped with a warning (default) or are an error. */
  others?: 'skip' | 'error';
  /**
   * How generated code imports svckit's runtime and built-in kinds: by package name (default
   * `{ package: 'svckit' }`), or by relative path into svckit's code at `root`.
   */
  runtime?: RuntimeImports;
  /** `--group-suffix`: emit the spec's groups (`<name>.svc.io`) as `<name>.<suffix>` (`k8s.io`: the real system's names). */
  groupSuffix?: string;
}

export type FileStatus = 'written' | 'unchanged' | 'stale' | 'missing' | 'extra' | 'removed';

export interface CodegenResult {
  model: Model;
  files: { path: string; status: FileStatus }[];
  kinds: number;
  groupVersions: number;
  millis: number;
  /** True when --check found differences. */
  stale: boolean;
}

/**
 * The artifacts every group/version gets, in index order. `protobuf.ts` (and `generated.proto`)
 * exist only for group/versions with Protobuf messages, so they are reached through the root
 * `protobuf.ts`, as `openapi.ts` is through the root `openapi.ts`.
 */
const ARTIFACTS = ['types', 'schema', 'kinds', 'client'] as const;

/** Files codegen may write, replace or remove: these extensions, carrying the generated header. */
const GENERATED_EXTENSIONS = ['.ts', '.proto'];

/** Load, build one context, emit every artifact, then write (or check) the files. */
export function codegen(options: CodegenOptions): CodegenResult {
  const started = performance.now();
  const cwd = options.cwd ?? process.cwd();
  const log = options.log ?? (() => {});
  const outDir = resolve(cwd, options.out);

  const model = loadSchemas({
    inputs: options.schemas,
    cwd,
    others: options.others ?? 'skip',
    ...(options.warn ? { warn: options.warn } : {}),
    ...(options.groupSuffix !== undefined ? { groupSuffix: options.groupSuffix } : {}),
  });
  const kinds = ownGroupVersions(model).flatMap((gv) => gv.types.filter((t) => t.kind)).length;
  const own = ownGroupVersions(model).length;
  log(`loaded ${own} group/versions, ${kinds} kinds`);

  const ctx = createEmitContext(model, outDir, `v${svckitVersion()}`, options.runtime);
  const generated: OutputFile[] = [
    ...emitTypes(ctx),
    ...emitSchemas(ctx),
    ...emitKinds(ctx),
    emitAllKinds(ctx),
    ...emitClients(ctx),
    emitRootClient(ctx),
    ...emitOpenApi(ctx),
    ...emitProto(ctx),
    ...emitProtobufPackages(ctx),
    ...emitIndexes(ctx, ARTIFACTS),
  ];
  log(`emitted ${generated.length} files`);

  const files = options.check ? checkFiles(generated, outDir) : writeFiles(generated, outDir);
  const shown = files.map((f) => ({ ...f, path: relative(cwd, f.path) }));
  const stale = files.some((f) => f.status !== 'unchanged');
  return { model, files: shown, kinds, groupVersions: own, millis: performance.now() - started, stale: Boolean(options.check) && stale };
}

function writeFiles(generated: OutputFile[], outDir: string): CodegenResult['files'] {
  const result: CodegenResult['files'] = [];
  const expected = new Set(generated.map((f) => f.path));
  for (const f of generated) {
    const text = f.render();
    if (readIfExists(f.path) === text) {
      result.push({ path: f.path, status: 'unchanged' });
      continue;
    }
    mkdirSync(dirname(f.path), { recursive: true });
    writeFileSync(f.path, text);
    result.push({ path: f.path, status: 'written' });
  }
  for (const path of previouslyGenerated(outDir, expected)) {
    rmSync(path);
    result.push({ path, status: 'removed' });
  }
  return result;
}

function checkFiles(generated: OutputFile[], outDir: string): CodegenResult['files'] {
  const result: CodegenResult['files'] = generated.map((f) => {
    const onDisk = readIfExists(f.path);
    return { path: f.path, status: onDisk === undefined ? 'missing' : onDisk === f.render() ? 'unchanged' : 'stale' };
  });
  const expected = new Set(generated.map((f) => f.path));
  for (const path of previouslyGenerated(outDir, expected)) result.push({ path, status: 'extra' });
  return result;
}

/**
 * Files below `dir`, other than `expected`, that carry svckit's generated header: safe to remove.
 * Only a file's first bytes are read (reading back every file just written was 3% of a run).
 */
function previouslyGenerated(dir: string, expected: ReadonlySet<string>): string[] {
  let entries: Dirent[];
  try {
    entries = readdirSync(dir, { withFileTypes: true, recursive: true });
  } catch {
    return [];
  }
  return entries
    .filter((e) => e.isFile() && GENERATED_EXTENSIONS.some((ext) => e.name.endsWith(ext)))
    .map((e) => join(e.parentPath, e.name))
    .filter((path) => !expected.has(path) && startsWithHeader(path))
    .sort();
}

function startsWithHeader(path: string): boolean {
  const header = Buffer.from(`// Code generated by ${GENERATOR_NAME} `);
  const start = Buffer.alloc(header.length);
  const fd = openSync(path, 'r');
  try {
    return readSync(fd, start, 0, start.length, 0) === start.length && start.equals(header);
  } finally {
    closeSync(fd);
  }
}

function readIfExists(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}
