import { dirname, relative, sep } from 'node:path';
import { type FileHeader, headerLines } from './header.js';
import { LineWriter } from './line-writer.js';

interface ImportEntry {
  typeOnly: boolean;
}

/**
 * One generated TypeScript file. Emitters write lines and ask for symbols; the file owns the
 * header, the indentation and the import statements (de-duplicated, sorted, relative, type-only
 * where possible), so no emitter writes an import by hand.
 */
export class GeneratedFile extends LineWriter {
  private readonly imports = new Map<string, Map<string, ImportEntry>>();
  /** Names bound in this file: declared here or imported; an import that would clash gets an alias. */
  private readonly bound = new Map<string, string>();
  private readonly reexports = new Map<string, string | undefined>();

  /** @param path absolute path of the file to write; module paths below are absolute too. */
  constructor(
    readonly path: string,
    private readonly header: FileHeader,
  ) {
    super();
  }

  /** Declares names that this file defines, so that imports of the same names are aliased. */
  declare(...names: string[]): void {
    for (const n of names) this.bound.set(n, '');
  }

  /**
   * Records a type-only import of `name` from the module at absolute path `module` (no extension)
   * and returns the local name: `name`, or `aliasPrefix + name` when `name` is already bound here.
   */
  importType(name: string, module: string, aliasPrefix = 'Imported'): string {
    return this.addImport(name, module, true, aliasPrefix);
  }

  /** Records a value import; see importType. */
  importValue(name: string, module: string, aliasPrefix = 'imported'): string {
    return this.addImport(name, module, false, aliasPrefix);
  }

  private addImport(name: string, module: string, typeOnly: boolean, aliasPrefix: string): string {
    if (module === this.path.replace(/\.ts$/, '')) return name;
    let local = name;
    const owner = this.bound.get(name);
    if (owner !== undefined && owner !== module) local = `${aliasPrefix}${name}`;
    if (this.bound.has(local) && this.bound.get(local) !== module) {
      throw new Error(`${this.path}: cannot bind ${local} for ${name} from ${module}: the name is taken`);
    }
    this.bound.set(local, module);
    let names = this.imports.get(module);
    if (!names) this.imports.set(module, (names = new Map()));
    const key = local === name ? name : `${name} as ${local}`;
    const seen = names.get(key);
    names.set(key, { typeOnly: (seen?.typeOnly ?? true) && typeOnly });
    return local;
  }

  /** Re-exports every export of a module, or all of it as the namespace `as`. */
  exportAll(module: string, as?: string): this {
    this.reexports.set(module, as);
    return this;
  }

  /** A JSDoc comment; nothing when there are no lines. */
  doc(...paragraphs: (string | undefined)[]): this {
    const lines = paragraphs
      .filter((p): p is string => p !== undefined && p.trim() !== '')
      .flatMap((p, i) => (i > 0 ? ['', ...p.trim().split('\n')] : p.trim().split('\n')))
      .map((l) => l.replace(/\*\//g, '*\\/').trimEnd());
    if (lines.length === 0) return this;
    if (lines.length === 1) return this.line(`/** ${lines[0]} */`);
    this.line('/**');
    for (const l of lines) this.line(l === '' ? ' *' : ` * ${l}`);
    return this.line(' */');
  }

  /** The file's full text: header, imports, body, one trailing newline. */
  render(): string {
    const out = headerLines(this.header);
    const imports = this.renderImports();
    if (imports.length > 0) out.push(...imports, '');
    const reexports = [...this.reexports]
      .map(([module, as]) => `export * ${as ? `as ${as} ` : ''}from '${this.specifier(module)}';`)
      .sort();
    if (reexports.length > 0) out.push(...reexports, '');
    if (this.topLines.length > 0) out.push(...this.topLines, '');
    out.push(...this.bodyLines());
    return `${out.join('\n')}\n`;
  }

  private renderImports(): string[] {
    const entries = [...this.imports].map(([module, names]) => ({ spec: this.specifier(module), names }));
    entries.sort((a, b) => (a.spec < b.spec ? -1 : a.spec > b.spec ? 1 : 0));
    return entries.map(({ spec, names }) => {
      const sorted = [...names].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
      const allTypes = sorted.every(([, e]) => e.typeOnly);
      const list = sorted.map(([n, e]) => (!allTypes && e.typeOnly ? `type ${n}` : n)).join(', ');
      return `import ${allTypes ? 'type ' : ''}{ ${list} } from '${spec}';`;
    });
  }

  /** The relative specifier of a module from this file, for a dynamic `import()`. */
  specifierFor(module: string): string {
    return this.specifier(module);
  }

  private specifier(module: string): string {
    let rel = relative(dirname(this.path), module).split(sep).join('/');
    if (!rel.startsWith('.')) rel = `./${rel}`;
    return `${rel}.js`;
  }
}
