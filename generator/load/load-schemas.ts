import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { LineCounter, parseAllDocuments } from 'yaml';
import type { GroupVersion, Model } from '../model/index.js';
import { isCrd, loadCrd } from './crd.js';
import { LoadError } from './load-error.js';
import { META_GROUP, link, newLinkContext, type LinkContext } from './link.js';
import { isOpenApi, loadOpenApi } from './openapi.js';
import { isSvcSchema, loadSvcSchema } from './svc-schema.js';

/** svckit's own schema directory, for the built-in meta types a project's schemas refer to. */
export const BUILTIN_SCHEMAS = fileURLToPath(new URL('../../schemas/', import.meta.url));

export interface LoadOptions {
  /** Files or directories; directories are walked for .yaml, .yml and .json files. */
  inputs: string[];
  /** Paths in errors and headers are shown relative to this directory. */
  cwd?: string;
}

/** Reads every schema input and links it into one model. Throws LoadError on the first problem. */
export function loadSchemas(options: LoadOptions): Model {
  const cwd = options.cwd ?? process.cwd();
  const files = options.inputs.flatMap((input) => listSchemaFiles(resolve(cwd, input))).sort();
  if (files.length === 0) throw new LoadError(options.inputs.join(', '), '', 'no .yaml, .yml or .json schema files found');
  const ctx = newLinkContext();
  const loaded = files.flatMap((file) => loadFile(file, shownPath(file, cwd), ctx));
  addBuiltinMeta(loaded, ctx, cwd);
  return link(loaded, ctx);
}

/** Paths inside the working directory are shown relative to it; others in full. */
function shownPath(file: string, cwd: string): string {
  const rel = relative(cwd, file);
  return rel.startsWith('..') || rel === '' ? file : rel;
}

function listSchemaFiles(path: string): string[] {
  let stat;
  try {
    stat = statSync(path);
  } catch {
    throw new LoadError(path, '', 'no such file or directory');
  }
  if (stat.isFile()) return [path];
  return readdirSync(path, { withFileTypes: true }).flatMap((entry) => {
    const full = join(path, entry.name);
    if (entry.isDirectory()) return listSchemaFiles(full);
    return /\.(ya?ml|json)$/.test(entry.name) ? [full] : [];
  });
}

/** Parses one file (several YAML documents allowed) and hands each document to its loader. */
export function loadFile(path: string, shown: string, ctx: LinkContext): GroupVersion[] {
  const text = readFileSync(path, 'utf8');
  const lines = new LineCounter();
  const docs = parseAllDocuments(text, { lineCounter: lines, uniqueKeys: true });
  if (!Array.isArray(docs)) return [];
  const out: GroupVersion[] = [];
  for (const doc of docs) {
    const error = doc.errors[0];
    if (error) {
      const pos = lines.linePos(error.pos[0]);
      throw new LoadError(`${shown}:${pos.line}:${pos.col}`, '', `not valid YAML: ${error.message.split('\n')[0]}`);
    }
    const value: unknown = doc.toJS({ maxAliasCount: 100 });
    if (value === null || value === undefined) continue;
    if (isSvcSchema(value)) out.push(loadSvcSchema(value, shown, ctx));
    else if (isCrd(value)) out.push(...loadCrd(value, shown, ctx));
    else if (isOpenApi(value)) out.push(...loadOpenApi(value, shown, ctx));
    else {
      throw new LoadError(shown, '', 'not a schema: expected svckit schema format (group, version, definitions), a CustomResourceDefinition, or an OpenAPI v2/v3 document');
    }
  }
  return out;
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
  for (const gv of loadFile(file, shownPath(file, cwd), ctx)) loaded.push({ ...gv, external: true });
}
