/**
 * `npx tsx scripts/checks/controller-comparison.ts`: the figures of the README's comparison of
 * one small controller written twice (scripts/examples/replica-floor/: with svckit, and with
 * @kubernetes/client-node), reproducible. Prints a table: the lines of code of each (neither blank
 * nor comment), then, for each of four seeded mistakes, whether `tsc` (this repository's
 * tsconfig.json, strict) refuses the file with it. Exit 1 when a file does not type-check as
 * written or a seeded mistake no longer applies (the example changed under it).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';

const ROOT = new URL('../../', import.meta.url).pathname;
const EXAMPLES = join(ROOT, 'scripts/examples/replica-floor');

interface Version {
  label: string;
  file: string;
}

const VERSIONS: Version[] = [
  { label: 'svckit', file: join(EXAMPLES, 'svckit.ts') },
  { label: '@kubernetes/client-node', file: join(EXAMPLES, 'client-node.ts') },
];

/** One mistake, seeded in each version as that API spells the same intent: [find, replace] per version, each found exactly once. */
interface Mistake {
  what: string;
  edits: [find: string, replace: string][];
}

const MISTAKES: Mistake[] = [
  {
    what: 'a misspelt field in a merge patch (replica)',
    edits: [
      ['{ spec: { replicas: floor } }', '{ spec: { replica: floor } }'],
      ['body: { spec: { replicas: floor } }', 'body: { spec: { replica: floor } }'],
    ],
  },
  {
    what: 'a wrong resource in the watch (deployment)',
    edits: [
      ['client.apps.v1.deployments(namespace)', 'client.apps.v1.deployment(namespace)'],
      ['`/apis/apps/v1/namespaces/${namespace}/deployments`', '`/apis/apps/v1/namespaces/${namespace}/deployment`'],
    ],
  },
  {
    what: 'a wrong type for replicas (a string)',
    edits: [
      ['{ spec: { replicas: floor } }', '{ spec: { replicas: String(floor) } }'],
      ['body: { spec: { replicas: floor } }', 'body: { spec: { replicas: String(floor) } }'],
    ],
  },
  {
    what: 'a misspelt field in the applied object (dat)',
    edits: [
      ['data: { minReplicas: String(floor) }', 'dat: { minReplicas: String(floor) }'],
      ['data: { minReplicas: String(floor) }', 'dat: { minReplicas: String(floor) }'],
    ],
  },
];

/** Lines that are neither blank nor only a comment. */
function linesOfCode(text: string): number {
  return text.split('\n').filter((line) => {
    const t = line.trim();
    return t !== '' && !t.startsWith('//') && !t.startsWith('/*') && !t.startsWith('*');
  }).length;
}

const config = ts.getParsedCommandLineOfConfigFile(
  join(ROOT, 'tsconfig.json'),
  {},
  {
    ...ts.sys,
    onUnRecoverableConfigFileDiagnostic: (d) => {
      throw new Error(ts.flattenDiagnosticMessageText(d.messageText, '\n'));
    },
  },
);
if (!config) throw new Error('cannot read tsconfig.json');
const options = config.options;
let previous: ts.Program | undefined;

/** The errors `tsc` reports in `file` when its text is `text` (the program is reused between runs, so only the file is checked again). */
function errorsIn(file: string, text: string): string[] {
  const host = ts.createCompilerHost(options);
  const getSourceFile = host.getSourceFile;
  host.getSourceFile = (name, language, onError, create) =>
    name === file ? ts.createSourceFile(name, text, language) : getSourceFile.call(host, name, language, onError, create);
  const program = ts.createProgram([file], options, host, previous);
  previous = program;
  const source = program.getSourceFile(file)!;
  return [...program.getSyntacticDiagnostics(source), ...program.getSemanticDiagnostics(source)].map((d) =>
    ts.flattenDiagnosticMessageText(d.messageText, ' '),
  );
}

let problems = 0;
const rows: string[][] = [['', ...VERSIONS.map((v) => v.label)]];
const texts = VERSIONS.map((v) => readFileSync(v.file, 'utf8'));
rows.push(['lines of code (no blank or comment lines)', ...texts.map((t) => String(linesOfCode(t)))]);
VERSIONS.forEach((v, i) => {
  const errors = errorsIn(v.file, texts[i]!);
  if (errors.length > 0) {
    problems++;
    process.stderr.write(`${v.label}: ${v.file} does not type-check as written:\n  ${errors.join('\n  ')}\n`);
  }
});
const caught = VERSIONS.map(() => 0);
for (const mistake of MISTAKES) {
  const row = [`  ${mistake.what}`];
  VERSIONS.forEach((v, i) => {
    const [find, replace] = mistake.edits[i]!;
    const text = texts[i]!;
    if (text.split(find).length !== 2) {
      problems++;
      process.stderr.write(`${v.label}: "${find}" is not in ${v.file} exactly once; update the seeded mistake\n`);
      row.push('?');
      return;
    }
    const errors = errorsIn(v.file, text.replace(find, replace));
    if (errors.length > 0) caught[i]!++;
    row.push(errors.length > 0 ? 'caught' : 'compiles');
  });
  rows.push(row);
}
rows.splice(2, 0, ['seeded mistakes tsc catches', ...caught.map((n) => `${n} of ${MISTAKES.length}`)]);

const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => r[c]!.length)));
for (const r of rows)
  process.stdout.write(`${r.map((cell, c) => (c === 0 ? cell.padEnd(widths[c]!) : cell.padStart(widths[c]!))).join('   ')}\n`);
process.exitCode = problems > 0 ? 1 : 0;
