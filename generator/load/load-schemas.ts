import { type Stats, readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CORE_SCHEMA, YAMLException, loadAll } from 'js-yaml';
import type { GroupVersion, Model } from '../model/index.js';
import { isCrd, loadCrd } from './crd.js';
import { renameGroups } from './group-suffix.js';
import { LoadError } from './load-error.js';
import { META_GROUP, link, newLinkContext, type LinkContext } from './link.js';
import { isOpenApi, loadOpenApi } from './openapi.js';
import { isSvcSchema, loadSvcSchema } from './svc-schema.js';

/** svckit's own schema directory, for the built-in meta types a project's schemas refer to. */
export const BUILTIN_SCHEMAS = fileURLToPath(new URL('../../schemas/', import.meta.url));

export interface LoadOptions {
  /** Files or directories; directories are walked for .yaml, .yml and .json files. */
  inputs: string[];
  /** Paths in errors are shown relative to this directory; the model records them relative to the schemas root. */
  cwd?: string;
  /**
   * What to do with a document that is not a schema (a folder of CRDs often holds other
   * manifests too): `skip` it and tell `warn` (the default), or `error`.
   */
  others?: 'skip' | 'error';
  /** Receives one line per skipped document. */
  warn?: (message: string) => void;
  /** `--group-suffix`: the spec's groups (`<name>.svc.io`) renamed `<name>.<suffix>` (`k8s.io`). */
  groupSuffix?: string;
}

/** How loadFile treats documents that are not schemas. */
export interface DocumentPolicy {
  others: 'skip' | 'error';
  warn: (message: string) => void;
}

const NOT_A_SCHEMA =
  'not a schema: expected svckit schema format (group, version, definitions), a CustomResourceDefinition, or an OpenAPI v2/v3 document';

/** Reads every schema input and links it into one model. Throws LoadError on the first problem. */
export function loadSchemas(options: LoadOptions): Model {
  const cwd = options.cwd ?? process.cwd();
  const files = options.inputs.flatMap((input) => listSchemaFiles(resolve(cwd, input))).sort();
  if (files.length === 0) throw new LoadError(options.inputs.join(', '), '', 'no .yaml, .yml or .json schema files found');
  const ctx = newLinkContext();
  const policy: DocumentPolicy = { others: options.others ?? 'skip', warn: options.warn ?? (() => {}) };
  const loaded = files.flatMap((file) => loadFile(file, shownPath(file, cwd), ctx, policy));
  if (loaded.length === 0)
    throw new LoadError(
      options.inputs.join(', '),
      '',
      `no schemas found in ${files.length} file(s): ${NOT_A_SCHEMA.slice('not a schema: '.length)}`,
    );
  const model = linkLoaded(loaded, ctx, cwd, options.groupSuffix);
  const root = schemasRoot(options.inputs.map((input) => resolve(cwd, input)));
  for (const gv of model.groupVersions) relocateSources(gv, cwd, gv.external ? BUILTIN_SCHEMAS : root);
  return model;
}

/** A source named for errors and a parsed document (a CustomResourceDefinition a server stores). */
export interface SchemaDocument {
  /** Shown in errors as a file would be: `<source>: <JSON path>: <problem>`. */
  source: string;
  value: unknown;
}

/**
 * Links documents already in memory into one model, as loadSchemas does files (documents that are
 * not schemas are an error). Throws LoadError on the first problem.
 */
export function loadDocuments(documents: readonly SchemaDocument[], options: { groupSuffix?: string } = {}): Model {
  const ctx = newLinkContext();
  const policy: DocumentPolicy = { others: 'error', warn: () => {} };
  const loaded = documents.flatMap((d) => loadValues([d.value], d.source, ctx, policy));
  return linkLoaded(loaded, ctx, process.cwd(), options.groupSuffix);
}

function linkLoaded(loaded: GroupVersion[], ctx: LinkContext, cwd: string, groupSuffix: string | undefined): Model {
  addBuiltinMeta(loaded, ctx, cwd);
  if (groupSuffix !== undefined && groupSuffix !== 'svc.io') renameGroups(loaded, ctx, groupSuffix);
  return link(loaded, ctx);
}

/** The deepest directory holding every input (a file input counts as its folder): the schemas root. */
function schemasRoot(inputs: string[]): string {
  const dirs = inputs.map((input) => (statSync(input).isFile() ? dirname(input) : input));
  return dirs.reduce((a, b) => {
    const left = a.split(sep);
    const right = b.split(sep);
    let i = 0;
    while (i < left.length && i < right.length && left[i] === right[i]) i++;
    return left.slice(0, i).join(sep) || sep;
  });
}

/**
 * Errors while loading name files as the user finds them (relative to the working directory); the
 * model records them relative to the schemas root, so what is generated from it (headers, doc
 * lines) is the same wherever the checkout lives.
 */
function relocateSources(gv: GroupVersion, cwd: string, root: string): void {
  const rel = (shown: string): string => relative(root, resolve(cwd, shown)).split(sep).join('/');
  gv.sources = [...new Set(gv.sources.map(rel))].sort();
  for (const t of gv.types) t.source = { ...t.source, file: rel(t.source.file) };
}

/** Paths inside the working directory are shown relative to it; others in full. */
function shownPath(file: string, cwd: string): string {
  const rel = relative(cwd, file);
  return rel.startsWith('..') || rel === '' ? file : rel;
}

function listSchemaFiles(path: string): string[] {
  let stat: Stats;
  try {
    stat = statSync(path);
  } catch {
    throw new LoadError(path, '', 'no such file or directory');
  }
  if (stat.isFile()) return [path];
  return readdirSync(path, { withFileTypes: true }).flatMap((entry) => {
    const full = join(path, entry.name);
    // `testdata` directories hold example documents, not schemas (as Go's tooling treats them).
    if (entry.isDirectory()) return entry.name === 'testdata' || entry.name.startsWith('.') ? [] : listSchemaFiles(full);
    return /\.(ya?ml|json)$/.test(entry.name) ? [full] : [];
  });
}

/** Parses one file (several YAML documents allowed) and hands each document to its loader. */
export function loadFile(
  path: string,
  shown: string,
  ctx: LinkContext,
  policy: DocumentPolicy = { others: 'error', warn: () => {} },
): GroupVersion[] {
  return loadValues(parseFile(path, shown), shown, ctx, policy);
}

/** The documents of one file (several YAML documents allowed). */
function parseFile(path: string, shown: string): unknown[] {
  const text = readFileSync(path, 'utf8');
  let docs: unknown[];
  try {
    // js-yaml: about twice as fast as `yaml` on the cert-manager CRDs (docs/decisions.md). The core
    // schema keeps dates as strings: a schema's `default: 2024-01-01` is text, not a Date.
    docs = path.endsWith('.json') ? [JSON.parse(text)] : loadAll(text, null, { schema: CORE_SCHEMA });
  } catch (error) {
    if (error instanceof YAMLException) {
      const at = error.mark ? `${shown}:${error.mark.line + 1}:${error.mark.column + 1}` : shown;
      throw new LoadError(at, '', `not valid YAML: ${error.reason}`);
    }
    if (error instanceof SyntaxError) throw new LoadError(shown, '', `not valid JSON: ${error.message}`);
    throw error;
  }
  return docs;
}

/** Hands each document to its loader. */
function loadValues(docs: unknown[], shown: string, ctx: LinkContext, policy: DocumentPolicy): GroupVersion[] {
  const out: GroupVersion[] = [];
  docs.forEach((value, i) => {
    if (value === null || value === undefined) return;
    if (isSvcSchema(value)) out.push(loadSvcSchema(value, shown, ctx));
    else if (isCrd(value)) out.push(...loadCrd(value, shown, ctx));
    else if (isOpenApi(value)) out.push(...loadOpenApi(value, shown, ctx));
    else {
      const document = docs.length > 1 ? `(document ${i + 1})` : '';
      if (policy.others === 'error') throw new LoadError(shown, document, `${describeDocument(value)} is ${NOT_A_SCHEMA}`);
      policy.warn(`skipped ${[shown, document].filter(Boolean).join(' ')}: ${describeDocument(value)} is not a schema`);
    }
  });
  return out;
}

/** `a ValidatingAdmissionPolicy (admissionregistration.k8s.io/v1)`, for a skipped document. */
function describeDocument(value: unknown): string {
  if (typeof value !== 'object' || Array.isArray(value)) return `a ${Array.isArray(value) ? 'list' : typeof value}`;
  const { kind, apiVersion } = value as { kind?: unknown; apiVersion?: unknown };
  if (typeof kind !== 'string') return 'a document without kind';
  return `a ${kind}${typeof apiVersion === 'string' ? ` (${apiVersion})` : ''}`;
}

/**
 * A project's schemas may refer to the meta types (CRDs always do, through `metadata`) without
 * defining them: those come from svckit's own schemas, marked external so that emitters import
 * them rather than write them again.
 */
function addBuiltinMeta(loaded: GroupVersion[], ctx: LinkContext, cwd: string): void {
  const needsMeta = ctx.refs.some((r) => r.id.group === META_GROUP) || loaded.some((gv) => gv.types.some((t) => t.kind?.resource));
  if (!needsMeta || loaded.some((gv) => gv.group === META_GROUP)) return;
  const file = join(BUILTIN_SCHEMAS, 'meta.svc.io', 'v1.yaml');
  const shown = shownPath(file, cwd);
  // Parsed once a process (a server builds every CRD it is given against it); loaders get a copy.
  metaDocuments ??= parseFile(file, shown);
  const policy: DocumentPolicy = { others: 'error', warn: () => {} };
  for (const gv of loadValues(structuredClone(metaDocuments), shown, ctx, policy)) loaded.push({ ...gv, external: true });
}

let metaDocuments: unknown[] | undefined;
