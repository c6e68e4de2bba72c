import type { Outcome, ScenarioResult } from '../types.js';
import { closingLine } from './summary-line.js';

export interface ProgressOptions {
  /** Off a TTY: a line after this many scenarios since the last one. Default 100. */
  every?: number;
  /** Off a TTY: a line at the first result this long after the last line. Default 10 s. */
  intervalMs?: number;
  now?: () => number;
}

/**
 * The run's progress on stderr. A TTY gets a one-line bar redrawn in place; any other stream (CI
 * logs, a pipe) gets a plain line now and then, `312/989: 310 passed, 1 failed, 1 skipped`, so that
 * a run of minutes does not look hung.
 */
export class ProgressBar {
  readonly #counts: Record<Outcome, number> = { passed: 0, failed: 0, skipped: 0 };
  readonly #stream: NodeJS.WriteStream;
  readonly #width: number;
  readonly #every: number;
  readonly #intervalMs: number;
  readonly #now: () => number;
  #lastLineDone = 0;
  #lastLineAt: number;

  constructor(stream: NodeJS.WriteStream, width = 30, options: ProgressOptions = {}) {
    this.#stream = stream;
    this.#width = width;
    this.#every = options.every ?? 100;
    this.#intervalMs = options.intervalMs ?? 10_000;
    this.#now = options.now ?? Date.now;
    this.#lastLineAt = this.#now();
  }

  get active(): boolean {
    return Boolean(this.#stream.isTTY);
  }

  update(result: ScenarioResult, done: number, total: number): void {
    this.#counts[result.outcome]++;
    if (!this.active) {
      const now = this.#now();
      if (done - this.#lastLineDone >= this.#every || now - this.#lastLineAt >= this.#intervalMs) {
        this.#lastLineDone = done;
        this.#lastLineAt = now;
        this.#stream.write(`${done}/${total}: ${closingLine(this.#counts)}\n`);
      }
      return;
    }
    const failed = this.#counts.failed;
    const filled = total === 0 ? this.#width : Math.round((done / total) * this.#width);
    const bar = `${'#'.repeat(filled)}${'.'.repeat(this.#width - filled)}`;
    const columns = this.#stream.columns ?? 100;
    const line = `[${bar}] ${done}/${total} ${failed ? `${failed} failed ` : ''}${result.id}`;
    this.#stream.write(`\r\x1b[2K${line.slice(0, columns - 1)}`);
  }

  clear(): void {
    if (this.active) this.#stream.write('\r\x1b[2K');
  }
}
