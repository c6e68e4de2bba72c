/**
 * @kubernetes/client-node (this repository's devDependency, 1.4): the programs in
 * testdata/client-node/, each in the style of one of the client's shipped examples that needs no
 * kubelet, run with plain node, the server named by KUBECONFIG as the examples read it. A case
 * passes when its program exits 0.
 */
import { readdirSync } from 'node:fs';
import { runProgram } from '../../../reference/testing/program.testing.js';
import type { SecureServer } from '../secure-serve.js';
import { type CaseOutcome, type ClientSuite, excerpt } from './outcome.js';

const EXAMPLES = new URL('testdata/client-node/', import.meta.url).pathname;

/** Node's report of an uncaught error from its first line naming the error (node's own frame lines dropped). */
function fromTheError(output: string): string {
  const lines = output.split('\n');
  const first = lines.findIndex((l) => /\w*(Error|Exception)\b/.test(l) && !l.includes('triggerUncaughtException'));
  return lines.slice(Math.max(first, 0)).join('\n');
}

export const clientNode: ClientSuite = {
  name: 'client-node',
  async run(server: SecureServer): Promise<CaseOutcome[]> {
    const programs = readdirSync(EXAMPLES)
      .filter((f) => f.endsWith('.mjs'))
      .sort();
    const cases: CaseOutcome[] = [];
    for (const program of programs) {
      const r = await runProgram(process.execPath, [program], { cwd: EXAMPLES, env: { KUBECONFIG: server.configFile }, timeoutMs: 30_000 });
      const reason = r.code === 0 ? undefined : `exit ${r.code}: ${excerpt(fromTheError(r.stderr || r.stdout), 10)}`;
      cases.push({ name: program, status: reason ? 'failed' : 'passed', reason });
    }
    return cases;
  },
};
