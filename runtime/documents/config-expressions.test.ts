import { describe, expect, it } from 'vitest';
import { allKinds } from '../../generated/kinds.js';
import { DocumentValidator } from './index.js';

/**
 * The CEL expressions inside configuration kinds are compiled as the server compiles them when it
 * loads the file: each in its environment (`claims`, `user`, the SubjectAccessReview `request`)
 * with its expected result type, each failure a finding at the expression (file:line:column).
 */
const validator = new DocumentValidator(allKinds);

function authn(jwt: string): string {
  return `apiVersion: apiserver.svc.io/v1alpha1
kind: AuthenticationConfiguration
jwt:
  - issuer:
      url: https://issuer.example.com
      audiences: [my-app]
${jwt}`;
}

function findings(text: string): string[] {
  const [r] = validator.validateText('c.yaml', text);
  return r!.findings.map((f) => `${f.position.line}:${f.position.column} ${f.severity} ${f.message}`);
}

describe('AuthenticationConfiguration expressions', () => {
  it('accepts well-formed expressions of the right types', () => {
    const text = authn(`    claimValidationRules:
      - expression: "claims.?email_verified.orValue(false) == true"
        message: verified
    claimMappings:
      username: {expression: "'oidc:' + claims.email"}
      groups: {expression: "claims.groups"}
      uid: {expression: "claims.sub"}
      extra:
        - key: example.com/tenant
          valueExpression: "claims.tid"
    userValidationRules:
      - expression: "!user.username.startsWith('system:')"
`);
    expect(findings(text)).toEqual([]);
  });

  it('reports syntax errors, wrong result types and undeclared variables, each at its expression', () => {
    const text = authn(`    claimValidationRules:
      - expression: "claims.sub =="
      - expression: "size(claims)"
    claimMappings:
      username: {expression: "['a', 'b']"}
      groups: {expression: "1"}
      uid: {expression: "user.uid"}
      extra:
        - key: example.com/tenant
          valueExpression: "true"
    userValidationRules:
      - expression: "user.usrname == 'x'"
      - expression: "claims.sub == 'x'"
`);
    const out = findings(text);
    expect(out).toHaveLength(8);
    expect(out[0]).toMatch(
      /^8:\d+ error jwt\[0\]\.claimValidationRules\[0\]\.expression: Invalid value: "claims.sub ==": compilation failed: /,
    );
    expect(out[0]!.startsWith('8:35 ')).toBe(true); // the column of the error inside the expression
    expect(out[1]).toMatch(/^9:22 error jwt\[0\]\.claimValidationRules\[1\]\.expression: .*must evaluate to bool, but evaluates to int/);
    expect(out[2]).toMatch(
      /^11:\d+ error jwt\[0\]\.claimMappings\.username\.expression: .*must evaluate to string, but evaluates to list<string>/,
    );
    expect(out[3]).toMatch(/groups\.expression: .*must evaluate to string or list<string> or list<dyn>, but evaluates to int/);
    expect(out[4]).toMatch(/uid\.expression: .*compilation failed: .*user/);
    expect(out[5]).toMatch(/extra\[0\]\.valueExpression: .*evaluates to bool/);
    expect(out[6]).toMatch(/userValidationRules\[0\]\.expression: .*compilation failed/);
    expect(out[7]).toMatch(/userValidationRules\[1\]\.expression: .*compilation failed: .*claims/);
  });

  it('checks the email_verified rule on the syntax tree', () => {
    const unverified = authn(`    claimMappings:
      username: {expression: "claims['email']"}
`);
    expect(findings(unverified)).toEqual([
      expect.stringMatching(/^8:31 error jwt\[0\]\.claimMappings\.username\.expression: .*claims\.email_verified must be used/),
    ]);
    // "claims.email" inside a string literal is text, not a use of the claim.
    const literal = authn(`    claimMappings:
      username: {expression: "'claims.email:' + claims.sub"}
`);
    expect(findings(literal)).toEqual([]);
    const verified = authn(`    claimValidationRules:
      - expression: "claims.email_verified == true"
    claimMappings:
      username: {expression: "claims.email"}
`);
    expect(findings(verified)).toEqual([]);
    const optional = authn(`    claimMappings:
      username: {expression: "claims.?email.orValue('')"}
      extra:
        - key: example.com/email
          valueExpression: "claims.email"
`);
    expect(findings(optional)).toEqual([expect.stringMatching(/^8:31 error .*claims\.email_verified must be used/)]);
    const inExtra = authn(`    claimMappings:
      username: {expression: "claims.?email.orValue('')"}
      extra:
        - key: example.com/email-verified
          valueExpression: "string(claims.?email_verified.orValue(false))"
`);
    expect(findings(inExtra)).toEqual([]);
  });

  it('points into block scalars', () => {
    const text = authn(`    claimMappings:
      username:
        expression: |
          'oidc:' +
            claims.sub +
`);
    expect(findings(text)).toEqual([
      expect.stringMatching(/^11:25 error jwt\[0\]\.claimMappings\.username\.expression: .*compilation failed/),
    ]);
  });
});

describe('AuthorizationConfiguration matchConditions', () => {
  const authz = (conditions: string) => `apiVersion: apiserver.svc.io/v1alpha1
kind: AuthorizationConfiguration
authorizers:
  - type: Webhook
    name: webhook
    webhook:
      authorizedTTL: 5m
      unauthorizedTTL: 30s
      timeout: 3s
      subjectAccessReviewVersion: v1
      matchConditionSubjectAccessReviewVersion: v1
      failurePolicy: NoOpinion
      connectionInfo: {type: KubeConfigFile, kubeConfigFile: /etc/authz.svcconfig}
      matchConditions:
${conditions}`;

  it('compiles each condition over the SubjectAccessReview request, as a boolean', () => {
    expect(
      findings(authz(`        - expression: has(request.resourceAttributes)\n        - expression: "'admins' in request.groups"\n`)),
    ).toEqual([]);
    const out = findings(
      authz(
        `        - expression: "request.user"\n        - expression: "object.kind == 'Pod'"\n        - expression: "request.groups.exists(g, g =="\n`,
      ),
    );
    expect(out).toHaveLength(3);
    expect(out[0]).toMatch(
      /^15:\d+ error authorizers\[0\]\.webhook\.matchConditions\[0\]\.expression: .*must evaluate to bool, but evaluates to string/,
    );
    expect(out[1]).toMatch(/^16:\d+ error authorizers\[0\]\.webhook\.matchConditions\[1\]\.expression: .*compilation failed: .*object/);
    expect(out[2]).toMatch(/^17:\d+ error .*matchConditions\[2\]\.expression: .*compilation failed/);
  });
});
