import type { KeyValue, Store, WatchEvent } from '../store/index.js';

/** What a follower is told: the whole list (at start and after each relist), then each change. */
export interface FollowerHandlers {
  /** Every object under the prefix at `revision`; the follower waits for it before watching. */
  listed(items: readonly KeyValue[], revision: number): Promise<void>;
  changed(event: WatchEvent): void;
  /** Called before a relist, once the changes handed over so far are handled (their queue drained). */
  settle?(): Promise<void>;
}

/**
 * Follows the objects under one store prefix as upstream's informers do for the server's own
 * controllers: a list, then a watch from its revision; a watch that ends without being stopped
 * (history compacted, the store's connection lost, a reader left behind) starts over from a fresh
 * list, as an informer relists.
 */
export class StoreFollower {
  #stop: (() => void) | undefined;
  #stopped = false;

  constructor(
    private readonly store: Store,
    private readonly prefix: string,
    private readonly handlers: FollowerHandlers,
    private readonly log: (line: string) => void = (line) => process.stderr.write(`${line}\n`),
  ) {}

  /** Lists and hands over the objects, then follows their changes in the background. */
  async start(): Promise<void> {
    const revision = await this.#list();
    void this.#follow(revision);
  }

  stop(): void {
    this.#stopped = true;
    this.#stop?.();
  }

  async #list(): Promise<number> {
    const listed = await this.store.list(this.prefix);
    await this.handlers.listed(listed.items, listed.revision);
    return listed.revision;
  }

  async #follow(revision: number): Promise<void> {
    let from = revision;
    while (!this.#stopped) {
      try {
        const watch = this.store.watch(this.prefix, from);
        this.#stop = () => watch.close();
        for await (const event of watch) this.handlers.changed(event);
      } catch (e) {
        this.log(`watch of ${this.prefix} ended: ${String(e)}`);
      }
      if (this.#stopped) return;
      await this.handlers.settle?.();
      from = await this.#list().catch(async (e: unknown) => {
        this.log(`listing ${this.prefix} failed: ${String(e)}`);
        await new Promise((r) => setTimeout(r, 1000));
        return from;
      });
    }
  }
}
