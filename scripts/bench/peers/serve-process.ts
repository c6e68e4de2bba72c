/**
 * `svckit serve` as the server benchmarks run it: the CLI's own serve command from the compiled
 * dist/, bundled (what the bin runs; sources through tsx would time its transforms too), in a process of
 * its own started with --expose-gc, that also answers the parent's questions (bench-questions.ts):
 * its heap (after a full collection) and resident set, and its CPU profile.
 */
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { answerBenchQuestions } from './bench-questions.js';

const COMPILED = pathToFileURL(join(fileURLToPath(new URL('../../../', import.meta.url)), 'dist/scripts/commands/serve-module.js')).href;
const { loadServeCommand } = (await import(COMPILED)) as typeof import('../../commands/serve-module.js');
const { serveCommand } = await loadServeCommand();

answerBenchQuestions();
// The IPC channel would keep the process alive after the server stopped.
process.exit(await serveCommand(process.argv.slice(2)));
