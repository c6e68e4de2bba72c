#!/usr/bin/env node
// The svckit CLI, compiled (`npm run build` writes dist/; the published package carries it).
try {
  // A server keeps its heap when idle (serve-heap.ts): set before anything else is loaded.
  if (process.argv[2] === 'serve') (await import('../dist/scripts/commands/serve-heap.js')).keepHeapWhenIdle();
  await import('../dist/scripts/cli.js');
} catch (e) {
  if (e?.code === 'ERR_MODULE_NOT_FOUND' && /dist\/scripts\/(cli|commands\/serve-heap)\.js/.test(String(e.message))) {
    process.stderr.write(
      'svckit: dist/ is missing: run "npm run build" in this checkout (or "npx tsx scripts/cli.ts" to run the sources)\n',
    );
    process.exit(2);
  }
  throw e;
}
