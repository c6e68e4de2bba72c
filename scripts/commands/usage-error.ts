/** A command line the user got wrong: the CLI prints the message and the usage, and exits 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/**
 * A command that cannot do its job for a reason the user can act on (a refused definition, a
 * store another process holds): the CLI prints the one-line message, no stack, and exits with the code.
 */
export class CommandFailure extends Error {
  override readonly name = 'CommandFailure';
  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super(message);
  }
}
