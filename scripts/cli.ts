import { isLoadError } from '../generator/index.js';
import { CODEGEN_USAGE, codegenCommand } from './commands/codegen.js';
import { SERVE_USAGE, serveCommand } from './commands/serve.js';
import { UsageError } from './commands/usage-error.js';
import { startReferenceServer } from './reference-server.js';
import { VALIDATE_USAGE, validateCommand } from './commands/validate.js';

const USAGE = `usage: svckit <command> [options]

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

type Command = (args: string[]) => Promise<number>;

const commands: Record<string, Command> = {
  codegen: codegenCommand,
  serve: serveCommand,
  // The kit speaks only HTTP; the CLI hands it the reference server to start when --server is absent.
  conformance: async (args) => (await import('../conformance/index.js')).runConformanceCli(args, { startReferenceServer }),
  validate: validateCommand,
};

export async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    process.stdout.write(USAGE);
    return name ? 0 : 2;
  }
  const command = commands[name];
  if (!command) return usageError(`unknown command "${name}"`);
  try {
    return await command(rest);
  } catch (error) {
    if (isLoadError(error)) {
      process.stderr.write(`svckit ${name}: ${error.message}\n`);
      return 1;
    }
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
