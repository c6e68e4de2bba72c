import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';

/**
 * Strict-mode diagnostics of every .ts file below `dir`, one formatted line each (empty: it
 * type-checks). `skipLibCheck: false` checks the declaration files it reaches too, as a consumer's
 * strictest tsconfig would.
 */
export function typecheckDir(dir: string, options: { skipLibCheck?: boolean } = {}): string[] {
  const files = (readdirSync(dir, { recursive: true }) as string[]).filter((f) => f.endsWith('.ts')).map((f) => join(dir, f));
  const program = ts.createProgram(files, {
    strict: true,
    noUncheckedIndexedAccess: true,
    noImplicitOverride: true,
    exactOptionalPropertyTypes: false,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    verbatimModuleSyntax: true,
    skipLibCheck: options.skipLibCheck ?? true,
    noEmit: true,
    types: ['node'],
  });
  return ts.getPreEmitDiagnostics(program).map((d) => {
    const text = ts.flattenDiagnosticMessageText(d.messageText, '\n');
    if (!d.file || d.start === undefined) return text;
    const { line, character } = d.file.getLineAndCharacterOfPosition(d.start);
    return `${d.file.fileName}:${line + 1}:${character + 1}: ${text}`;
  });
}
