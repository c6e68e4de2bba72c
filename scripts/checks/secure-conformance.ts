/**
 * CI step: the whole conformance suite against `svckit serve --secure`, as a user runs it: the
 * server started as a separate process (HTTPS, client certificates, RBAC), the kit reading the
 * client config file the server printed (the admin certificate). The authorization scenarios run
 * as the kit's restricted user on the same server. Exit code: the kit's.
 *
 *   npx tsx scripts/checks/secure-conformance.ts [-- <more svckit conformance flags>]
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { runConformanceCli } from '../../conformance/index.js';
import { cliArgs } from '../commands/cli.testing.js';

const WINDOW = ['--history-window', '8s', '--continue-ttl', '5s'];
/** The alpha WatchList gate on, as the in-process run: the initial-events scenarios run too. */
const WATCH_LIST = ['--feature-gates', 'WatchList=true'];

async function main(extra: string[]): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'svckit-secure-conformance-'));
  const server = spawn(
    process.execPath,
    cliArgs('serve', '--secure', '--cert-dir', dir, '--port', '0', '--store', 'memory', ...WATCH_LIST, ...WINDOW),
    {
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  try {
    const lines = createInterface({ input: server.stdout })[Symbol.asyncIterator]();
    const listening = String((await lines.next()).value ?? '');
    const config = /^client config \(admin, system:masters\): (\S+)$/.exec(String((await lines.next()).value ?? ''))?.[1];
    if (!listening.startsWith('listening on https://') || !config) throw new Error(`svckit serve --secure did not start: ${listening}`);
    process.stderr.write(`${listening}, client config ${config}\n`);
    return await runConformanceCli(['--config', config, ...WINDOW, ...extra], {
      stdout: (text) => process.stdout.write(text),
      stderr: process.stderr,
    });
  } finally {
    server.kill('SIGTERM');
    rmSync(dir, { recursive: true, force: true });
  }
}

process.exitCode = await main(process.argv.slice(2));
