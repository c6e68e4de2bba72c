#!/bin/sh
# Bundles the profiling target into one file (readable line numbers in profiles).
exec npx esbuild scripts/profile-reads/serve.ts --bundle --platform=node --format=esm \
  --outfile=scripts/profile-reads/dist/serve.mjs --external:better-sqlite3 --log-level=warning \
  "--banner:js=import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);"
