import type { ScenarioResult } from '../types.js';

/** A one-line progress bar for a TTY; on other streams it prints nothing until the report. */
export class ProgressBar {
  #failed = 0;
  readonly #stream: NodeJS.WriteStream;
  readonly #width: number;

  constructor(stream: NodeJS.WriteStream, width = 30) {
    this.#stream = stream;
    this.#width = width;
  }

  get active(): boolean {
    return Boolean(this.#stream.isTTY);
  }

  update(result: ScenarioResult, done: number, total: number): void {
    if (result.outcome === 'failed') this.#failed++;
    if (!this.active) return;
    const filled = total === 0 ? this.#width : Math.round((done / total) * this.#width);
    const bar = `${'#'.repeat(filled)}${'.'.repeat(this.#width - filled)}`;
    const columns = this.#stream.columns ?? 100;
    const line = `[${bar}] ${done}/${total} ${this.#failed ? `${this.#failed} failed ` : ''}${result.id}`;
    this.#stream.write(`\r\x1b[2K${line.slice(0, columns - 1)}`);
  }

  clear(): void {
    if (this.active) this.#stream.write('\r\x1b[2K');
  }
}
