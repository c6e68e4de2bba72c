#!/usr/bin/env node
// The svckit CLI, compiled (`npm run build` writes dist/; the published package carries it).
try {
  await import('../dist/scripts/cli.js');
} catch (e) {
  if (e?.code === 'ERR_MODULE_NOT_FOUND' && String(e.message).includes('dist/scripts/cli.js')) {
    process.stderr.write(
      'svckit: dist/ is missing: run "npm run build" in this checkout (or "npx tsx scripts/cli.ts" to run the sources)\n',
    );
    process.exit(2);
  }
  throw e;
}
