import type { HandlerCatalog } from '../../runtime/server/index.js';
import { customResourceDefinitions } from '../custom-resources/index.js';
import { reviewAccess, reviewOwnAccess, reviewOwnRules } from './access-review.js';
import { approveCertificateRequest, certificateRequestor } from './approval.js';
import { builtinDefaulters } from './defaults.js';
import { componentStatuses } from './component-statuses.js';
import { evict } from './eviction.js';
import { jobSelector } from './jobs.js';
import { podAdmission } from './pods.js';
import { serviceClusterIPs } from './services.js';
import { bindPod, bindPodSubresource } from './pod-binding.js';
import { podLog, podPortForward, podStream } from './pod-connect.js';
import { finalizeNamespace, namespaceLifecycle } from './namespaces.js';
import { namespaceDefaults } from './namespace-defaults.js';
import { rbacEscalation } from './rbac-escalation.js';
import { clusterRoleAggregation } from './role-aggregation.js';
import { reviewToken } from './token-review.js';
import { reviewSelf } from './self-subject-review.js';
import { tokenRequest } from './service-account-token.js';

export { tokenRequest, type TokenRequestOptions } from './service-account-token.js';
export { type NamespaceDefaultsOptions, namespaceDefaults } from './namespace-defaults.js';
export { DEFAULT_SERVICE_CIDR, kubernetesServiceIP, parseServiceCidr, serviceClusterIPs } from './services.js';
import { stringData } from './secrets.js';
import { dataSizeLimit } from './data-size.js';
import { admissionPolicyExpressions, webhookMatchConditions } from './webhook-configurations.js';

/**
 * The named handlers the built-in kinds declare in their registrations (`x-svc-resource` hooks,
 * virtual and subresource handlers), by name. The generic server looks names up here (and in the
 * catalogue a project passes); it never names a kind itself.
 */
export const builtinHandlers: HandlerCatalog = {
  hooks: {
    'namespace-lifecycle': namespaceLifecycle,
    // Without a CA to publish: the reference server gives its own (namespaceDefaults({ rootCa })).
    'namespace-defaults': namespaceDefaults(),
    'secret-string-data': stringData,
    'data-size-limit': dataSizeLimit,
    'webhook-match-conditions': webhookMatchConditions,
    'admission-policy-expressions': admissionPolicyExpressions,
    'custom-resource-definitions': customResourceDefinitions,
    'csr-requestor': certificateRequestor,
    'rbac-escalation': rbacEscalation,
    'clusterrole-aggregation': clusterRoleAggregation,
    'component-statuses': componentStatuses,
    'pod-admission': podAdmission,
    'service-cluster-ip': serviceClusterIPs(),
    'job-selector': jobSelector,
  },
  virtual: {
    'access-review': reviewAccess,
    'self-access-review': reviewOwnAccess,
    'self-rules-review': reviewOwnRules,
    'token-review': reviewToken,
    'self-subject-review': reviewSelf,
    'pod-binding': bindPod,
  },
  subresources: {
    eviction: evict,
    'pod-binding': bindPodSubresource,
    'pod-log': podLog,
    'pod-stream': podStream,
    'pod-port-forward': podPortForward,
    finalize: finalizeNamespace,
    'csr-approval': approveCertificateRequest,
    // Answers 404 until the server is given a token issuer (the reference server always is).
    'service-account-token': tokenRequest(),
  },
  defaulters: builtinDefaulters,
};
