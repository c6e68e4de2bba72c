import { dirname, isAbsolute, relative, sep } from 'node:path';
import { type FileHeader, headerLines } from './header.js';
import { LineWriter } from './line-writer.js';

/**
 * Where an imported symbol lives: an absolute path without extension (a file of the same
 * generation run, or svckit's own sources when it generates its built-in kinds), or a package
 * specifier (`svckit/runtime/api`), printed as it is.
 */
export type ModuleRef = string;

/** One imported symbol, as recorded; its local name is decided only at render. */
interface ImportSymbol {
  name: string;
  module: ModuleRef;
  typeOnly: boolean;
  aliasPrefix: string;
}

/**
 * Marks a symbol reference in the printed text until render() knows its local name. It carries the
 * name, so an emitter that measures a line (to wrap it) measures about what will be printed.
 */
/**
 * Globals generated code names unqualified (`Record<string, T>`, `Array.isArray`, `Object.values`):
 * an import of the same name (a kind called `Record`) is aliased rather than shadow them.
 */
const GLOBALS = ['Array', 'Error', 'JSON', 'Map', 'Number', 'Object', 'Promise', 'Record', 'Set', 'String'];

const TOKEN = /\u0001(\d+)\u0002[^\u0003]*\u0003/g;

/**
 * One generated TypeScript file. Emitters write lines and ask for symbols; the file owns the
 * header, the indentation and the import statements. As protobuf-es's printer does, an import is
 * a value in the text: `importType`/`importValue` return a reference that render() resolves, so
 * imports are de-duplicated, merged into one statement per module, type-only where every printed
 * use is type-only, aliased only where a name clashes (whatever the order of calls), and an
 * import that is never printed is never emitted.
 */
export class GeneratedFile extends LineWriter {
  private readonly symbols: ImportSymbol[] = [];
  private readonly symbolIndex = new Map<string, number>();
  private readonly declared = new Set<string>();
  private readonly reexports = new Map<ModuleRef, string | undefined>();

  /** @param path absolute path of the file to write. */
  constructor(
    readonly path: string,
    private readonly header: FileHeader,
  ) {
    super();
  }

  /** Declares names that this file defines, so that imports of the same names are aliased. */
  declare(...names: string[]): void {
    for (const n of names) this.declared.add(n);
  }

  /**
   * A type-only use of `name` from `module`, to print where the name belongs. It renders as
   * `name`, or `aliasPrefix + name` when the file declares `name` or imports it from elsewhere.
   */
  importType(name: string, module: ModuleRef, aliasPrefix = 'Imported'): string {
    return this.reference(name, module, true, aliasPrefix);
  }

  /** A value use of `name` from `module`; see importType. */
  importValue(name: string, module: ModuleRef, aliasPrefix = 'imported'): string {
    return this.reference(name, module, false, aliasPrefix);
  }

  private reference(name: string, module: ModuleRef, typeOnly: boolean, aliasPrefix: string): string {
    if (module === this.path.replace(/\.ts$/, '')) return name;
    const key = `${typeOnly ? 't' : 'v'}\0${module}\0${name}`;
    let index = this.symbolIndex.get(key);
    if (index === undefined) {
      index = this.symbols.push({ name, module, typeOnly, aliasPrefix }) - 1;
      this.symbolIndex.set(key, index);
    }
    return `\u0001${index}\u0002${name}\u0003`;
  }

  /** Re-exports every export of a module, or all of it as the namespace `as`. */
  exportAll(module: ModuleRef, as?: string): this {
    this.reexports.set(module, as);
    return this;
  }

  /** A JSDoc comment; nothing when there are no lines. */
  doc(...paragraphs: (string | undefined)[]): this {
    // One pass per paragraph: descriptions are most of a CRD's text (a regex per line was 8% of codegen).
    const lines: string[] = [];
    for (const p of paragraphs) {
      const text = p?.trim();
      if (!text) continue;
      if (lines.length > 0) lines.push('');
      const closed = text.includes('*/') ? text.replaceAll('*/', '*\\/') : text; // `*/` would end the comment
      for (const l of closed.split('\n')) lines.push(l.trimEnd());
    }
    if (lines.length === 0) return this;
    if (lines.length === 1) return this.line(`/** ${lines[0]} */`);
    this.line('/**');
    for (const l of lines) this.line(l === '' ? ' *' : ` * ${l}`);
    return this.line(' */');
  }

  /** The file's full text: header, imports, body, one trailing newline. */
  render(): string {
    const code = [...this.topLines, ...(this.topLines.length > 0 ? [''] : []), ...this.bodyLines()];
    const printed = new Set<number>();
    const marked = (l: string): boolean => l.includes('\u0001');
    for (const l of code) if (marked(l)) for (const m of l.matchAll(TOKEN)) printed.add(Number(m[1]));
    const locals = this.localNames(printed);
    const out = headerLines(this.header);
    const imports = this.renderImports(printed, locals);
    if (imports.length > 0) out.push(...imports, '');
    const reexports = [...this.reexports]
      .map(([module, as]) => `export * ${as ? `as ${as} ` : ''}from '${this.specifier(module)}';`)
      .sort();
    if (reexports.length > 0) out.push(...reexports, '');
    const local = (_: string, i: string): string => locals.get(this.symbolKey(this.symbols[Number(i)]!))!;
    for (const l of code) out.push(marked(l) ? l.replace(TOKEN, local) : l);
    return `${out.join('\n')}\n`;
  }

  private symbolKey(s: ImportSymbol): string {
    return `${s.module}\0${s.name}`;
  }

  /**
   * The local name of every printed symbol: its own name, unless the file declares it or another
   * module's symbol of that name came first (modules in specifier order, so the result does not
   * depend on the order the emitter asked in).
   */
  private localNames(printed: Set<number>): Map<string, string> {
    const bound = new Map<string, string>([...GLOBALS, ...this.declared].map((n) => [n, '']));
    const locals = new Map<string, string>();
    const used = [...printed]
      .map((i) => this.symbols[i]!)
      .sort((a, b) => compare(this.specifier(a.module), this.specifier(b.module)) || compare(a.name, b.name));
    for (const s of used) {
      const key = this.symbolKey(s);
      if (locals.has(key)) continue;
      const owner = bound.get(s.name);
      let local = owner === undefined || owner === s.module ? s.name : `${s.aliasPrefix}${s.name}`;
      // The alias itself may be a name of this file (a type `CoreV1Pod` beside core/v1's Pod): number it.
      for (let i = 2; bound.has(local) && bound.get(local) !== s.module; i++) local = `${s.aliasPrefix}${s.name}${i}`;
      bound.set(local, s.module);
      locals.set(key, local);
    }
    return locals;
  }

  private renderImports(printed: Set<number>, locals: Map<string, string>): string[] {
    const byModule = new Map<string, Map<string, boolean>>();
    for (const i of printed) {
      const s = this.symbols[i]!;
      const spec = this.specifier(s.module);
      const local = locals.get(this.symbolKey(s))!;
      const entry = local === s.name ? s.name : `${s.name} as ${local}`;
      let names = byModule.get(spec);
      if (!names) byModule.set(spec, (names = new Map()));
      names.set(entry, (names.get(entry) ?? true) && s.typeOnly);
    }
    return [...byModule]
      .sort(([a], [b]) => compare(a, b))
      .map(([spec, names]) => {
        const sorted = [...names].sort(([a], [b]) => compare(a, b));
        const allTypes = sorted.every(([, typeOnly]) => typeOnly);
        const list = sorted.map(([n, typeOnly]) => (!allTypes && typeOnly ? `type ${n}` : n)).join(', ');
        return `import ${allTypes ? 'type ' : ''}{ ${list} } from '${spec}';`;
      });
  }

  /** The specifier of a module from this file, for a dynamic `import()`. */
  specifierFor(module: ModuleRef): string {
    return this.specifier(module);
  }

  /** A package specifier as it is; a path relative to this file, with the `.js` ESM needs. */
  private specifier(module: ModuleRef): string {
    if (!isAbsolute(module)) return module;
    let rel = relative(dirname(this.path), module).split(sep).join('/');
    if (!rel.startsWith('.')) rel = `./${rel}`;
    return `${rel}.js`;
  }
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
