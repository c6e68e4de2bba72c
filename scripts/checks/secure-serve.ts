/**
 * Checks' support: `svckit serve --secure` started as a separate process, as a user runs it (the
 * compiled bin, built first when stale), on a free loopback port (`--port 0`), with the admin
 * client config it prints (a client certificate for system:masters). Used by the secure
 * conformance run and the real-clients check.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { compiledCliArgs } from '../commands/compiled.testing.js';

export interface SecureServer {
  /** `https://127.0.0.1:<port>` */
  url: string;
  /** The admin kubeconfig the server wrote (system:masters). */
  configFile: string;
  /** The directory the server's certificates and kubeconfig are in; removed by `close`. */
  dir: string;
  close(): Promise<void>;
}

/**
 * Starts `svckit serve --secure --port 0 --cert-dir <temp> <args>` and waits for its two opening
 * lines. `stderr` is where the server's own log goes (inherited by default).
 */
export async function startSecureServe(args: readonly string[], stderr: 'inherit' | 'ignore' | number = 'inherit'): Promise<SecureServer> {
  const dir = mkdtempSync(join(tmpdir(), 'svckit-secure-'));
  const server = spawn(process.execPath, compiledCliArgs('serve', '--secure', '--cert-dir', dir, '--port', '0', ...args), {
    stdio: ['ignore', 'pipe', stderr],
  });
  const exited = new Promise<void>((resolve) => server.once('exit', () => resolve()));
  const close = async (): Promise<void> => {
    if (server.exitCode === null && server.signalCode === null) {
      server.kill('SIGTERM');
      await exited;
    }
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const lines = createInterface({ input: server.stdout as Readable })[Symbol.asyncIterator]();
    const listening = String((await lines.next()).value ?? '');
    const configFile = /^client config \(admin, system:masters\): (\S+)$/.exec(String((await lines.next()).value ?? ''))?.[1];
    const url = /^listening on (https:\/\/\S+)$/.exec(listening)?.[1];
    if (!url || !configFile) throw new Error(`svckit serve --secure did not start: ${listening}`);
    return { url, configFile, dir, close };
  } catch (e) {
    await close();
    throw e;
  }
}
