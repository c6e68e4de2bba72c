import type { IncomingMessage } from 'node:http';

/**
 * How long a request's work may hold the event loop before it lets others run at its next stage
 * boundary. A large write (hundreds of milliseconds near the 1.5 MiB object limit) then delays a
 * `/healthz` or a small GET by about one stage, not by all of it; a request done sooner never
 * pays for a turn of the loop.
 */
const SLICE_MS = 20;

/** When each request's current turn on the event loop began (from the end of reading its body). */
const turns = new WeakMap<IncomingMessage, number>();

/** The request's own work begins: its body has been read. */
export function beginTurn(raw: IncomingMessage): void {
  turns.set(raw, performance.now());
}

/** Between two stages of a write: lets the event loop answer other requests if this one has held it a slice. */
export async function letOthersRun(raw: IncomingMessage): Promise<void> {
  const started = turns.get(raw);
  if (started === undefined || performance.now() - started < SLICE_MS) return;
  await new Promise<void>((resolve) => setImmediate(resolve));
  turns.set(raw, performance.now());
}
