/** Test support: the real kubectl, run as a process against a server the test started. */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** The kubectl binary (`KUBECTL` overrides the one on the PATH). */
export const KUBECTL = process.env.KUBECTL ?? 'kubectl';

export interface KubectlResult {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs kubectl with `args` (the caller's `--kubeconfig`, `--context`, `--cache-dir` among them);
 * never throws on a non-zero exit (the test reads `code`), only when kubectl is not installed.
 * No user kuberc: a developer's aliases must not change what the tests run.
 */
export async function runKubectl(args: readonly string[]): Promise<KubectlResult> {
  try {
    const { stdout, stderr } = await run(KUBECTL, [...args], { timeout: 30_000, env: { ...process.env, KUBECTL_KUBERC: 'false' } });
    return { code: 0, stdout, stderr };
  } catch (e) {
    const err = e as { code?: number | string; stdout?: string; stderr?: string };
    if (err.code === 'ENOENT') throw new Error(`kubectl is not installed (no ${KUBECTL} on PATH); these tests need it`);
    return { code: typeof err.code === 'number' ? err.code : -1, stdout: err.stdout ?? '', stderr: err.stderr ?? '' };
  }
}
