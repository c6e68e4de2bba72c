import { type FileHeader, headerLines } from './header.js';
import { LineWriter } from './line-writer.js';

/** What codegen writes and checks: a path and the full text. */
export interface OutputFile {
  readonly path: string;
  render(): string;
}

/**
 * One generated file that is not TypeScript (a `.proto` file): the same header as GeneratedFile in
 * the file's own line-comment syntax (`//` by default, which is also Protobuf's), then module-level
 * lines (`top`), then the body with two-space indentation.
 */
export class DataFile extends LineWriter implements OutputFile {
  /** @param path absolute path of the file to write. */
  constructor(
    readonly path: string,
    private readonly header: FileHeader,
    private readonly commentPrefix = '//',
  ) {
    super();
  }

  /** Comment lines at the current indentation; nothing for empty text. */
  comment(text: string | undefined): this {
    if (text === undefined || text.trim() === '') return this;
    for (const l of text.trim().split('\n')) this.line(l.trim() === '' ? this.commentPrefix : `${this.commentPrefix} ${l.trimEnd()}`);
    return this;
  }

  /** The file's full text: header, top lines, body, one trailing newline. */
  render(): string {
    const out = headerLines(this.header, this.commentPrefix);
    if (this.topLines.length > 0) out.push(...this.topLines, '');
    out.push(...this.bodyLines());
    while (out.length > 0 && out[out.length - 1] === '') out.pop();
    return `${out.join('\n')}\n`;
  }
}
