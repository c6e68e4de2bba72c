/**
 * kubectl 1.30 and 1.32 (the binaries the machine image ships beside its version dispatcher): an
 * everyday session, each command a case judged by its exit code and, where it matters, its output
 * as a 1.30 kube-apiserver with no nodes would make it. Each version works in its own namespace
 * of the suite's server, with its own discovery cache.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type KubectlResult, runKubectl } from '../../../reference/kubectl.testing.js';
import type { SecureServer } from '../secure-serve.js';
import { type CaseOutcome, type ClientSuite, excerpt } from './outcome.js';

const BINARIES: Record<string, string> = {
  '1.30': '/usr/lib/google-cloud-sdk/bin/kubectl.1.30',
  '1.32': '/usr/lib/google-cloud-sdk/bin/kubectl.1.32',
};

interface KubectlCase {
  name: string;
  args: string[];
  /** What a 1.30 kube-apiserver leads kubectl to: exit code (0 unless given) and output patterns. */
  code?: number;
  stdout?: RegExp[];
  stderr?: RegExp;
}

/** Why `r` is not what `c` expects, or undefined when it is. */
function judge(c: KubectlCase, r: KubectlResult): string | undefined {
  const expectedCode = c.code ?? 0;
  const output = `stdout: ${excerpt(r.stdout, 8) || '(empty)'}\nstderr: ${excerpt(r.stderr, 8) || '(empty)'}`;
  if (r.code !== expectedCode) return `exit ${r.code}, expected ${expectedCode}\n${output}`;
  const missing = (c.stdout ?? []).find((p) => !p.test(r.stdout));
  if (missing) return `stdout does not match ${missing}\n${output}`;
  if (c.stderr && !c.stderr.test(r.stderr)) return `stderr does not match ${c.stderr}\n${output}`;
  return undefined;
}

const DEPLOYMENT = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: applied
spec:
  selector:
    matchLabels: {app: applied}
  template:
    metadata:
      labels: {app: applied}
    spec:
      containers:
      - {name: web, image: nginx:1.25}
`;
const CONFIG_MAP = (value: string) => `apiVersion: v1
kind: ConfigMap
metadata:
  name: ssa
data:
  key: "${value}"
`;

/** The session, in order: later commands act on what earlier ones created. */
function session(files: { deployment: string; deploymentChanged: string; configMap: string; freshCache: string }): KubectlCase[] {
  return [
    {
      name: 'create deployment',
      args: ['create', 'deployment', 'web', '--image=nginx:1.25'],
      stdout: [/^deployment\.apps\/web created$/m],
    },
    { name: 'create job', args: ['create', 'job', 'once', '--image=busybox'], stdout: [/^job\.batch\/once created$/m] },
    {
      name: 'create cronjob',
      args: ['create', 'cronjob', 'nightly', '--image=busybox', '--schedule=0 3 * * *'],
      stdout: [/^cronjob\.batch\/nightly created$/m],
    },
    {
      name: 'create service clusterip',
      args: ['create', 'service', 'clusterip', 'web', '--tcp=80:8080'],
      stdout: [/^service\/web created$/m],
    },
    {
      name: 'create ingress',
      args: ['create', 'ingress', 'web', '--rule=web.example.com/=web:80'],
      stdout: [/^ingress\.networking\.k8s\.io\/web created$/m],
    },
    {
      name: 'create secret generic',
      args: ['create', 'secret', 'generic', 'creds', '--from-literal=user=admin'],
      stdout: [/^secret\/creds created$/m],
    },
    {
      name: 'create configmap',
      args: ['create', 'configmap', 'settings', '--from-literal=a=1'],
      stdout: [/^configmap\/settings created$/m],
    },
    { name: 'run (a pod no node will run)', args: ['run', 'pending', '--image=busybox'], stdout: [/^pod\/pending created$/m] },
    {
      name: 'get pods -o wide',
      args: ['get', 'pods', '-o', 'wide'],
      stdout: [
        /^NAME\s+READY\s+STATUS\s+RESTARTS\s+AGE\s+IP\s+NODE\s+NOMINATED NODE\s+READINESS GATES$/m,
        /^pending\s+0\/1\s+Pending\s+0\s+\S+\s+<none>\s+<none>\s+<none>\s+<none>$/m,
      ],
    },
    {
      name: 'get deployments -o wide',
      args: ['get', 'deployments', '-o', 'wide'],
      stdout: [
        /^NAME\s+READY\s+UP-TO-DATE\s+AVAILABLE\s+AGE\s+CONTAINERS\s+IMAGES\s+SELECTOR$/m,
        /^web\s+0\/1\s+0\s+0\s+\S+\s+nginx\s+nginx:1\.25\s+app=web$/m,
      ],
    },
    {
      name: 'get services -o wide',
      args: ['get', 'services', '-o', 'wide'],
      stdout: [
        /^NAME\s+TYPE\s+CLUSTER-IP\s+EXTERNAL-IP\s+PORT\(S\)\s+AGE\s+SELECTOR$/m,
        /^web\s+ClusterIP\s+\d+\.\d+\.\d+\.\d+\s+<none>\s+80\/TCP\s+\S+\s+app=web$/m,
      ],
    },
    {
      name: 'get all',
      args: ['get', 'all'],
      stdout: [/^pod\/pending\s/m, /^service\/web\s/m, /^deployment\.apps\/web\s/m, /^job\.batch\/once\s/m, /^cronjob\.batch\/nightly\s/m],
    },
    {
      name: 'describe pod',
      args: ['describe', 'pod', 'pending'],
      stdout: [/^Name:\s+pending$/m, /^Status:\s+Pending$/m, /^QoS Class:\s+BestEffort$/m, /^Events:\s+<none>$/m],
    },
    {
      name: 'describe deployment',
      args: ['describe', 'deployment', 'web'],
      stdout: [
        /^Name:\s+web$/m,
        /^Replicas:\s+1 desired \| 0 updated \| 0 total \| 0 available \| 0 unavailable$/m,
        /^StrategyType:\s+RollingUpdate$/m,
      ],
    },
    {
      name: 'describe service',
      args: ['describe', 'service', 'web'],
      stdout: [/^Name:\s+web$/m, /^Type:\s+ClusterIP$/m, /^IP:\s+\d+\.\d+\.\d+\.\d+$/m, /^Port:\s+80-8080\s+80\/TCP$/m],
    },
    // A pod with no node assigned: kube-apiserver's log location is empty and it answers 200 with no body.
    { name: 'logs of a pending pod', args: ['logs', 'pending'], stdout: [/^$/] },
    {
      name: 'autoscale deployment',
      args: ['autoscale', 'deployment', 'web', '--min=1', '--max=3', '--cpu-percent=80'],
      stdout: [/^horizontalpodautoscaler\.autoscaling\/web autoscaled$/m],
    },
    { name: 'auth whoami', args: ['auth', 'whoami'], stdout: [/^Groups\s+\[.*system:masters.*\]$/m] },
    { name: 'auth can-i', args: ['auth', 'can-i', 'create', 'deployments'], stdout: [/^yes$/m] },
    // kubectl adds an ephemeral container (pods/ephemeralcontainers); without -i it does not attach.
    {
      name: 'debug (ephemeral container, no attach)',
      args: ['debug', 'pending', '--image=busybox'],
      // kubectl prints this line on stdout.
      stdout: [/Defaulting debug container name to debugger-/],
    },
    {
      name: 'explain deployment.spec',
      args: ['explain', 'deployment.spec'],
      stdout: [/^KIND:\s+Deployment$/m, /^FIELD:\s+spec <DeploymentSpec>$/m],
    },
    {
      name: 'explain --output plaintext-openapiv2 (the Protobuf /openapi/v2)',
      args: ['explain', '--output', 'plaintext-openapiv2', 'deployment.spec'],
      stdout: [/^KIND:\s+Deployment$/m, /^RESOURCE:\s+spec <Object>$/m, /^\s+replicas\s+<integer>$/m],
    },
    {
      // With an empty cache, -v=6 shows the discovery read: /api and /apis only (aggregated), no group/version documents.
      name: 'get by short name reads aggregated discovery',
      args: ['get', 'deploy', '--cache-dir', files.freshCache, '-v=6'],
      stderr: /^(?![\s\S]*\/apis\/apps\/v1\?timeout)[\s\S]*GET \S+\/apis\?timeout=\d+s 200 OK/,
    },
    {
      name: 'api-resources',
      args: ['api-resources'],
      stdout: [/^NAME\s+SHORTNAMES\s+APIVERSION\s+NAMESPACED\s+KIND$/m, /^deployments\s+deploy\s+apps\/v1\s+true\s+Deployment$/m],
    },
    { name: 'apply -f (create)', args: ['apply', '-f', files.deployment], stdout: [/^deployment\.apps\/applied created$/m] },
    { name: 'apply -f (unchanged)', args: ['apply', '-f', files.deployment], stdout: [/^deployment\.apps\/applied unchanged$/m] },
    { name: 'apply -f (configured)', args: ['apply', '-f', files.deploymentChanged], stdout: [/^deployment\.apps\/applied configured$/m] },
    {
      name: 'apply --server-side',
      args: ['apply', '--server-side', '-f', files.configMap],
      stdout: [/^configmap\/ssa serverside-applied$/m],
    },
    {
      name: 'patch --type=strategic',
      args: [
        'patch',
        'deployment',
        'web',
        '--type=strategic',
        '-p',
        '{"spec":{"template":{"spec":{"containers":[{"name":"sidecar","image":"busybox"}]}}}}',
      ],
      stdout: [/^deployment\.apps\/web patched$/m],
    },
    {
      name: 'patch --type=merge',
      args: ['patch', 'configmap', 'settings', '--type=merge', '-p', '{"data":{"b":"2"}}'],
      stdout: [/^configmap\/settings patched$/m],
    },
    {
      name: 'patch --type=json',
      args: ['patch', 'configmap', 'settings', '--type=json', '-p', '[{"op":"replace","path":"/data/a","value":"10"}]'],
      stdout: [/^configmap\/settings patched$/m],
    },
    { name: 'label', args: ['label', 'pod', 'pending', 'tier=web'], stdout: [/^pod\/pending labeled$/m] },
    { name: 'annotate', args: ['annotate', 'deployment', 'web', 'note=hello'], stdout: [/^deployment\.apps\/web annotated$/m] },
    { name: 'scale', args: ['scale', 'deployment', 'web', '--replicas=3'], stdout: [/^deployment\.apps\/web scaled$/m] },
    // No controller manager: the deployment's status never observes its generation, so this times out as upstream does.
    {
      name: 'rollout status (no controllers: times out)',
      args: ['rollout', 'status', 'deployment/web', '--timeout=2s'],
      code: 1,
      stdout: [/Waiting for deployment spec update to be observed/],
      stderr: /timed out waiting for the condition/,
    },
    { name: 'delete pod (no node: gone at once)', args: ['delete', 'pod', 'pending'], stdout: [/^pod "pending" deleted$/m] },
    {
      name: 'delete',
      args: ['delete', 'deployment/web', 'service/web', 'configmap/settings'],
      stdout: [/^deployment\.apps "web" deleted$/m, /^service "web" deleted$/m, /^configmap "settings" deleted$/m],
    },
  ];
}

async function runVersion(version: string, binary: string, server: SecureServer, dir: string): Promise<CaseOutcome[]> {
  const namespace = `kubectl-${version.replace('.', '-')}`;
  const base = ['--kubeconfig', server.configFile, '--cache-dir', join(dir, 'cache'), '-n', namespace];
  const files = {
    deployment: join(dir, 'deployment.yaml'),
    deploymentChanged: join(dir, 'deployment-changed.yaml'),
    configMap: join(dir, 'configmap.yaml'),
    freshCache: join(dir, 'fresh-cache'),
  };
  writeFileSync(files.deployment, DEPLOYMENT);
  writeFileSync(files.deploymentChanged, DEPLOYMENT.replace('nginx:1.25', 'nginx:1.26'));
  writeFileSync(files.configMap, CONFIG_MAP('v'));
  const setup = await runKubectl([...base, 'create', 'namespace', namespace], binary);
  if (setup.code !== 0) throw new Error(`kubectl ${version} create namespace ${namespace}: ${excerpt(setup.stderr)}`);
  const cases: CaseOutcome[] = [];
  for (const c of session(files)) {
    const reason = judge(c, await runKubectl([...base, ...c.args], binary));
    cases.push({
      name: `${version} ${c.name}`,
      status: reason ? 'failed' : 'passed',
      reason: reason && `kubectl ${c.args.join(' ')}: ${reason}`,
    });
  }
  return cases;
}

export const kubectl: ClientSuite = {
  name: 'kubectl',
  async run(server: SecureServer): Promise<CaseOutcome[]> {
    const dir = mkdtempSync(join(tmpdir(), 'svckit-kubectl-versions-'));
    try {
      const cases: CaseOutcome[] = [];
      for (const [version, binary] of Object.entries(BINARIES)) {
        const versionDir = join(dir, version);
        mkdirSync(versionDir);
        cases.push(...(await runVersion(version, binary, server, versionDir)));
      }
      return cases;
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
};
