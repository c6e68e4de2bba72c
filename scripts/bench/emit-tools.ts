/**
 * Which tool should print svckit's generated TypeScript? The same interfaces of every
 * group/version, produced four ways:
 *   (a) string printer: the real `emitTypes` + `GeneratedFile.render()`
 *   (b) ts-morph structures printed by `createSourceFile(path, { statements }).getFullText()`
 *   (c) a handlebars template
 *   (d) json-schema-to-typescript on the model converted to JSON Schema (and, for CRDs, on the raw
 *       openAPIV3Schema as written)
 * (b) and (c) share one model walk below that reuses types.ts's naming (`ModuleNames`) and
 * reproduces its types and JSDoc; (b)-(d) write the interfaces and type aliases only, not (a)'s
 * group/version doc comment, GVK constants and type guards.
 * Each candidate: warm-up run, median of 5 timed runs, output lines and bytes, strict tsc errors
 * (typecheckDir), whether all 6 runs gave the same text, and whether it declares (a)'s names.
 *
 * Run: npx tsx scripts/bench/emit-tools.ts   (a benchmark, not a test)
 */
import { mkdtempSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import Handlebars from 'handlebars';
import { compile, type JSONSchema } from 'json-schema-to-typescript';
import { IndentationText, Project, QuoteKind, StructureKind, type StatementStructures } from 'ts-morph';
import { parse } from 'yaml';
import { type EmitContext, GENERATOR_NAME, createEmitContext, emitTypes, gvAliasPrefix } from '../../generator/emit/index.js';
import { corpusFolders } from './corpus.js';
import { loadSchemas } from '../../generator/load/index.js';
import {
  type Field,
  type GroupVersion,
  type Model,
  type TypeId,
  type TypeNode,
  groupDir,
  ownGroupVersions,
} from '../../generator/model/index.js';
import { tsKey, tsLiteral } from '../../generator/print/index.js';
import { typecheckDir } from '../../generator/typecheck.testing.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
// The built-in schemas, the fixture CRDs, and each CRD folder of a real-world corpus when SVCKIT_CORPUS names one.
const INPUTS = ['schemas', 'generator/testdata/crds', ...corpusFolders()];
const VERSION = 'v0.1.0';

/** Generated files: absolute path -> text. */
type Output = Map<string, string>;
interface Tool {
  name: string;
  run(model: Model, outDir: string, input: string): Output | Promise<Output>;
}

// ---------------------------------------------------------------------------------------------
// A tool-neutral description of one types.ts, for (b) and (c): names, optionality, type text and
// JSDoc exactly as types.ts writes them (minus GVK constants and type guards).

interface PropModel {
  key: string;
  optional: boolean;
  type: string;
  doc: string[];
  blankBefore: boolean;
}
interface DeclModel {
  name: string;
  doc: string[];
  props?: PropModel[];
  openEnded: boolean;
  type?: string;
}
interface FileModel {
  path: string;
  header: string[];
  imports: { names: string; specifier: string }[];
  decls: DeclModel[];
}

const typesPath = (outDir: string, gv: GroupVersion) => join(outDir, groupDir(gv.group), gv.version, 'types.ts');

/** JSDoc lines as GeneratedFile.doc computes them (without the comment markers). */
function docLines(...paragraphs: (string | undefined)[]): string[] {
  return paragraphs
    .filter((p): p is string => p !== undefined && p.trim() !== '')
    .flatMap((p, i) => (i > 0 ? ['', ...p.trim().split('\n')] : p.trim().split('\n')))
    .map((l) => l.replace(/\*\//g, '*\\/').trimEnd());
}

function describe(ctx: EmitContext, gv: GroupVersion): FileModel {
  const path = typesPath(ctx.outDir, gv);
  const declarations = ctx.names(gv).declarations;
  const names = new Map(declarations.map((d) => [d.node, d.name]));
  const { refName, imports } = importer(ctx, gv, path, new Set(declarations.map((d) => d.name)));
  const typeOf = (node: TypeNode, useNames: boolean): string => {
    const base = (useNames ? names.get(node) : undefined) ?? structural(node);
    return node.nullable ? `${base} | null` : base;
  };
  const structural = (node: TypeNode): string => {
    const literals = node.constraints?.enum?.map(tsLiteral);
    if (literals?.every((l) => l !== undefined)) return literals.join(' | ');
    switch (node.kind) {
      case 'scalar':
        return node.type === 'integer' ? 'number' : node.type;
      case 'bytes':
      case 'time':
      case 'duration':
        return 'string';
      case 'quantity':
        return 'string | number';
      case 'int-or-string':
        return 'number | string';
      case 'raw':
        return 'unknown';
      case 'object':
        return node.preserveUnknown || node.embeddedResource ? 'Record<string, unknown>' : 'Record<string, never>';
      case 'map':
        return `Record<string, ${typeOf(node.values, true)}>`;
      case 'list': {
        const item = typeOf(node.items, true);
        return /[|&\s]/.test(item) ? `Array<${item}>` : `${item}[]`;
      }
      case 'ref':
        return refName(node.target);
    }
  };
  const decls = declarations
    .filter((d) => !d.repeat)
    .map((d): DeclModel => {
      const doc = docLines(d.description, `Schema: ${d.origin}`);
      const node = d.node;
      if (d.declaredAs !== d.name) return { name: d.name, doc, openEnded: false, type: d.declaredAs };
      if (node.kind !== 'object' || node.fields.length === 0) return { name: d.name, doc, openEnded: false, type: typeOf(node, false) };
      const props = node.fields.map((f, i): PropModel => {
        const tags = [
          f.type.default !== undefined
            ? `@defaultValue \`${JSON.stringify(f.type.default)}\`${f.defaultZeroIsUnset ? ' (also when set to zero)' : ''}`
            : '',
          f.deprecated ? `@deprecated ${f.deprecated}` : '',
          f.secret ? 'Sensitive: never logged.' : '',
        ].filter(Boolean);
        return {
          key: tsKey(f.name),
          optional: !f.required,
          type: typeOf(f.type, true),
          doc: docLines(f.description ?? f.type.description, constraintNotes(f.type), tags.join('\n') || undefined),
          blankBefore: i > 0 && Boolean(f.description || node.fields[i - 1]?.description),
        };
      });
      return { name: d.name, doc, props, openEnded: Boolean(node.preserveUnknown) };
    });
  return {
    path,
    header: [`Code generated by ${GENERATOR_NAME} ${ctx.version}. DO NOT EDIT.`, ...gv.sources.map((f) => `Source: ${f}`)],
    imports: imports(),
    decls,
  };
}

/** Type-only imports of other group/versions' types, aliased on a clash (as GeneratedFile does). */
function importer(ctx: EmitContext, gv: GroupVersion, path: string, bound: Set<string>) {
  const byModule = new Map<string, Set<string>>();
  const refName = (target: TypeId): string => {
    const t = ctx.index.resolve(target);
    if (t.id.group === gv.group && t.id.version === gv.version) return t.id.name;
    const local = bound.has(t.id.name) ? `${gvAliasPrefix(t.id)}${t.id.name}` : t.id.name;
    const module = ctx.gvModule(t.id, 'types');
    if (!byModule.has(module)) byModule.set(module, new Set());
    byModule.get(module)!.add(local === t.id.name ? local : `${t.id.name} as ${local}`);
    return local;
  };
  const imports = () =>
    [...byModule]
      .map(([module, names]) => ({ names: [...names].sort().join(', '), specifier: specifier(path, module) }))
      .sort((a, b) => (a.specifier < b.specifier ? -1 : 1));
  return { refName, imports };
}

function specifier(from: string, module: string): string {
  const rel = relative(dirname(from), module).split(sep).join('/');
  return `${rel.startsWith('.') ? rel : `./${rel}`}.js`;
}

/** Same text as types.ts's constraintNotes (which is private there). */
function constraintNotes(node: TypeNode): string | undefined {
  const c = node.constraints ?? {};
  const parts = [
    c.minimum !== undefined && `${c.exclusiveMinimum ? 'greater than' : 'at least'} ${c.minimum}`,
    c.maximum !== undefined && `${c.exclusiveMaximum ? 'less than' : 'at most'} ${c.maximum}`,
    c.minLength !== undefined && `length at least ${c.minLength}`,
    c.maxLength !== undefined && `length at most ${c.maxLength}`,
    c.minItems !== undefined && `at least ${c.minItems} items`,
    c.maxItems !== undefined && `at most ${c.maxItems} items`,
    c.pattern !== undefined && `matches \`${c.pattern}\``,
    node.kind === 'scalar' && node.format,
    node.kind === 'duration' && 'a duration such as `30s`',
    node.kind === 'time' && (node.format === 'date' ? 'a date (RFC 3339)' : 'a timestamp (RFC 3339)'),
    node.kind === 'bytes' && 'base64-encoded bytes',
    node.kind === 'quantity' && 'a quantity such as `1Gi` or `500m`',
    node.kind === 'list' &&
      node.listType &&
      `list type ${node.listType}${node.listMapKeys ? ` keyed by ${node.listMapKeys.join(', ')}` : ''}`,
  ].filter((p): p is string => typeof p === 'string' && p !== '');
  return parts.length ? `${parts.join('; ')}.`.replace(/^./, (s) => s.toUpperCase()) : undefined;
}

// ---------------------------------------------------------------------------------------------
// (a) the string printer

const stringPrinter: Tool = {
  name: '(a) string printer',
  run: (model, outDir) => new Map(emitTypes(createEmitContext(model, outDir, VERSION)).map((f) => [f.path, f.render()])),
};

// (b) ts-morph structures

const tsMorph: Tool = {
  name: '(b) ts-morph',
  run(model, outDir) {
    const ctx = createEmitContext(model, outDir, VERSION);
    const project = new Project({
      useInMemoryFileSystem: true,
      manipulationSettings: { indentationText: IndentationText.TwoSpaces, quoteKind: QuoteKind.Single },
    });
    const jsdoc = (lines: string[]) => (lines.length ? [lines.join('\n')] : []);
    const out: Output = new Map();
    for (const gv of ownGroupVersions(model)) {
      const f = describe(ctx, gv);
      const statements: (string | StatementStructures)[] = [
        f.header.map((h) => `// ${h}`).join('\n'),
        ...f.imports.map(
          (i): StatementStructures => ({
            kind: StructureKind.ImportDeclaration,
            isTypeOnly: true,
            namedImports: i.names.split(', '),
            moduleSpecifier: i.specifier,
          }),
        ),
        ...f.decls.map(
          (d): StatementStructures =>
            d.props
              ? {
                  kind: StructureKind.Interface,
                  name: d.name,
                  isExported: true,
                  docs: jsdoc(d.doc),
                  properties: d.props.map((p) => ({ name: p.key, hasQuestionToken: p.optional, type: p.type, docs: jsdoc(p.doc) })),
                  indexSignatures: d.openEnded
                    ? [
                        {
                          keyName: 'field',
                          keyType: 'string',
                          returnType: 'unknown',
                          docs: ['Fields beyond the schema are kept (x-svc-preserve-unknown-fields).'],
                        },
                      ]
                    : [],
                }
              : { kind: StructureKind.TypeAlias, name: d.name, isExported: true, docs: jsdoc(d.doc), type: d.type! },
        ),
      ];
      out.set(f.path, project.createSourceFile(f.path, { statements }, { overwrite: true }).getFullText());
    }
    return out;
  },
};

// (c) handlebars

const TEMPLATE = `{{#each header}}
// {{this}}
{{/each}}

{{#if imports}}
{{#each imports}}
import type { {{names}} } from '{{specifier}}';
{{/each}}

{{/if}}
{{#each decls}}
{{> doc}}
{{#if props}}
export interface {{name}} {
{{#each props}}
{{#if blankBefore}}

{{/if}}
  {{> doc}}
  {{key}}{{#if optional}}?{{/if}}: {{type}};
{{/each}}
{{#if openEnded}}

  /** Fields beyond the schema are kept (x-svc-preserve-unknown-fields). */
  [field: string]: unknown;
{{/if}}
}
{{else}}
export type {{name}} = {{type}};
{{/if}}

{{/each}}`;

const DOC_PARTIAL = `{{#if (multiline doc)}}
/**
{{#each doc}}
 *{{#if this}} {{this}}{{/if}}
{{/each}}
 */
{{else if doc.[0]}}
/** {{doc.[0]}} */
{{/if}}`;

const handlebars: Tool = {
  name: '(c) handlebars',
  run(model, outDir) {
    const hb = Handlebars.create();
    hb.registerPartial('doc', DOC_PARTIAL);
    // `{{#if doc.[1]}}` would do, but a blank second line ('' is falsy) makes a one-line comment of it.
    hb.registerHelper('multiline', (lines: string[]) => lines.length > 1);
    const render = hb.compile(TEMPLATE, { noEscape: true, strict: true });
    const ctx = createEmitContext(model, outDir, VERSION);
    const out: Output = new Map();
    for (const gv of ownGroupVersions(model)) {
      const f = describe(ctx, gv);
      out.set(f.path, render(f).replace(/\n+$/, '\n'));
    }
    return out;
  },
};

// (d) json-schema-to-typescript on the model as JSON Schema

/** Keywords next to a `$ref` (a field's description) must go through `allOf`: json-schema-to-typescript declares a renamed copy (`Spec1`) otherwise. */
function refOnly(s: JSONSchema): JSONSchema {
  const { $ref, ...rest } = s;
  return $ref && Object.keys(rest).length > 0 ? { allOf: [{ $ref }], ...rest } : s;
}

function toJsonSchema(ctx: EmitContext, gv: GroupVersion): { schema: JSONSchema; imports: string[] } {
  const declarations = ctx.names(gv).declarations;
  const names = new Map(declarations.map((d) => [d.node, d.name]));
  const { refName, imports } = importer(ctx, gv, typesPath(ctx.outDir, gv), new Set(names.values()));
  const convert = (node: TypeNode, useNames: boolean): JSONSchema => {
    const c = node.constraints ?? {}; // draft-4 keywords, as in JSON Schema
    const named = useNames ? names.get(node) : undefined;
    let s: JSONSchema = named ? { $ref: `#/definitions/${named}` } : structural(node);
    if (!named) {
      s = { ...s, ...(c as JSONSchema) };
      if (node.description) s.description = node.description;
      if (node.default !== undefined) s.default = node.default as JSONSchema['default'];
    }
    return node.nullable ? { anyOf: [refOnly(s), { type: 'null' }] } : refOnly(s);
  };
  const structural = (node: TypeNode): JSONSchema => {
    switch (node.kind) {
      case 'scalar':
        return { type: node.type, ...(node.format && { format: node.format }) };
      case 'bytes':
        return { type: 'string', format: 'byte' };
      case 'time':
        return { type: 'string', format: node.format };
      case 'duration':
        return { type: 'string', format: 'duration' };
      case 'quantity':
      case 'int-or-string':
        return { anyOf: [{ type: 'integer' }, { type: 'string' }] };
      // Not `{}`: with a description next to it, json-schema-to-typescript makes `{}` an object with an index signature.
      case 'raw':
        return { tsType: 'unknown' };
      case 'map':
        return { type: 'object', additionalProperties: convert(node.values, true) };
      case 'list':
        return { type: 'array', items: convert(node.items, true) };
      case 'object':
        return {
          type: 'object',
          properties: Object.fromEntries(node.fields.map((f) => [f.name, property(f)])),
          required: node.fields.filter((f) => f.required).map((f) => f.name),
          additionalProperties: Boolean(node.preserveUnknown || node.embeddedResource),
        };
      case 'ref': {
        const local = refName(node.target);
        return node.target.group === gv.group && node.target.version === gv.version
          ? { $ref: `#/definitions/${local}` }
          : { tsType: local };
      }
    }
  };
  const property = (f: Field): JSONSchema => {
    const description = f.description ?? f.type.description;
    return refOnly({ ...convert(f.type, true), ...(description && { description }) });
  };
  const definitions: Record<string, JSONSchema> = {};
  for (const d of declarations) {
    if (d.repeat) continue;
    const s: JSONSchema = d.declaredAs === d.name ? convert(d.node, false) : { $ref: `#/definitions/${d.declaredAs}` };
    if (d.description) s.description = d.description;
    definitions[d.name] = s;
  }
  // The root only makes every definition reachable; it is dropped from the output below.
  return {
    schema: { title: 'Root', anyOf: Object.keys(definitions).map((n) => ({ $ref: `#/definitions/${n}` })), definitions },
    imports: imports().map((i) => `import type { ${i.names} } from '${i.specifier}';`),
  };
}

const header = (gv: GroupVersion) =>
  `// Code generated by ${GENERATOR_NAME} ${VERSION}. DO NOT EDIT.\n${gv.sources.map((f) => `// Source: ${f}`).join('\n')}`;

const jsonSchemaToTs: Tool = {
  name: '(d) json-schema-to-ts',
  async run(model, outDir) {
    const ctx = createEmitContext(model, outDir, VERSION);
    const out: Output = new Map();
    for (const gv of ownGroupVersions(model)) {
      const { schema, imports } = toJsonSchema(ctx, gv);
      const ts = await compile(schema, 'Root', { bannerComment: '' });
      const body = ts.replace(/^export type Root =[^;]*;\n+/m, '');
      out.set(typesPath(outDir, gv), `${header(gv)}\n\n${imports.length ? `${imports.join('\n')}\n\n` : ''}${body}`);
    }
    return out;
  },
};

/** (d') the raw openAPIV3Schema of each CRD version, as a user adopting the tool would feed it. */
const rawCrds = new Map<string, { group: string; version: string; kind: string; schema: JSONSchema }[]>();
function crdSchemas(input: string) {
  if (!rawCrds.has(input)) {
    const dir = resolve(ROOT, input);
    rawCrds.set(
      input,
      readdirSync(dir)
        .filter((f) => f.endsWith('.yaml'))
        .sort()
        .flatMap((f) => {
          const crd = parse(readFileSync(join(dir, f), 'utf8')) as {
            spec: { group: string; names: { kind: string }; versions: { name: string; schema: { openAPIV3Schema: JSONSchema } }[] };
          };
          return crd.spec.versions.map((v) => ({
            group: crd.spec.group,
            version: v.name,
            kind: crd.spec.names.kind,
            schema: v.schema.openAPIV3Schema,
          }));
        }),
    );
  }
  return rawCrds.get(input)!;
}

const jsonSchemaToTsRaw: Tool = {
  name: "(d') json-schema-to-ts, raw CRD",
  async run(_model, outDir, input) {
    const out: Output = new Map();
    for (const c of crdSchemas(input)) {
      const path = join(outDir, groupDir(c.group), c.version, 'types.ts');
      // One compile per CRD; names may repeat across CRDs of a group/version, so keep one file per kind.
      out.set(path.replace(/types\.ts$/, `${c.kind}.ts`), await compile(structuredClone(c.schema), c.kind, { bannerComment: '' }));
    }
    return out;
  },
};

// ---------------------------------------------------------------------------------------------

interface Row {
  tool: string;
  input: string;
  ms: number;
  lines: number;
  bytes: number;
  errors: number;
  deterministic: boolean;
  names: Set<string>;
}

async function measure(tool: Tool, model: Model, input: string): Promise<Row> {
  const keep = process.env.KEEP; // KEEP=dir keeps every candidate's output there for reading
  const dir = keep
    ? resolve(keep, tool.name.replace(/\W+/g, '-'), input.replace(/\W+/g, '_'))
    : mkdtempSync(join(tmpdir(), 'svckit-emit-'));
  try {
    const texts: string[] = [];
    const times: number[] = [];
    let output: Output = new Map();
    for (let i = 0; i < 6; i++) {
      const start = performance.now();
      output = await tool.run(model, dir, input);
      if (i > 0) times.push(performance.now() - start);
      texts.push([...output].map(([p, t]) => `${p}\n${t}`).join('\n'));
    }
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'package.json'), '{"type":"module"}\n');
    for (const [path, text] of output) {
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, text);
    }
    const all = [...output.values()].join('');
    // Only errors in the candidate's own files: (a) imports the runtime, which others are editing.
    const errors = typecheckDir(dir).filter((e) => e.startsWith(dir));
    return {
      tool: tool.name,
      input,
      ms: times.sort((a, b) => a - b)[2]!,
      lines: all.split('\n').length - 1,
      bytes: Buffer.byteLength(all),
      errors: errors.length,
      deterministic: texts.every((t) => t === texts[0]),
      names: new Set([...all.matchAll(/^export (?:interface|type) (\w+)/gm)].map((m) => m[1]!)),
    };
  } finally {
    if (!keep) rmSync(dir, { recursive: true, force: true });
  }
}

const rows: Row[] = [];
for (const input of INPUTS) {
  let model: Model;
  try {
    model = loadSchemas({ inputs: [input], cwd: ROOT });
  } catch (e) {
    console.log(`# ${input}: skipped, it does not load: ${(e as Error).message}`);
    continue;
  }
  const tools = [stringPrinter, tsMorph, handlebars, jsonSchemaToTs, ...(input.includes('crds') ? [jsonSchemaToTsRaw] : [])];
  for (const tool of tools) rows.push(await measure(tool, model, input));
}

const pad = (s: string | number, n: number) => String(s).padStart(n);
const ratio = (x: number, a: number) => `${(x / a).toFixed(2)}x`;
console.log(
  `${'tool'.padEnd(32)} ${'input'.padEnd(38)} ${pad('ms', 8)} ${pad('lines', 7)} ${pad('bytes', 8)} ${pad('ts-errors', 9)}   vs (a): ms, lines, bytes; names`,
);
for (const r of rows) {
  const a = rows.find((x) => x.input === r.input && x.tool.startsWith('(a)'))!;
  const missing = [...a.names].filter((n) => !r.names.has(n)).length;
  const extra = [...r.names].filter((n) => !a.names.has(n)).length;
  console.log(
    `${r.tool.padEnd(32)} ${r.input.padEnd(38)} ${pad(r.ms.toFixed(1), 8)} ${pad(r.lines, 7)} ${pad(r.bytes, 8)} ${pad(r.errors, 9)}   ` +
      `${ratio(r.ms, a.ms)}, ${ratio(r.lines, a.lines)}, ${ratio(r.bytes, a.bytes)}; ` +
      `${missing || extra ? `-${missing} +${extra}` : 'same'}${r.deterministic ? '' : '; NOT deterministic'}`,
  );
}
