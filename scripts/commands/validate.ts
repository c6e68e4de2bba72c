import { type Stats, readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parseCommandLine } from './parse-command-line.js';
import { stringify } from 'yaml';
import { fieldErrorMessage } from '../../runtime/api/index.js';
import { DocumentValidator, type DocumentResult, jsonReport, junitReport, textReport } from '../../runtime/documents/index.js';
import { ruleSetForKind } from '../../runtime/cel/index.js';
import type { KindRegistration } from '../../runtime/schema/index.js';
import { defaultErrors, projectKinds, ruleErrors } from '../../reference/custom-resources/index.js';
import { GROUP_SUFFIX_OPTIONS, GROUP_SUFFIX_USAGE, groupSuffixFromFlags, kindsAsServed } from './serve-groups.js';
import { UsageError } from './usage-error.js';

export const VALIDATE_USAGE = `svckit validate <files|dirs|->... [--strict] [--strict-kinds] [--print-defaults] [--output text|json|junit] [--schemas <dir>] ${GROUP_SUFFIX_USAGE}`;

/**
 * `svckit validate`: exit 0 when every document is valid, 1 when any is invalid, 2 for usage errors.
 * `--strict` makes unknown and duplicate fields errors, `--strict-kinds` documents of unknown kinds;
 * `--print-defaults` writes the defaulted documents as YAML to standard output and the report to
 * standard error.
 */
export async function validateCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseCommandLine({
    args,
    options: {
      strict: { type: 'boolean', default: false },
      'strict-kinds': { type: 'boolean', default: false },
      'print-defaults': { type: 'boolean', default: false },
      output: { type: 'string', default: 'text' },
      schemas: { type: 'string', multiple: true },
      ...GROUP_SUFFIX_OPTIONS,
    },
    allowPositionals: true,
    strict: true,
  });
  if (positionals.length === 0) throw new UsageError('validate needs files, directories or - (standard input)');
  const report = { text: textReport, json: jsonReport, junit: junitReport }[values.output as 'text'];
  if (!report) throw new UsageError(`--output must be text, json or junit, not ${values.output}`);
  const builtIn = kindsAsServed((await import('../../generated/kinds.js')).allKinds, groupSuffixFromFlags(values));
  const project = values.schemas ? (await projectKinds(values.schemas, 'validate')).kinds : [];
  if (values.schemas) {
    // A project's rule that does not compile: said once here; each document it reaches has a finding.
    // So are a CRD default and a rule's estimated cost the server would refuse (the server's checks,
    // at their place in the version's schema).
    for (const k of project) {
      for (const e of ruleSetForKind(k).check())
        process.stderr.write(`svckit validate: warning: ${k.apiVersion} ${k.kind}: ${e.message}\n`);
      const refused = k.resource?.custom
        ? [
            ...ruleErrors(k.schema, 'openAPIV3Schema').filter((e) => e.type === 'FieldValueForbidden'),
            ...defaultErrors(k, 'openAPIV3Schema'),
          ]
        : [];
      for (const e of refused) process.stderr.write(`svckit validate: warning: ${k.apiVersion} ${k.kind}: ${fieldErrorMessage(e)}\n`);
    }
  }
  // Built-in kinds are always known; a project's kind of the same apiVersion and kind takes its place.
  const named = (k: KindRegistration) => `${k.apiVersion} ${k.kind}`;
  const own = new Set(project.map(named));
  const validator = new DocumentValidator([...builtIn.filter((k) => !own.has(named(k))), ...project]);
  const results: DocumentResult[] = [];
  for (const input of inputs(positionals)) {
    results.push(
      ...validator.validateText(input.name, input.text(), {
        strict: values.strict,
        strictKinds: values['strict-kinds'],
        keepDocuments: values['print-defaults'],
      }),
    );
  }
  if (values['print-defaults']) {
    process.stdout.write(defaultedDocuments(results));
    process.stderr.write(report(results.map(({ document: _, ...r }) => r)));
  } else {
    process.stdout.write(report(results));
  }
  return results.some((r) => r.status === 'invalid') ? 1 : 0;
}

/** The documents of known kinds, defaulted, as one YAML stream; each headed by where it came from. */
function defaultedDocuments(results: readonly DocumentResult[]): string {
  return results
    .filter((r) => r.document !== undefined)
    .map((r) => `---\n# ${r.file}:${r.position.line} (${r.status})\n${stringify(r.document, { lineWidth: 0 })}`)
    .join('');
}

interface Input {
  name: string;
  text(): string;
}

function inputs(paths: string[]): Input[] {
  return paths.flatMap((p): Input[] => {
    if (p === '-') return [{ name: '<stdin>', text: () => readFileSync(0, 'utf8') }];
    let stat: Stats;
    try {
      stat = statSync(p);
    } catch {
      throw new UsageError(`${p}: no such file or directory`);
    }
    if (stat.isFile()) return [{ name: p, text: () => readFileSync(p, 'utf8') }];
    return (readdirSync(p, { recursive: true }) as string[])
      .filter((f) => /\.(ya?ml|json)$/.test(f))
      .sort()
      .map((f) => ({ name: join(p, f), text: () => readFileSync(join(p, f), 'utf8') }));
  });
}
