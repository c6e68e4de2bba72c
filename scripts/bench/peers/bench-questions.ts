import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';

/**
 * Answers the benchmark's questions over the IPC channel: "memory" with this process's heap
 * after a full collection (the process runs with --expose-gc) and its resident set;
 * "profile-start" and "profile-stop <file>" by running V8's CPU profiler over just the load
 * (start-up left out) and writing the profile, as `node --cpu-prof` would, to `file`.
 */
export function answerBenchQuestions(): void {
  let session: Session | undefined;
  process.on('message', async (message) => {
    if (message === 'memory') {
      globalThis.gc?.();
      const m = process.memoryUsage();
      process.send?.({ heapUsed: m.heapUsed, rss: m.rss });
    } else if (message === 'profile-start') {
      session = new Session();
      session.connect();
      await session.post('Profiler.enable');
      await session.post('Profiler.start');
      process.send?.('ok');
    } else if (typeof message === 'string' && message.startsWith('profile-stop ') && session) {
      const { profile } = await session.post('Profiler.stop');
      writeFileSync(message.slice('profile-stop '.length), JSON.stringify(profile));
      session.disconnect();
      session = undefined;
      process.send?.('ok');
    }
  });
}
