/**
 * A malformed label or field selector: what was wrong, and where in the selector text (a
 * 0-based character offset; absent when the selector came from a structured object).
 */
export class SelectorParseError extends Error {
  override readonly name = 'SelectorParseError';
  readonly selector: string;
  readonly position: number | undefined;
  /** The problem alone, without the selector and position. */
  readonly detail: string;

  constructor(kind: 'label' | 'field', selector: string, detail: string, position?: number) {
    const where = position === undefined ? '' : ` at position ${position}`;
    super(`invalid ${kind} selector ${JSON.stringify(selector)}${where}: ${detail}`);
    this.selector = selector;
    this.position = position;
    this.detail = detail;
  }
}

export function isSelectorParseError(value: unknown): value is SelectorParseError {
  return value instanceof SelectorParseError;
}
