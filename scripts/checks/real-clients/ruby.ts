/** Debian's ruby-kubeclient: testdata/ruby/everyday.rb, each case a line "ok <case>" or "FAIL <case>: <why>". */
import { runProgram } from '../../../reference/testing/program.testing.js';
import type { SecureServer } from '../secure-serve.js';
import { type CaseOutcome, type ClientSuite, excerpt } from './outcome.js';

const SCRIPT = new URL('testdata/ruby/everyday.rb', import.meta.url).pathname;

/** The script's case lines; anything else it printed is kept for a failure with no case line. */
export function rubyOutcomes(stdout: string): CaseOutcome[] {
  const cases: CaseOutcome[] = [];
  for (const line of stdout.split('\n')) {
    const ok = /^ok (.+)$/.exec(line);
    const fail = /^FAIL (.+?): (.*)$/.exec(line);
    if (ok) cases.push({ name: ok[1]!, status: 'passed' });
    else if (fail) cases.push({ name: fail[1]!, status: 'failed', reason: fail[2]! });
  }
  return cases;
}

export const ruby: ClientSuite = {
  name: 'ruby',
  async run(server: SecureServer): Promise<CaseOutcome[]> {
    const result = await runProgram('ruby', [SCRIPT], { env: { KUBECONFIG: server.configFile }, timeoutMs: 120_000 });
    const cases = rubyOutcomes(result.stdout);
    if (!/^\d+ passed, \d+ failed$/m.test(result.stdout)) {
      cases.push({
        name: 'everyday.rb',
        status: 'failed',
        reason: `stopped before its closing line (exit ${result.code}): ${excerpt(result.stderr)}`,
      });
    }
    return cases;
  },
};
