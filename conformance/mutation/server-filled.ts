/**
 * Faults of the clients profile (conformance/scenarios/clients/): each makes a correct server answer
 * on one kind of path as a server that does not fill in what a 1.30 kube-apiserver does, so that the
 * scenario checking that behaviour has to notice.
 */
import { isObject } from '../json.js';
import type { Json, JsonObject } from '../types.js';
import { editJson, withJson } from './edits.js';
import type { Mutation } from './types.js';

const RULE = 'upstream-parity.md#Clients';

/** The object at `path` below `v` (keys and list indexes), if every step is there. */
function at(v: Json | undefined, ...path: (string | number)[]): JsonObject | undefined {
  let cur: Json | undefined = v;
  for (const key of path) {
    if (typeof key === 'number') cur = Array.isArray(cur) ? cur[key] : undefined;
    else cur = isObject(cur) ? cur[key] : undefined;
  }
  return isObject(cur) ? cur : undefined;
}

/** Deletes the named keys of an object; whether any was there. */
function drop(o: JsonObject | undefined, ...keys: string[]): boolean {
  if (!o) return false;
  let changed = false;
  for (const k of keys) {
    if (k in o) {
      delete o[k];
      changed = true;
    }
  }
  return changed;
}

export const SERVER_FILLED_MUTATIONS: readonly Mutation[] = [
  {
    id: 'zero-values-kept',
    description: 'keeps the empty strings of non-pointer fields a Deployment was created with, instead of defaulting them',
    rule: `${RULE}: zero values`,
    caughtBy: ['core/clients/zero-values-unset-*'],
    match: { method: 'POST', path: /\/deployments$/ },
    response: (r) =>
      r.status !== 201
        ? undefined
        : editJson(r, (d) => {
            const pod = at(d, 'spec', 'template', 'spec');
            const container = at(pod, 'containers', 0);
            if (!pod || !container) return false;
            container.imagePullPolicy = '';
            pod.restartPolicy = '';
            return true;
          }),
  },
  {
    id: 'pod-not-filled',
    description: 'stores a created Pod as sent: no status, no service account or token volume, no default tolerations or priority',
    rule: `${RULE}: pod`,
    caughtBy: ['core/clients/pod-server-filled'],
    match: { method: 'POST', path: /\/pods$/ },
    response: (r) =>
      r.status !== 201
        ? undefined
        : editJson(r, (p) => {
            const spec = at(p, 'spec');
            for (const c of Array.isArray(spec?.containers) ? spec.containers : []) if (isObject(c)) delete c.volumeMounts;
            return (
              drop(p, 'status') ||
              drop(spec, 'serviceAccountName', 'serviceAccount', 'volumes', 'tolerations', 'priority', 'preemptionPolicy')
            );
          }),
  },
  {
    id: 'service-ip-double-allocated',
    description: 'gives a Service the cluster IP it asks for even while another Service holds it',
    rule: `${RULE}: service`,
    caughtBy: ['core/clients/service-cluster-ip'],
    match: { method: 'POST', path: /\/services$/ },
    response: async (r, ctx) => {
      if (r.status !== 422 || !r.body.toString('utf8').includes('already allocated')) return undefined;
      const sent = JSON.parse(ctx.request.body.toString('utf8')) as JsonObject;
      const spec = at(sent, 'spec') ?? {};
      return withJson(r, { ...sent, spec: { ...spec, clusterIPs: [spec.clusterIP ?? ''] } }, 201);
    },
  },
  {
    id: 'job-legacy-labels-missing',
    description:
      'labels a Job’s pod template with the batch.kubernetes.io forms only (no job-name, controller-uid), as releases after 1.30 may',
    rule: `${RULE}: job`,
    caughtBy: ['core/clients/job-selector'],
    match: { method: 'GET', path: /\/jobs\/[^/]+$/ },
    response: (r) =>
      editJson(r, (j) => {
        const fromTemplate = drop(at(j, 'spec', 'template', 'metadata', 'labels'), 'job-name', 'controller-uid');
        const fromJob = drop(at(j, 'metadata', 'labels'), 'job-name', 'controller-uid');
        return fromTemplate || fromJob;
      }),
  },
  {
    id: 'namespace-name-label-as-written',
    description: 'stores the kubernetes.io/metadata.name label of a namespace as a write sends it',
    rule: `${RULE}: namespaces`,
    caughtBy: ['core/clients/namespace-name-label'],
    match: { method: 'PATCH', path: /^\/api\/v1\/namespaces\/[^/]+$/ },
    response: (r, ctx) => {
      const sent = at(JSON.parse(ctx.request.body.toString('utf8')) as Json, 'metadata', 'labels');
      const written = sent?.['kubernetes.io/metadata.name'];
      if (typeof written !== 'string') return undefined;
      return editJson(r, (ns) => {
        const labels = at(ns, 'metadata', 'labels');
        if (!labels) return false;
        labels['kubernetes.io/metadata.name'] = written;
        return true;
      });
    },
  },
  {
    id: 'system-objects-missing',
    description: 'starts without kube-system, kube-public, kube-node-lease and the default/kubernetes Service',
    rule: `${RULE}: system objects`,
    caughtBy: ['core/clients/system-namespaces-and-kubernetes-service'],
    match: {
      method: 'GET',
      path: /^\/api\/v1\/namespaces\/(kube-system|kube-public|kube-node-lease|default\/(services|endpoints)\/kubernetes)$/,
    },
    response: (r) =>
      withJson(
        r,
        { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'not found', reason: 'NotFound', code: 404 },
        404,
      ),
  },
  {
    id: 'deprecated-fields-dropped',
    description: 'drops the deprecated Service spec.loadBalancerIP and Node spec.externalID as unknown fields',
    rule: `${RULE}: deprecated fields`,
    caughtBy: ['core/clients/deprecated-fields-kept'],
    match: { method: 'POST', path: /\/(services|nodes)$/ },
    response: (r) => (r.status !== 201 ? undefined : editJson(r, (o) => drop(at(o, 'spec'), 'loadBalancerIP', 'externalID'))),
  },
];
