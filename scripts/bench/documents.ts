import { parseAllDocuments } from 'yaml';
import { allKinds } from '../../generated/kinds.js';
import { DocumentValidator } from '../../runtime/documents/index.js';
import { runCases } from './harness.js';

/** Three kinds of configuration document, varied per copy so no two are alike. */
function corpus(copies: number): string {
  const docs: string[] = [];
  for (let i = 0; i < copies; i++) {
    docs.push(`apiVersion: svcscheduler.config.svc.io/v1
kind: SvcSchedulerConfiguration
parallelism: ${8 + (i % 16)}
podInitialBackoffSeconds: 1
podMaxBackoffSeconds: ${10 + (i % 5)}
leaderElection: {leaderElect: true, leaseDuration: 15s, renewDeadline: 10s, retryPeriod: 2s}
profiles:
  - schedulerName: scheduler-${i}
    plugins:
      score:
        enabled: [{name: NodeResourcesFit, weight: ${1 + (i % 9)}}, {name: ImageLocality, weight: 1}]
    pluginConfig:
      - name: DefaultPreemption
        args: {minCandidateNodesPercentage: 10, minCandidateNodesAbsolute: 100}`);
    docs.push(`apiVersion: eventratelimit.admission.svc.io/v1alpha1
kind: Configuration
limits:
  - {type: Namespace, qps: ${5 + (i % 7)}, burst: 20, cacheSize: 2000}
  - {type: User, qps: 10, burst: 50}`);
    docs.push(`apiVersion: svcadm.svc.io/v1beta3
kind: InitConfiguration
bootstrapTokens:
  - {token: abcdef.0123456789abcdef, ttl: 24h, usages: [signing, authentication]}
nodeRegistration: {name: node-${i}, criSocket: unix:///run/containerd.sock, imagePullPolicy: IfNotPresent}
localAPIEndpoint: {advertiseAddress: 10.0.0.${i % 250}, bindPort: 6443}`);
  }
  return docs.join('\n---\n');
}

/** `svckit validate` throughput: documents per second, beside parsing the same YAML alone. */
export async function benchDocuments(): Promise<void> {
  const copies = 1000;
  const text = corpus(copies);
  const validator = new DocumentValidator(allKinds);
  const results = await runCases(`svckit validate over ${copies * 3} documents (one file)`, [
    {
      name: `validate ${copies * 3} documents`,
      ours: () => {
        const r = validator.validateText('corpus.yaml', text);
        if (r.some((d) => d.status !== 'valid')) throw new Error('the corpus should be valid');
      },
      peer: { name: 'yaml parse only', run: () => parseAllDocuments(text).forEach((d) => d.toJS()) },
      runs: 3,
    },
  ]);
  const r = results[0]!;
  process.stdout.write(
    `documents per second: ${Math.round((copies * 3) / (r.oursMs / 1000))} (parse alone: ${Math.round((copies * 3) / (r.peerMs / 1000))})\n`,
  );
}
