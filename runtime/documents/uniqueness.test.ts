import { describe, expect, it } from 'vitest';
import { allKinds } from '../../generated/kinds.js';
import { DocumentValidator } from './index.js';

/** A repeated entry is reported at the entry that repeats, naming the repeated key, not at the list. */
const validator = new DocumentValidator(allKinds);

function lines(text: string): string[] {
  const [r] = validator.validateText('u.yaml', text);
  return r!.findings.map((f) => `${f.position.line}:${f.position.column} ${f.message}`);
}

describe('uniqueness findings', () => {
  it('points a repeated issuer URL at the second authenticator', () => {
    const out = lines(`apiVersion: apiserver.svc.io/v1alpha1
kind: AuthenticationConfiguration
jwt:
  - issuer: {url: "https://a.example.com", audiences: [x]}
    claimMappings: {username: {claim: sub, prefix: ""}}
  - issuer: {url: "https://a.example.com", audiences: [y]}
    claimMappings: {username: {claim: sub, prefix: ""}}
`);
    expect(out).toEqual([expect.stringMatching(/^6:\d+ jwt\[1\]\.issuer\.url: Duplicate value: "https:\/\/a\.example\.com"/)]);
  });

  it('points a repeated extra key at the entry, naming the key', () => {
    const out = lines(`apiVersion: apiserver.svc.io/v1alpha1
kind: AuthenticationConfiguration
jwt:
  - issuer: {url: "https://a.example.com", audiences: [x]}
    claimMappings:
      username: {claim: sub, prefix: ""}
      extra:
        - {key: example.com/a, valueExpression: claims.a}
        - {key: example.com/a, valueExpression: claims.b}
`);
    expect(out).toEqual([expect.stringMatching(/^9:11 jwt\[0\]\.claimMappings\.extra\[1\]: Duplicate value: .*"example.com\/a"/)]);
  });

  it('points a repeated resource name at the repetition', () => {
    const out = lines(`apiVersion: apiserver.config.svc.io/v1
kind: EncryptionConfiguration
resources:
  - resources: [secrets, configmaps, secrets]
    providers: [{identity: {}}]
`);
    expect(out).toEqual(['4:38 resources[0].resources[2]: Duplicate value: "secrets"']);
  });
});
