/**
 * Indented lines of a generated file: the part every file printer shares (TypeScript and the
 * non-TypeScript data files alike).
 */
export class LineWriter {
  protected readonly lines: string[] = [];
  protected readonly topLines: string[] = [];
  private depth = 0;

  /** A module-level line rendered after the header (and imports) and before the body. */
  top(text = ''): this {
    this.topLines.push(text);
    return this;
  }

  /** Appends one line at the current indentation (an empty call appends a blank line). */
  line(text = ''): this {
    this.lines.push(text === '' ? '' : '  '.repeat(this.depth) + text);
    return this;
  }

  /** Writes `open`, the body one level deeper, then `close`. */
  block(open: string, body: () => void, close = '}'): this {
    this.line(open);
    this.depth++;
    body();
    this.depth--;
    return this.line(close);
  }

  /** The body without trailing blank lines. */
  protected bodyLines(): string[] {
    const body = [...this.lines];
    while (body.length > 0 && body[body.length - 1] === '') body.pop();
    return body;
  }
}
