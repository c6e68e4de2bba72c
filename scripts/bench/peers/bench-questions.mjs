/**
 * Preloaded (`node --import`) into a server the benchmarks start with an IPC channel: answers
 * their questions over it. "memory": this process's heap after a full collection (it runs with
 * --expose-gc) and its resident set; "profile-start" and "profile-stop <file>": V8's CPU profiler
 * over just the load (start-up left out), the profile written to `file` as `node --cpu-prof`
 * would. Plain JavaScript, so that svckit's server runs as the bin runs it, without tsx's loader
 * (which transformed the 2 MB serve bundle and doubled the heap the benchmarks reported).
 */
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';

/** @type {Session | undefined} */
let session;
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
// The channel must not keep a server alive once it has stopped.
process.channel?.unref();
