import { isLoadError, svckitVersion } from '../generator/index.js';
import { isStoreConfigError } from '../runtime/store/index.js';
import { CODEGEN_HELP, CODEGEN_USAGE, codegenCommand } from './commands/codegen.js';
import { SERVE_USAGE, serveCommand } from './commands/serve.js';
import { UsageError } from './commands/usage-error.js';
import { VALIDATE_USAGE, validateCommand } from './commands/validate.js';

const USAGE = `usage: svckit <command> [options]     (svckit <command> --help for one command; svckit --version)

  ${CODEGEN_USAGE}
      Generate types, schema descriptors, validators, defaulters and kind registrations from
      schema files, CustomResourceDefinitions or OpenAPI v2/v3 documents.
  svckit conformance [--server <url>] ...     (see svckit conformance --help)
      Replay the protocol scenarios against a server (the reference server by default).
  ${SERVE_USAGE}
      Run the reference server; the first line on stdout is "listening on <url>".
  ${VALIDATE_USAGE}
      Check configuration documents against their kinds (defaults applied first); errors carry
      file:line:column. Exit 0 all valid, 1 any invalid, 2 usage error.
`;

interface Command {
  run(args: string[]): Promise<number>;
  /** What `svckit <command> --help` prints; the conformance kit prints its own. */
  help?: string;
}

// Commands load what they need when run, so `--version` and `--help` start fast.
const commands: Record<string, Command> = {
  codegen: { run: codegenCommand, help: CODEGEN_HELP },
  serve: { run: serveCommand, help: `usage: ${SERVE_USAGE}\n\nRun the reference server; the first line on stdout is "listening on <url>". SIGTERM or SIGINT stops it.\n` },
  // The kit speaks only HTTP; the CLI hands it the reference server to start when --server is absent.
  conformance: {
    run: async (args) => {
      const [{ runConformanceCli }, { startReferenceServer }] = await Promise.all([import('../conformance/index.js'), import('./reference-server.js')]);
      return runConformanceCli(args, { startReferenceServer });
    },
  },
  validate: { run: validateCommand, help: `usage: ${VALIDATE_USAGE}\n\nCheck configuration documents against their kinds (defaults applied first); errors carry\nfile:line:column. Exit 0 all valid, 1 any invalid, 2 usage error.\n` },
};

export async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === '--version' || name === '-v' || name === 'version') {
    process.stdout.write(`svckit ${svckitVersion()}\n`);
    return 0;
  }
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    process.stdout.write(USAGE);
    return name ? 0 : 2;
  }
  const command = commands[name];
  if (!command) return usageError(`unknown command "${name}"`);
  if (command.help && (rest.includes('--help') || rest.includes('-h'))) {
    process.stdout.write(command.help);
    return 0;
  }
  try {
    return await command.run(rest);
  } catch (error) {
    if (isLoadError(error)) {
      process.stderr.write(`svckit ${name}: ${error.message}\n`);
      return 1;
    }
    if (isStoreConfigError(error)) return usageError(error.message);
    if (error instanceof UsageError) return usageError(error.message);
    if (error instanceof TypeError && 'code' in error && String(error.code).startsWith('ERR_PARSE_ARGS')) return usageError(error.message);
    throw error;
  }
}

function usageError(message: string): number {
  process.stderr.write(`svckit: ${message}\n\n${USAGE}`);
  return 2;
}

process.exitCode = await main(process.argv.slice(2));
