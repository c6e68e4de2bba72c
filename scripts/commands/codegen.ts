import { resolve } from 'node:path';
import { parseCommandLine } from './parse-command-line.js';
import { RUNTIME_PACKAGE, type RuntimeImports, codegen } from '../../generator/index.js';
import { GROUP_SUFFIX_OPTIONS, GROUP_SUFFIX_USAGE, groupSuffixFromFlags } from './serve-groups.js';
import { UsageError } from './usage-error.js';

export const CODEGEN_USAGE = `svckit codegen --schemas <dir|file>... --out <dir> [--check] [--strict] [--quiet] ${GROUP_SUFFIX_USAGE}`;

export const CODEGEN_HELP = `usage: ${CODEGEN_USAGE}

Generate types, schema descriptors, validators, defaulters, kind registrations, a typed client,
Protobuf codecs and OpenAPI documents from svckit schema files, CustomResourceDefinitions or
OpenAPI v2/v3 documents. Output is deterministic and the same wherever it is generated.

  --schemas <path>         a schema file or a folder of them (repeatable); folders are walked for
                           .yaml, .yml and .json files
  --out <dir>              where to write; files svckit generated before and no longer writes are removed
  --check                  write nothing; exit 1 and name every stale, missing or extra file
  --strict                 a document that is not a schema is an error (default: skipped, one warning each)
  --runtime-import <name>  the package generated code imports svckit's runtime from (default ${RUNTIME_PACKAGE})
  --runtime-path <dir>     import the runtime by relative path into the svckit code at <dir> instead
                           (svckit's own generated/ is built with --runtime-path .)
  --group-suffix <suffix>  name the spec's groups <name>.<suffix> instead of <name>.svc.io (k8s.io:
                           the real system's names, as served by svckit serve --group-suffix k8s.io)
  -q, --quiet              no progress lines (warnings and errors still go to stderr)
`;

/** `svckit codegen`: generate, or with --check compare with what is on disk (exit 1 when stale). */
export async function codegenCommand(args: string[]): Promise<number> {
  const { values } = parseCommandLine({
    args,
    options: {
      schemas: { type: 'string', multiple: true },
      out: { type: 'string' },
      check: { type: 'boolean', default: false },
      strict: { type: 'boolean', default: false },
      'runtime-import': { type: 'string' },
      'runtime-path': { type: 'string' },
      quiet: { type: 'boolean', short: 'q', default: false },
      ...GROUP_SUFFIX_OPTIONS,
    },
    strict: true,
  });
  if (!values.schemas?.length || !values.out) throw new UsageError('codegen needs --schemas <dir> and --out <dir>');
  if (values['runtime-import'] !== undefined && values['runtime-path'] !== undefined)
    throw new UsageError('give --runtime-import or --runtime-path, not both');
  const runtime: RuntimeImports =
    values['runtime-path'] !== undefined
      ? { root: resolve(values['runtime-path']) }
      : { package: values['runtime-import'] ?? RUNTIME_PACKAGE };
  const log = values.quiet ? () => {} : (line: string) => process.stderr.write(`codegen: ${line}\n`);
  const warn = (line: string) => process.stderr.write(`codegen: warning: ${line}\n`);
  const result = codegen({
    schemas: values.schemas,
    out: values.out,
    check: values.check,
    others: values.strict ? 'error' : 'skip',
    runtime,
    log,
    warn,
    groupSuffix: groupSuffixFromFlags(values),
  });
  const count = (s: string) => result.files.filter((f) => f.status === s).length;
  const summary = `${result.groupVersions} group/versions, ${result.kinds} kinds, ${result.files.length} files`;
  if (values.check) {
    const bad = result.files.filter((f) => f.status !== 'unchanged');
    for (const f of bad) process.stderr.write(`codegen: ${f.status}: ${f.path}\n`);
    log(
      `${summary} checked in ${result.millis.toFixed(0)} ms: ${bad.length === 0 ? 'up to date' : `${bad.length} out of date (run svckit codegen without --check)`}`,
    );
    return bad.length === 0 ? 0 : 1;
  }
  log(
    `${summary} (${count('written')} written, ${count('unchanged')} unchanged, ${count('removed')} removed) in ${result.millis.toFixed(0)} ms`,
  );
  return 0;
}
