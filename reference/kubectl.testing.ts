/** Test support: the real kubectl, run as a process against a server the test started. */
import { type ProgramResult, runProgram } from './testing/program.testing.js';

/** The kubectl binary (`KUBECTL` overrides the one on the PATH). */
export const KUBECTL = process.env.KUBECTL ?? 'kubectl';

export type KubectlResult = ProgramResult;

/**
 * Runs kubectl (`binary`, by default KUBECTL) with `args` (the caller's `--kubeconfig`,
 * `--context`, `--cache-dir` among them); never throws on a non-zero exit (the test reads `code`),
 * only when kubectl is not installed. No user kuberc: a developer's aliases must not change what
 * the tests run.
 */
export async function runKubectl(args: readonly string[], binary = KUBECTL): Promise<KubectlResult> {
  try {
    return await runProgram(binary, args, { env: { KUBECTL_KUBERC: 'false' } });
  } catch (e) {
    throw new Error(`kubectl is not installed (no ${binary} on PATH); these tests need it`, { cause: e });
  }
}
