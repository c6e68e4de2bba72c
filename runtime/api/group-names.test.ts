import { describe, expect, it } from 'vitest';
import { apiVersionWithSuffix, groupWithSuffix } from './group-names.js';

describe('group names under a suffix', () => {
  it('renames spec groups, apiVersions and keys a spec group prefixes; leaves the rest', () => {
    expect(groupWithSuffix('rbac.authorization.svc.io', 'k8s.io')).toBe('rbac.authorization.k8s.io');
    expect(apiVersionWithSuffix('admission.svc.io/v1', 'k8s.io')).toBe('admission.k8s.io/v1');
    expect(apiVersionWithSuffix('authorization.svc.io/decision', 'k8s.io')).toBe('authorization.k8s.io/decision');
    // The bare suffix prefixes upstream's `k8s.io/deprecated`.
    expect(apiVersionWithSuffix('svc.io/deprecated', 'k8s.io')).toBe('k8s.io/deprecated');
    for (const kept of ['apps/v1', 'v1', 'example.io/v1', 'notsvc.io/v1', 'example.svc.io.com/v1'])
      expect(apiVersionWithSuffix(kept, 'k8s.io')).toBe(kept);
    expect(apiVersionWithSuffix('svc.io/deprecated', 'svc.io')).toBe('svc.io/deprecated');
  });
});
