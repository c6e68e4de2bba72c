/** A command line the user got wrong: the CLI prints the message and the usage, and exits 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/**
 * An option the command does not have: the CLI prints this one line (the option it likely meant
 * says more than the whole usage would) and exits 2.
 */
export class UnknownOptionError extends UsageError {
  constructor(
    readonly option: string,
    readonly meant: string | undefined,
  ) {
    super(`unknown option ${option}${meant ? `; did you mean ${meant}?` : ''}`);
  }
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

/** The name a typo most likely meant: the nearest within two edits (and fewer edits than the typo is long), or undefined. */
export function closestName(typed: string, names: readonly string[]): string | undefined {
  let best: { name: string; d: number } | undefined;
  for (const n of names) {
    const d = editDistance(typed, n);
    if (d <= 2 && d < typed.length && (!best || d < best.d)) best = { name: n, d };
  }
  return best?.name;
}

function editDistance(a: string, b: string): number {
  let row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const next = [i];
    for (let j = 1; j <= b.length; j++) next[j] = Math.min(row[j]! + 1, next[j - 1]! + 1, row[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    row = next;
  }
  return row[b.length]!;
}
