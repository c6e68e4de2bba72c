/**
 * `svckit serve` as the server benchmarks run it: the CLI's own serve command, in a process of its
 * own started with --expose-gc, that also answers the parent's questions (bench-questions.ts): its heap
 * (after a full collection) and resident set: what a long-running server holds.
 */
import { serveCommand } from '../../commands/serve.js';
import { answerBenchQuestions } from './bench-questions.js';

answerBenchQuestions();
// The IPC channel would keep the process alive after the server stopped.
process.exit(await serveCommand(process.argv.slice(2)));
