import { CommandFailure, closestName, UnknownOptionError, UsageError } from './commands/usage-error.js';

interface Command {
  run(args: string[]): Promise<number>;
  /** The one-line usage, and what `svckit <command> --help` prints; the conformance kit prints its own help. */
  usage(): Promise<{ line: string; help?: string }>;
}

// Every command loads its code when used, so `--version` and `--help` start fast (npm run bench -- cli).
const commands: Record<string, Command> = {
  auth: {
    run: async (args) => (await import('./commands/auth.js')).authCommand(args),
    usage: async () => {
      const line = (await import('./commands/auth.js')).AUTH_USAGE;
      return { line, help: `usage: ${line}\n\n${SUMMARIES.auth}\n` };
    },
  },
  codegen: {
    run: async (args) => (await import('./commands/codegen.js')).codegenCommand(args),
    usage: async () => {
      const m = await import('./commands/codegen.js');
      return { line: m.CODEGEN_USAGE, help: m.CODEGEN_HELP };
    },
  },
  // The kit speaks only HTTP; the CLI hands it the reference server to start when --server is absent.
  conformance: {
    run: async (args) => {
      const [{ runConformanceCli }, { startConformanceServer }] = await Promise.all([
        import('../conformance/index.js'),
        import('../reference/index.js'),
      ]);
      return runConformanceCli(args, { startReferenceServer: startConformanceServer });
    },
    usage: async () => ({ line: 'svckit conformance [--server <url>] ...     (see svckit conformance --help)' }),
  },
  serve: {
    run: async (args) => (await (await import('./commands/serve-module.js')).loadServeCommand()).serveCommand(args),
    usage: async () => {
      const line = (await (await import('./commands/serve-module.js')).loadServeCommand()).SERVE_USAGE;
      return { line, help: `usage: ${line}\n\n${SUMMARIES.serve}\n` };
    },
  },
  encryption: {
    run: async (args) => (await import('./commands/encryption.js')).encryptionCommand(args),
    usage: async () => {
      const m = await import('./commands/encryption.js');
      return { line: m.ENCRYPTION_USAGE, help: m.ENCRYPTION_HELP };
    },
  },
  'kms-plugin': {
    run: async (args) => (await import('./commands/kms-plugin.js')).kmsPluginCommand(args),
    usage: async () => {
      const m = await import('./commands/kms-plugin.js');
      return { line: m.KMS_PLUGIN_USAGE, help: m.KMS_PLUGIN_HELP };
    },
  },
  validate: {
    run: async (args) => (await import('./commands/validate.js')).validateCommand(args),
    usage: async () => {
      const line = (await import('./commands/validate.js')).VALIDATE_USAGE;
      return { line, help: `usage: ${line}\n\n${SUMMARIES.validate}\n` };
    },
  },
};

const SUMMARIES: Record<string, string> = {
  auth: 'Explain an access decision of a server: who the request is from, and which binding allowed it or\n      why every authorizer said no. Exit 0 allowed, 1 not.',
  codegen:
    'Generate types, schema descriptors, validators, defaulters and kind registrations from\n      schema files, CustomResourceDefinitions or OpenAPI v2/v3 documents.',
  conformance: 'Replay the protocol scenarios against a server (the reference server by default).',
  encryption: 'Rewrite every stored object of the configured resources with the current encryption key (key rotation).',
  'kms-plugin': 'Run a small KMS v2 plugin on a unix socket (for tests and trying KMS encryption out).',
  serve: 'Run the reference server; the first line on stdout is "listening on <url>". SIGTERM or SIGINT stops it.',
  validate:
    'Check configuration documents against their kinds (defaults applied first); errors carry\n      file:line:column. Exit 0 all valid, 1 any invalid, 2 usage error.',
};

async function usage(): Promise<string> {
  const lines = ['usage: svckit <command> [options]     (svckit <command> --help for one command; svckit --version)', ''];
  for (const [name, command] of Object.entries(commands)) lines.push(`  ${(await command.usage()).line}`, `      ${SUMMARIES[name]}`);
  return `${lines.join('\n')}\n`;
}

export async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === '--version' || name === '-v' || name === 'version') {
    process.stdout.write(`svckit ${(await import('../generator/index.js')).svckitVersion()}\n`);
    return 0;
  }
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    process.stdout.write(await usage());
    return name ? 0 : 2;
  }
  const command = commands[name];
  if (!command) {
    const meant = closestName(name, Object.keys(commands));
    return usageError(`unknown command "${name}"${meant ? ` (did you mean "${meant}"?)` : ''}`);
  }
  if (rest.includes('--help') || rest.includes('-h')) {
    const { help } = await command.usage();
    if (help) {
      process.stdout.write(help);
      return 0;
    }
  }
  try {
    return await command.run(rest);
  } catch (error) {
    // Matched by name, so that no module is loaded just to recognise its error.
    // A file that is not only this user's (the store, a generated key): the message says what to do.
    if (error instanceof CommandFailure) {
      process.stderr.write(`svckit ${name}: ${error.message}\n`);
      return error.exitCode;
    }
    // A definition given with --crds that the server refused (reference/custom-resources).
    if (error instanceof Error && error.name === 'DefinitionInstallError') {
      process.stderr.write(`svckit ${name}: ${error.message}\n`);
      return 2;
    }
    if (error instanceof Error && (error.name === 'LoadError' || error.name === 'NotPrivateError' || error.name === 'StoreInUseError')) {
      process.stderr.write(`svckit ${name}: ${error.message}\n`);
      return 1;
    }
    // One line: the option it likely meant says more than the whole usage would.
    if (error instanceof UnknownOptionError) {
      process.stderr.write(`svckit ${name}: ${error.message} (svckit ${name} --help lists the options)\n`);
      return 2;
    }
    if (error instanceof Error && (error.name === 'StoreConfigError' || error.name === 'SigningKeyPlaceError'))
      return usageError(error.message, name);
    if (error instanceof UsageError) return usageError(error.message, name);
    if (error instanceof TypeError && 'code' in error && String(error.code).startsWith('ERR_PARSE_ARGS'))
      return usageError(error.message, name);
    throw error;
  }
}

/** The message, then the usage of the command it concerns (every command's when there is none). */
async function usageError(message: string, name?: string): Promise<number> {
  const command = name === undefined ? undefined : commands[name];
  const text = command
    ? `svckit ${name}: ${message}\n\nusage: ${(await command.usage()).line}\n(svckit ${name} --help for more)\n`
    : `svckit: ${message}\n\n${await usage()}`;
  process.stderr.write(text);
  return 2;
}

process.exitCode = await main(process.argv.slice(2));
