import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { AdmissionPlugin } from '../admission.js';
import { type Harness, type Json, startServer, warningsOf } from '../server.testing.js';
import { validatingAdmissionPolicy } from './index.js';

const API = '/apis/admissionregistration.svc.io/v1';
const configMaps = (ns: string) => `/api/v1/namespaces/${ns}/configmaps`;
const configMap = (name: string, data: Record<string, string> = {}, labels: Record<string, string> = {}) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, labels },
  data,
});

let h: Harness;
let annotations: Record<string, string> = {};
const recorder: AdmissionPlugin = {
  name: 'TestRecorder',
  async validate(request) {
    annotations = request.auditAnnotations;
  },
};
beforeAll(async () => {
  h = await startServer({ server: { admission: [validatingAdmissionPolicy(), recorder] } });
});
afterAll(() => h.close());
afterEach(async () => {
  await h.delete(`${API}/validatingadmissionpolicybindings`);
  await h.delete(`${API}/validatingadmissionpolicies`);
  annotations = {};
});

const RULES = [{ operations: ['CREATE', 'UPDATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }];

async function policy(name: string, spec: Json): Promise<void> {
  await h.create(`${API}/validatingadmissionpolicies`, {
    apiVersion: 'admissionregistration.svc.io/v1',
    kind: 'ValidatingAdmissionPolicy',
    metadata: { name },
    spec: { matchConstraints: { resourceRules: RULES }, ...spec },
  });
}

async function binding(name: string, policyName: string, validationActions: string[], extra: Json = {}): Promise<void> {
  await h.create(`${API}/validatingadmissionpolicybindings`, {
    apiVersion: 'admissionregistration.svc.io/v1',
    kind: 'ValidatingAdmissionPolicyBinding',
    metadata: { name },
    spec: { policyName, validationActions, ...extra },
  });
}

describe('ValidatingAdmissionPolicy', () => {
  it('Deny refuses a request whose object breaks a validation, with the reason code and upstream message', async () => {
    await policy('small', { validations: [{ expression: '!has(object.data) || size(object.data) <= 1', message: 'at most one key' }] });
    await binding('small-everywhere', 'small', ['Deny']);
    expect((await h.post(configMaps(h.ns), configMap('one', { a: '1' }))).status).toBe(201);
    const res = await h.post(configMaps(h.ns), configMap('two', { a: '1', b: '2' }));
    expect(res.status).toBe(422);
    expect(res.body.reason).toBe('Invalid');
    expect(res.body.message).toBe("ValidatingAdmissionPolicy 'small' with binding 'small-everywhere' denied request: at most one key");
    // An update is judged too, with oldObject.
    await policy('no-shrink', {
      validations: [
        {
          // An emptied map is absent (omitempty), as in the real system's AdmissionReview.
          expression: 'oldObject == null || (has(object.data) ? size(object.data) : 0) >= size(oldObject.data)',
          reason: 'Forbidden',
          messageExpression: "'shrinks ' + object.metadata.name",
        },
      ],
    });
    await binding('no-shrink', 'no-shrink', ['Deny']);
    const shrink = await h.patch(`${configMaps(h.ns)}/one`, { data: { a: null } });
    expect(shrink.status).toBe(403);
    expect(shrink.body.message).toBe("ValidatingAdmissionPolicy 'no-shrink' with binding 'no-shrink' denied request: shrinks one");
  });

  it('Warn and Audit let the request through with a Warning header and an audit annotation', async () => {
    await policy('named', { validations: [{ expression: "object.metadata.name.startsWith('app-')" }] });
    await binding('named', 'named', ['Warn', 'Audit']);
    const res = await h.post(configMaps(h.ns), configMap('other'));
    expect(res.status).toBe(201);
    expect(warningsOf(res)).toEqual([
      "Validation failed for ValidatingAdmissionPolicy 'named' with binding 'named': failed expression: object.metadata.name.startsWith('app-')",
    ]);
    expect(JSON.parse(annotations['validation.policy.admission.svc.io/validation_failure']!)).toEqual([
      {
        message: "failed expression: object.metadata.name.startsWith('app-')",
        policy: 'named',
        binding: 'named',
        expressionIndex: 0,
        validationActions: ['Warn', 'Audit'],
      },
    ]);
  });

  it("a binding's matchResources narrows the policy; match conditions select; a policy without a binding does nothing", async () => {
    await policy('strict', {
      validations: [{ expression: 'false', message: 'never' }],
      matchConditions: [{ name: 'not-exempt', expression: "!has(object.metadata.labels) || !('exempt' in object.metadata.labels)" }],
    });
    expect((await h.post(configMaps(h.ns), configMap('unbound'))).status).toBe(201);
    await binding('strict-tier', 'strict', ['Deny'], {
      matchResources: { objectSelector: { matchLabels: { tier: 'gold' } }, resourceRules: RULES },
    });
    expect((await h.post(configMaps(h.ns), configMap('silver', {}, { tier: 'silver' }))).status).toBe(201);
    expect((await h.post(configMaps(h.ns), configMap('gold', {}, { tier: 'gold' }))).status).toBe(422);
    expect((await h.post(configMaps(h.ns), configMap('gold-exempt', {}, { tier: 'gold', exempt: 'yes' }))).status).toBe(201);
  });

  it('an expression that fails to evaluate follows failurePolicy; one that does not compile is refused at write', async () => {
    await policy('broken', { validations: [{ expression: 'object.data.missing == "x"' }] });
    await binding('broken', 'broken', ['Deny']);
    const res = await h.post(configMaps(h.ns), configMap('any', { a: '1' }));
    expect(res.status).toBe(422);
    expect(res.body.message).toContain('expression \'object.data.missing == "x"\' resulted in error');
    await h.delete(`${API}/validatingadmissionpolicies/broken`);
    await policy('broken', { failurePolicy: 'Ignore', validations: [{ expression: 'object.data.missing == "x"' }] });
    expect((await h.post(configMaps(h.ns), configMap('ignored', { a: '1' }))).status).toBe(201);
    const typo = await h.post(`${API}/validatingadmissionpolicies`, {
      apiVersion: 'admissionregistration.svc.io/v1',
      kind: 'ValidatingAdmissionPolicy',
      metadata: { name: 'typo' },
      spec: { validations: [{ expression: 'object.data ==' }] },
    });
    expect(typo.status).toBe(422);
    expect(typo.body.details.causes[0].field).toBe('spec.validations[0].expression');
  });
});
