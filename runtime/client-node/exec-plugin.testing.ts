/** Real exec credential plugins for the client's tests: node scripts that record their requests and count their runs. */
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { EXEC_INFO_ENV } from './index.js';

/**
 * Writes an executable node script `dir/name` that parses its request from `infoEnv` into
 * `request`, counts its runs in `runs` (from 1), then runs `body` (which prints the answer).
 */
export function writePlugin(dir: string, name: string, body: string, infoEnv = EXEC_INFO_ENV): string {
  const path = join(dir, name);
  writeFileSync(
    path,
    `#!/usr/bin/env node
const fs = require('node:fs');
const request = JSON.parse(process.env.${infoEnv});
const runs = Number(fs.existsSync(__filename + '.runs') ? fs.readFileSync(__filename + '.runs', 'utf8') : 0) + 1;
fs.writeFileSync(__filename + '.runs', String(runs));
fs.writeFileSync(__filename + '.request', JSON.stringify(request));
${body}
`,
  );
  chmodSync(path, 0o755);
  return path;
}

/** How many times the plugin ran. */
export const runsOf = (plugin: string) => Number(readFileSync(`${plugin}.runs`, 'utf8'));
/** The request of the plugin's last run. */
export const requestOf = (plugin: string) => JSON.parse(readFileSync(`${plugin}.request`, 'utf8')) as Record<string, unknown>;
