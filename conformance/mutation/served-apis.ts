/**
 * Faults of the clients profile (conformance/scenarios/clients/): each makes a correct server
 * answer one of the APIs the official clients call as a server lacking it would, so that the
 * scenario checking that API has to notice.
 */
import { isObject } from '../json.js';
import { editJson, sentObject, statusOf, withJson } from './edits.js';
import type { Mutation, ProxiedRequest } from './types.js';

/** Replaces the JSON body of a request (the proxy forwards the bytes as changed). */
function rewriteBody(request: ProxiedRequest, edit: (body: Record<string, unknown>) => boolean): boolean {
  const body = sentObject(request);
  if (!body || !edit(body)) return false;
  request.body = Buffer.from(JSON.stringify(body));
  return true;
}

export const API_MUTATIONS: readonly Mutation[] = [
  {
    id: 'self-subject-review-anonymous',
    description: 'answers a SelfSubjectReview with an empty user, as if the caller were nobody',
    rule: 'upstream-parity.md#Clients: self subject review',
    caughtBy: ['core/clients/self-subject-review'],
    match: { method: 'POST', path: /\/selfsubjectreviews$/ },
    response: (r) =>
      editJson(r, (body) => {
        if (!isObject(body.status)) return false;
        body.status = { userInfo: { username: '' } };
        return true;
      }),
  },
  {
    id: 'pod-log-200-before-binding',
    description: 'answers the log of an unbound pod 200 with an empty body instead of 204',
    rule: 'upstream-parity.md#Clients: pod connections without a node',
    caughtBy: ['core/clients/pod-log-before-binding'],
    match: { method: 'GET', path: /\/pods\/[^/]+\/log$/ },
    response: (r) => (r.status === 204 ? { ...r, status: 200 } : undefined),
  },
  {
    id: 'pod-exec-without-host-other-message',
    description: 'refuses exec, attach and portforward of an unbound pod with its own words instead of upstream’s',
    rule: 'upstream-parity.md#Clients: pod connections without a node',
    caughtBy: ['core/clients/pod-exec-without-host'],
    match: { path: /\/pods\/[^/]+\/(exec|attach|portforward)$/ },
    response: (r) => {
      const status = statusOf(r);
      if (!status || typeof status.message !== 'string' || !status.message.includes('does not have a host')) return undefined;
      return withJson(r, { ...status, message: 'the pod is not running on a node' });
    },
  },
  {
    id: 'pod-binding-rebinds',
    description: 'binds a pod that is already bound again, answering Success instead of 409',
    rule: 'upstream-parity.md#Clients: pod binding',
    caughtBy: ['core/clients/pod-binding-once'],
    match: { method: 'POST', path: /\/pods\/[^/]+\/binding$/ },
    response: (r) =>
      r.status === 409 ? withJson(r, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 }, 201) : undefined,
  },
  {
    id: 'ephemeral-containers-patch-whole-pod',
    description: 'applies a patch of pods/<name>/ephemeralcontainers to the whole pod (labels included)',
    rule: 'upstream-parity.md#Clients: ephemeral containers',
    caughtBy: ['core/clients/pod-ephemeral-containers-patch'],
    match: { method: 'PATCH', path: /\/pods\/[^/]+\/ephemeralcontainers$/ },
    request: (req) => {
      req.path = req.path.replace(/\/ephemeralcontainers$/, '');
      return true;
    },
  },
  {
    id: 'hpa-v1-cpu-target-dropped',
    description: 'loses targetCPUUtilizationPercentage of an autoscaling/v1 HorizontalPodAutoscaler on the way to storage',
    rule: 'upstream-parity.md#Clients: autoscaling v1',
    caughtBy: ['core/clients/hpa-v1-target-cpu'],
    match: { method: ['POST', 'PUT'], path: /^\/apis\/autoscaling\/v1\/.*horizontalpodautoscalers/ },
    request: (req) =>
      rewriteBody(req, (body) => {
        if (!isObject(body.spec) || body.spec.targetCPUUtilizationPercentage === undefined) return false;
        delete body.spec.targetCPUUtilizationPercentage;
        return true;
      }),
  },
];
