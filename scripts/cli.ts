import { parseArgs } from 'node:util';
import { codegen, isLoadError } from '../generator/index.js';

const USAGE = `usage: svckit <command> [options]

commands:
  codegen --schemas <dir|file>... --out <dir> [--check]
      Generate typed models (and more artifacts as they land) from schema files,
      CustomResourceDefinitions or OpenAPI v2/v3 documents. --check compares with
      the files on disk and exits 1 naming the stale ones.
  conformance [--server <url>]   (not built yet)
  serve [--port 8080]            (not built yet)
  validate <files...>            (not built yet)
`;

type Command = (args: string[]) => number;

const commands: Record<string, Command> = {
  codegen: runCodegen,
  conformance: notBuilt('conformance', 'the conformance kit (issue 5)'),
  serve: notBuilt('serve', 'the reference server (issue 4)'),
  validate: notBuilt('validate', 'validators and `svckit validate` (issue 3)'),
};

function runCodegen(args: string[]): number {
  const { values } = parseArgs({
    args,
    options: {
      schemas: { type: 'string', multiple: true },
      out: { type: 'string' },
      check: { type: 'boolean', default: false },
      quiet: { type: 'boolean', short: 'q', default: false },
    },
    strict: true,
  });
  if (!values.schemas?.length || !values.out) return usageError('codegen needs --schemas <dir> and --out <dir>');
  const log = values.quiet ? () => {} : (line: string) => process.stderr.write(`codegen: ${line}\n`);
  const result = codegen({ schemas: values.schemas, out: values.out, check: values.check, log });
  const count = (s: string) => result.files.filter((f) => f.status === s).length;
  if (values.check) {
    const bad = result.files.filter((f) => f.status !== 'unchanged');
    for (const f of bad) process.stderr.write(`codegen: ${f.status}: ${f.path}\n`);
    log(`${result.groupVersions} group/versions, ${result.kinds} kinds, ${result.files.length} files checked in ${result.millis.toFixed(0)} ms: ${bad.length === 0 ? 'up to date' : `${bad.length} out of date (run npm run codegen)`}`);
    return bad.length === 0 ? 0 : 1;
  }
  log(`${result.groupVersions} group/versions, ${result.kinds} kinds, ${result.files.length} files (${count('written')} written, ${count('unchanged')} unchanged, ${count('removed')} removed) in ${result.millis.toFixed(0)} ms`);
  return 0;
}

function notBuilt(name: string, what: string): Command {
  return () => {
    process.stderr.write(`svckit ${name}: not built yet; it arrives with ${what}.\n`);
    return 2;
  };
}

function usageError(message: string): number {
  process.stderr.write(`svckit: ${message}\n\n${USAGE}`);
  return 2;
}

export function main(argv: string[]): number {
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    process.stdout.write(USAGE);
    return name ? 0 : 2;
  }
  const command = commands[name];
  if (!command) return usageError(`unknown command "${name}"`);
  try {
    return command(rest);
  } catch (error) {
    if (isLoadError(error)) {
      process.stderr.write(`svckit ${name}: ${error.message}\n`);
      return 1;
    }
    if (error instanceof TypeError && 'code' in error && String(error.code).startsWith('ERR_PARSE_ARGS')) {
      return usageError(error.message);
    }
    throw error;
  }
}

process.exitCode = main(process.argv.slice(2));
