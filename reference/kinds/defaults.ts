import type { TypeDefaulter } from '../../runtime/server/index.js';

/**
 * The defaults of built-in types that a schema `default` cannot say, as upstream's hand-written
 * `SetDefaults_<Type>` functions of 1.30 (pkg/apis/core/v1, batch/v1, apps/v1 defaults.go), by
 * the schema's type name. They run after the schema defaults, wherever the type appears.
 */
export const builtinDefaulters: Readonly<Record<string, TypeDefaulter>> = {
  'core.v1.Pod': defaultPod,
  'core.v1.PodSpec': defaultPodSpec,
  'core.v1.Container': defaultContainer,
  'core.v1.Service': defaultService,
  'batch.v1.Job': defaultJob,
  'apps.v1.Deployment': defaultDeployment,
};

type Obj = Record<string, unknown>;

function isObj(v: unknown): v is Obj {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function objectAt(parent: Obj, key: string): Obj {
  const v = parent[key];
  if (isObj(v)) return v;
  const fresh: Obj = {};
  parent[key] = fresh;
  return fresh;
}

function listAt(parent: Obj, key: string): Obj[] {
  const v = parent[key];
  return Array.isArray(v) ? v.filter(isObj) : [];
}

/** A Pod (not a template): service links on, and requests default to limits (SetDefaults_Pod). */
function defaultPod(pod: Obj): void {
  const spec = objectAt(pod, 'spec');
  spec.enableServiceLinks ??= true;
  for (const c of [...listAt(spec, 'initContainers'), ...listAt(spec, 'containers')]) {
    const resources = objectAt(c, 'resources');
    const limits = resources.limits;
    if (!isObj(limits) || Object.keys(limits).length === 0) continue;
    const requests = objectAt(resources, 'requests');
    for (const [name, quantity] of Object.entries(limits)) requests[name] ??= quantity;
  }
}

/** `serviceAccount` is the deprecated alias of `serviceAccountName`, kept equal by upstream's conversion. */
function defaultPodSpec(spec: Obj): void {
  if (!spec.serviceAccountName && spec.serviceAccount) spec.serviceAccountName = spec.serviceAccount;
  if (spec.serviceAccountName) spec.serviceAccount = spec.serviceAccountName;
  else delete spec.serviceAccount;
}

/** Always for `:latest` or no tag (no digest either), IfNotPresent otherwise (parsers.ParseImageName). */
function defaultContainer(c: Obj): void {
  if (c.imagePullPolicy) return;
  c.imagePullPolicy = imageTag(typeof c.image === 'string' ? c.image : '') === 'latest' ? 'Always' : 'IfNotPresent';
}

/** The tag of an image reference: "latest" when it names neither a tag nor a digest, "" with a digest alone. */
export function imageTag(image: string): string {
  const [name, digest] = image.split('@', 2);
  const lastSlash = name!.lastIndexOf('/');
  const colon = name!.lastIndexOf(':');
  if (colon > lastSlash) return name!.slice(colon + 1);
  return digest === undefined ? 'latest' : '';
}

/** SetDefaults_Service: target ports, traffic policies, client-IP affinity and load-balancer node ports. */
function defaultService(svc: Obj): void {
  const spec = objectAt(svc, 'spec');
  const type = spec.type ?? 'ClusterIP';
  for (const port of listAt(spec, 'ports')) {
    if (port.targetPort === undefined || port.targetPort === 0 || port.targetPort === '') port.targetPort = port.port;
  }
  if (spec.sessionAffinity === 'None') delete spec.sessionAffinityConfig;
  if (spec.sessionAffinity === 'ClientIP') {
    const clientIP = objectAt(objectAt(spec, 'sessionAffinityConfig'), 'clientIP');
    clientIP.timeoutSeconds ??= 10800;
  }
  const externalIPs = Array.isArray(spec.externalIPs) && spec.externalIPs.length > 0;
  const externallyAccessible = type === 'LoadBalancer' || type === 'NodePort' || (type === 'ClusterIP' && externalIPs);
  if (externallyAccessible && !spec.externalTrafficPolicy) spec.externalTrafficPolicy = 'Cluster';
  if (type !== 'ExternalName') spec.internalTrafficPolicy ??= 'Cluster';
  if (type === 'LoadBalancer') spec.allocateLoadBalancerNodePorts ??= true;
}

/** SetDefaults_Job: completions and parallelism, backoff limit, pod replacement policy, labels from the template. */
function defaultJob(job: Obj): void {
  const spec = objectAt(job, 'spec');
  if (spec.completions === undefined && spec.parallelism === undefined) spec.completions = 1;
  spec.parallelism ??= 1;
  spec.backoffLimit ??= spec.backoffLimitPerIndex === undefined ? 6 : 2147483647;
  // JobPodReplacementPolicy is beta and on in 1.30.
  spec.podReplacementPolicy ??= spec.podFailurePolicy === undefined ? 'TerminatingOrFailed' : 'Failed';
  const meta = objectAt(job, 'metadata');
  const templateLabels = objectAt(objectAt(spec, 'template'), 'metadata').labels;
  if ((!isObj(meta.labels) || Object.keys(meta.labels).length === 0) && isObj(templateLabels)) meta.labels = { ...templateLabels };
}

/** A rolling update without parameters gets 25% surge and 25% unavailable (SetDefaults_Deployment). */
function defaultDeployment(d: Obj): void {
  const strategy = objectAt(objectAt(d, 'spec'), 'strategy');
  if (strategy.type !== 'RollingUpdate') return;
  const rolling = objectAt(strategy, 'rollingUpdate');
  rolling.maxUnavailable ??= '25%';
  rolling.maxSurge ??= '25%';
}
