/**
 * Answers the benchmark's "memory" message with this process's heap after a full collection
 * (the process runs with --expose-gc) and its resident set.
 */
export function answerMemoryQuestions(): void {
  process.on('message', (message) => {
    if (message !== 'memory') return;
    globalThis.gc?.();
    const m = process.memoryUsage();
    process.send?.({ heapUsed: m.heapUsed, rss: m.rss });
  });
}
