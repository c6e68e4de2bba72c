import { describe, expect, it } from 'vitest';
import { allKinds } from '../../generated/kinds.js';
import { DocumentValidator } from './index.js';

const validator = new DocumentValidator(allKinds);

const encryption = (kms: string) => `apiVersion: apiserver.config.svc.io/v1
kind: EncryptionConfiguration
resources:
  - resources: [secrets]
    providers:
      - kms: {name: plugin, endpoint: "unix:///run/kms.sock"${kms}}
`;

function check(text: string) {
  const [r] = validator.validateText('e.yaml', text, { keepDocuments: true });
  const doc = r!.document as { resources: { providers: { kms: Record<string, unknown> }[] }[] };
  return { r: r!, kms: doc.resources[0]!.providers[0]!.kms };
}

describe('KMS cachesize', () => {
  it('defaults to 1000 for v1 providers (apiVersion unset means v1)', () => {
    expect(check(encryption('')).kms).toMatchObject({ apiVersion: 'v1', cachesize: 1000 });
    expect(check(encryption(', apiVersion: v1, cachesize: -1')).kms).toMatchObject({ cachesize: -1 });
  });

  it('is neither defaulted nor accepted for v2 providers', () => {
    const { r, kms } = check(encryption(', apiVersion: v2'));
    expect(r.status).toBe('valid');
    expect(kms.cachesize).toBeUndefined();
    const bad = check(encryption(', apiVersion: v2, cachesize: 10')).r;
    expect(bad.status).toBe('invalid');
    expect(bad.findings.map((f) => `${f.position.line}:${f.position.column} ${f.message}`)).toEqual([
      expect.stringMatching(/^6:\d+ resources\[0\]\.providers\[0\]\.kms\.cachesize: .*cachesize is not supported in v2/),
    ]);
  });
});
