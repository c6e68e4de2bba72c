/**
 * `svckit serve` as the server benchmarks run it: the CLI's own serve command, in a process of its
 * own started with --expose-gc, that also answers the parent's "memory" message with its heap
 * (after a full collection) and resident set: what a long-running server holds.
 */
import { serveCommand } from '../../commands/serve.js';
import { answerMemoryQuestions } from './memory-reply.js';

answerMemoryQuestions();
// The IPC channel would keep the process alive after the server stopped.
process.exit(await serveCommand(process.argv.slice(2)));
