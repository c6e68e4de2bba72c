/**
 * The official Python client, Debian's python3-kubernetes (22.6.0), under pytest, its
 * configuration the server's admin kubeconfig through KUBECONFIG (what the client's own
 * e2e_test/base.py reads). By default it runs testdata/python/: what the client's e2e suite
 * exercises that needs no kubelet, written for this check. With SVCKIT_PYTHON_E2E naming a
 * checkout of kubernetes-client/python at v22.6.0 (or its kubernetes/e2e_test folder), it runs
 * that suite itself, unmodified, less the cases that need a kubelet.
 */
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runProgram } from '../../../reference/testing/program.testing.js';
import type { SecureServer } from '../secure-serve.js';
import { junitOutcomes } from './junit.js';
import { type CaseOutcome, type ClientSuite, excerpt } from './outcome.js';

/** Debian's interpreter, where python3-kubernetes is installed (a pyenv python3 on PATH has no such module). */
const PYTHON = '/usr/bin/python3';
const OWN_SUITE = new URL('testdata/python/', import.meta.url).pathname;

/** The upstream e2e cases that need a kubelet, with why: deselected and reported as skipped. */
const NEEDS_KUBELET: Record<string, string> = {
  'test_client.py::TestClient::test_pod_apis': 'waits for the pod to leave Pending, then execs into it (a kubelet runs it)',
  'test_client.py::TestClient::test_exit_code': 'execs into a running container and reads its exit codes (kubelet)',
  'test_client.py::TestClient::test_portforward_raw': 'port-forward to a running container (kubelet); upstream skips it too',
  'test_client.py::TestClient::test_portforward_http': 'port-forward to a running container (kubelet)',
};

/** The folder holding e2e_test/, from a checkout or the folder itself. */
function upstreamSuite(path: string): string {
  for (const candidate of [join(path, 'kubernetes/e2e_test'), path]) {
    if (existsSync(join(candidate, 'base.py'))) return candidate;
  }
  throw new Error(`SVCKIT_PYTHON_E2E=${path}: no kubernetes/e2e_test/base.py there`);
}

/**
 * Lays the upstream suite out as its tests expect: run from a folder holding
 * kubernetes/e2e_test/ (they open kubernetes/e2e_test/test_yaml/… by that relative path) and
 * importable as kubernetes.e2e_test, which Debian's package does not ship: the runner adds the
 * folder to the installed package's path. No kubernetes/__init__.py is copied, so the tests
 * import the installed client, never the checkout's.
 */
async function runUpstream(root: string, suite: string, report: string, env: NodeJS.ProcessEnv) {
  cpSync(suite, join(root, 'kubernetes/e2e_test'), { recursive: true });
  const runner = ['import sys, kubernetes, pytest', 'kubernetes.__path__.append(sys.argv[1])', 'sys.exit(pytest.main(sys.argv[2:]))'].join(
    '\n',
  );
  const deselect = Object.keys(NEEDS_KUBELET).flatMap((id) => ['--deselect', `kubernetes/e2e_test/${id}`]);
  return runProgram(PYTHON, ['-c', runner, join(root, 'kubernetes'), ...pytestArgs(report), ...deselect, 'kubernetes/e2e_test'], {
    cwd: root,
    env,
    timeoutMs: 240_000,
  });
}

function pytestArgs(report: string): string[] {
  return ['-p', 'no:cacheprovider', '-q', `--junitxml=${report}`, '-o', 'junit_family=xunit1'];
}

export const python: ClientSuite = {
  name: 'python',
  async run(server: SecureServer): Promise<CaseOutcome[]> {
    const root = mkdtempSync(join(tmpdir(), 'svckit-python-client-'));
    const report = join(root, 'report.xml');
    const env = { KUBECONFIG: server.configFile, PYTHONDONTWRITEBYTECODE: '1' };
    try {
      const e2e = process.env.SVCKIT_PYTHON_E2E;
      const result = e2e
        ? await runUpstream(root, upstreamSuite(e2e), report, env)
        : await runProgram(PYTHON, ['-m', 'pytest', ...pytestArgs(report), OWN_SUITE], { cwd: root, env, timeoutMs: 120_000 });
      if (!existsSync(report))
        throw new Error(`pytest wrote no report (exit ${result.code}):\n${excerpt(result.stderr || result.stdout, 20)}`);
      const cases = junitOutcomes(readFileSync(report, 'utf8'));
      if (result.code === -1) cases.push({ name: 'pytest', status: 'failed', reason: 'killed at its time limit' });
      if (!e2e) return cases;
      const skipped = Object.entries(NEEDS_KUBELET).map(([id, reason]): CaseOutcome => ({ name: id, status: 'skipped', reason }));
      return [...cases, ...skipped];
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  },
};
