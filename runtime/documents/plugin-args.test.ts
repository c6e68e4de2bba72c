import { describe, expect, it } from 'vitest';
import { allKinds } from '../../generated/kinds.js';
import { DocumentValidator } from './index.js';

/** Scheduler plugin arguments inside `profiles[].pluginConfig[].args` are defaulted and validated by the plugin's name. */
const validator = new DocumentValidator(allKinds);

const config = (pluginConfig: string) => `apiVersion: svcscheduler.config.svc.io/v1
kind: SvcSchedulerConfiguration
profiles:
  - schedulerName: default-scheduler
    pluginConfig:
${pluginConfig}`;

function check(text: string) {
  const [r] = validator.validateText('s.yaml', text, { keepDocuments: true });
  return { r: r!, lines: r!.findings.map((f) => `${f.position.line}:${f.position.column} ${f.severity} ${f.message}`) };
}

describe('scheduler plugin arguments inside pluginConfig', () => {
  it('validates args by the plugin name, with findings at their path', () => {
    const { r, lines } = check(
      config(`      - name: DefaultPreemption
        args:
          minCandidateNodesPercentage: 150
          bogus: 1
      - name: VolumeBinding
        args: {bindTimeoutSeconds: -1}
`),
    );
    expect(r.status).toBe('invalid');
    expect(lines).toEqual([
      '9:11 warning unknown field "profiles[0].pluginConfig[0].args.bogus"',
      '8:11 error profiles[0].pluginConfig[0].args.minCandidateNodesPercentage: Invalid value: 150: must be less than or equal to 100',
      expect.stringMatching(/^11:16 error profiles\[0\]\.pluginConfig\[1\]\.args\.bindTimeoutSeconds: Invalid value: -1: /),
    ]);
  });

  it('runs the args kind rules at the args path', () => {
    const { lines } = check(
      config(`      - name: DefaultPreemption
        args: {minCandidateNodesPercentage: 0, minCandidateNodesAbsolute: 0}
`),
    );
    expect(lines).toEqual([
      expect.stringMatching(
        /^7:\d+ error profiles\[0\]\.pluginConfig\[0\]\.args: Invalid value: "object": minCandidateNodesPercentage and minCandidateNodesAbsolute cannot both be zero/,
      ),
    ]);
  });

  it('defaults args (naming their kind) and leaves plugins without an args kind alone', () => {
    const { r, lines } = check(
      config(`      - name: DefaultPreemption
        args: {minCandidateNodesPercentage: 20}
      - name: VolumeBinding
      - name: example.com/custom
        args: {anything: [1, 2]}
`),
    );
    expect(lines).toEqual([]);
    const doc = r.document as { profiles: { pluginConfig: { args: unknown }[] }[] };
    expect(doc.profiles[0]!.pluginConfig.map((p) => p.args)).toEqual([
      {
        apiVersion: 'svcscheduler.config.svc.io/v1',
        kind: 'DefaultPreemptionArgs',
        minCandidateNodesPercentage: 20,
        minCandidateNodesAbsolute: 100,
      },
      { apiVersion: 'svcscheduler.config.svc.io/v1', kind: 'VolumeBindingArgs', bindTimeoutSeconds: 600 },
      { anything: [1, 2] },
    ]);
  });

  it('rejects args of another plugin', () => {
    const { lines } = check(
      config(`      - name: DefaultPreemption
        args: {kind: VolumeBindingArgs, bindTimeoutSeconds: 5}
`),
    );
    expect(lines).toEqual([
      expect.stringMatching(
        /^7:16 error profiles\[0\]\.pluginConfig\[0\]\.args\.kind: Invalid value: "VolumeBindingArgs": .*DefaultPreemptionArgs/,
      ),
    ]);
  });
});
