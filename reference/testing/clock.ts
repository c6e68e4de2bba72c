/**
 * The test server's clock: it follows the system's time until a test moves it (`advance`) or pins
 * it (`set`). The server reads it for creation and deletion timestamps, continue-token lifetimes
 * and table ages, and the store for its history window (compaction).
 */
export class TestClock {
  /** Milliseconds added to the system's time; undefined once pinned. */
  #offset = 0;
  #pinned: number | undefined;

  /** The clock's time now. */
  readonly now = (): Date => new Date(this.ms());

  ms(): number {
    return this.#pinned ?? Date.now() + this.#offset;
  }

  /** Moves the clock forward (a pinned clock stays pinned, at the later time). */
  advance(ms: number): void {
    if (!(ms >= 0)) throw new RangeError(`the clock only moves forward; got ${ms} ms`);
    if (this.#pinned !== undefined) this.#pinned += ms;
    else this.#offset += ms;
  }

  /** Pins the clock at `at`: it stands still until advanced or released. */
  set(at: Date): void {
    this.#pinned = at.getTime();
  }

  /** Lets a pinned clock run again from where it stands. */
  release(): void {
    if (this.#pinned === undefined) return;
    this.#offset = this.#pinned - Date.now();
    this.#pinned = undefined;
  }
}
