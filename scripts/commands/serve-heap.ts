import { setFlagsFromString } from 'node:v8';

const KEEP_HEAP_WHEN_IDLE = `--gc-memory-reducer-start-delay-ms=${2 ** 31 - 1}`;

/**
 * A server keeps its heap when idle. V8's memory reducer shrinks the heap of a process that has
 * allocated little for 8 s; a `svckit serve` that met its first load after that answered GETs at
 * 0.038 ms of CPU each instead of 0.027, and stayed there for as long as it ran (measured on the
 * compiled bin: docs/decisions.md; `node --no-memory-reducer` did the same as this). The reducer's
 * start is put off for 24 days. V8 reads the flag when it schedules the reducer, which it first does
 * at the first full collection (about 0.2 s into a start): so this runs before anything else loads,
 * from the bin, for `serve` only.
 */
export function keepHeapWhenIdle(): void {
  setFlagsFromString(KEEP_HEAP_WHEN_IDLE);
}
