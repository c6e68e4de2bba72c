/** A schema input that cannot be turned into the model: names the file, the JSON path and what was expected. */
export class LoadError extends Error {
  override readonly name = 'LoadError';

  constructor(
    readonly file: string,
    readonly path: string,
    readonly problem: string,
  ) {
    super(`${file}: ${path || '(document)'}: ${problem}`);
  }
}

export function isLoadError(error: unknown): error is LoadError {
  return error instanceof LoadError;
}

/** A JSON path segment: `.name` for identifiers, `["odd-name"]` otherwise, `[3]` for indexes. */
export function joinPath(base: string, key: string | number): string {
  if (typeof key === 'number') return `${base}[${key}]`;
  return /^[A-Za-z_$][\w$]*$/.test(key) ? `${base}.${key}` : `${base}[${JSON.stringify(key)}]`;
}
