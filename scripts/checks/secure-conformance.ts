/**
 * CI step: the whole conformance suite against `svckit serve --secure`, as a user runs it: the
 * server started as a separate process (HTTPS, client certificates, RBAC), the kit reading the
 * client config file the server printed (the admin certificate). The authorization scenarios run
 * as the kit's restricted user on the same server. Exit code: the kit's.
 *
 *   npx tsx scripts/checks/secure-conformance.ts [-- <more svckit conformance flags>]
 */
import { runConformanceCli } from '../../conformance/index.js';
import { startSecureServe } from './secure-serve.js';

const WINDOW = ['--history-window', '8s', '--continue-ttl', '5s'];
/** The alpha WatchList gate on, as the in-process run: the initial-events scenarios run too. */
const WATCH_LIST = ['--feature-gates', 'WatchList=true'];
/**
 * Every controller a cluster's first minutes run, the root CA publisher included: the kit's
 * counting scenarios list Secrets, which no controller creates in a fresh namespace.
 */
const CONTROLLERS = ['--controllers', '*'];

async function main(extra: string[]): Promise<number> {
  const server = await startSecureServe(['--store', 'memory', ...WATCH_LIST, ...WINDOW, ...CONTROLLERS]);
  try {
    process.stderr.write(`listening on ${server.url}, client config ${server.configFile}\n`);
    return await runConformanceCli(['--config', server.configFile, ...WINDOW, ...extra], {
      stdout: (text) => process.stdout.write(text),
      stderr: process.stderr,
    });
  } finally {
    await server.close();
  }
}

process.exitCode = await main(process.argv.slice(2));
