import { type JsonApiObject, forbidden, parseQuantity } from '../../runtime/api/index.js';
import { decodeObjects, type KindHook, readCurrent, type RequestContext } from '../../runtime/server/index.js';
import { DEFAULT_SERVICE_ACCOUNT } from './namespace-defaults.js';

/**
 * What a 1.30 kube-apiserver fills in a new Pod beyond its defaults, declared by the pod kind as
 * the hook `pod-admission`: the pod strategy's status (Pending, the QoS class), and the default
 * admission plugins that mutate pods: ServiceAccount (the `default` account and its projected
 * token volume), DefaultTolerationSeconds (not-ready and unreachable, 300 s) and Priority.
 */
export function podAdmission(): KindHook {
  return {
    async prepareWrite(object, old, ctx) {
      // The write handlers let a hook see only decodable objects (checkDecodable): spec is an object or absent.
      if (old) return;
      const spec = (object.spec ??= {}) as PodSpec;
      object.status = { phase: 'Pending', qosClass: qosClass(spec) };
      await mountServiceAccount(ctx, object, spec);
      addDefaultTolerations(spec);
      await setPriority(ctx, spec, object.metadata?.name ?? '');
    },
  };
}

type Obj = Record<string, unknown>;

interface Container extends Obj {
  resources?: { limits?: Record<string, string | number>; requests?: Record<string, string | number> };
  volumeMounts?: { name: string; mountPath: string; readOnly?: boolean }[];
}

interface PodSpec extends Obj {
  containers?: Container[];
  initContainers?: Container[];
  volumes?: Obj[];
  serviceAccountName?: string;
  serviceAccount?: string;
  automountServiceAccountToken?: boolean;
  tolerations?: { key?: string; operator?: string; effect?: string; tolerationSeconds?: number }[];
  priorityClassName?: string;
  priority?: number;
  preemptionPolicy?: string;
}

const QOS_RESOURCES = ['cpu', 'memory'];

/** upstream's qos.GetPodQOS: BestEffort without requests or limits, Guaranteed when every container's equal both, else Burstable. */
export function qosClass(spec: PodSpec): 'BestEffort' | 'Burstable' | 'Guaranteed' {
  const requests = new Map<string, ReturnType<typeof parseQuantity>>();
  const limits = new Map<string, ReturnType<typeof parseQuantity>>();
  let guaranteed = true;
  const add = (into: typeof requests, name: string, value: string | number): void => {
    const q = safeQuantity(value);
    if (!q || q.sign() === 0) return;
    const sum = into.get(name);
    into.set(name, sum ? sum.add(q) : q);
  };
  for (const c of [...(spec.containers ?? []), ...(spec.initContainers ?? [])]) {
    const own = c.resources ?? {};
    // Requests default to limits (SetDefaults_Pod), before the class is computed.
    const containerRequests = { ...own.limits, ...own.requests };
    for (const name of QOS_RESOURCES) {
      if (containerRequests[name] !== undefined) add(requests, name, containerRequests[name]);
      if (own.limits?.[name] !== undefined) add(limits, name, own.limits[name]);
    }
    const limited = QOS_RESOURCES.filter((name) => own.limits?.[name] !== undefined && safeQuantity(own.limits[name])?.sign() !== 0);
    if (limited.length !== QOS_RESOURCES.length) guaranteed = false;
  }
  if (requests.size === 0 && limits.size === 0) return 'BestEffort';
  if (guaranteed) {
    for (const [name, q] of requests) if (!limits.get(name)?.equals(q)) guaranteed = false;
  }
  return guaranteed && requests.size === limits.size ? 'Guaranteed' : 'Burstable';
}

function safeQuantity(value: string | number): ReturnType<typeof parseQuantity> | undefined {
  try {
    return parseQuantity(value);
  } catch {
    return undefined; // validation reports it
  }
}

/** Where the ServiceAccount admission plugin mounts the token volume. */
export const SERVICE_ACCOUNT_MOUNT = '/var/run/secrets/kubernetes.io/serviceaccount';
/** The characters of upstream's utilrand.String (no vowels, no look-alikes). */
const RAND_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';

function randomSuffix(length: number): string {
  let s = '';
  for (let i = 0; i < length; i++) s += RAND_ALPHABET[Math.floor(Math.random() * RAND_ALPHABET.length)];
  return s;
}

/**
 * The ServiceAccount admission plugin: the pod runs as `default` unless it names an account, and,
 * unless the pod or its account turns automounting off, gets the projected volume
 * `kube-api-access-xxxxx` (a bound token, the cluster CA, the namespace) mounted read-only in every
 * container that mounts nothing at the service-account path.
 */
async function mountServiceAccount(ctx: RequestContext, pod: JsonApiObject, spec: PodSpec): Promise<void> {
  if (!spec.serviceAccountName) spec.serviceAccountName = spec.serviceAccount || DEFAULT_SERVICE_ACCOUNT;
  spec.serviceAccount = spec.serviceAccountName;
  const account = await serviceAccountOf(ctx, pod, spec.serviceAccountName);
  if (spec.automountServiceAccountToken === false) return;
  if ((account?.object as { automountServiceAccountToken?: boolean } | undefined)?.automountServiceAccountToken === false) return;
  const containers = [...(spec.initContainers ?? []), ...(spec.containers ?? [])];
  const unmounted = containers.filter((c) => !(c.volumeMounts ?? []).some((m) => m.mountPath === SERVICE_ACCOUNT_MOUNT));
  if (unmounted.length === 0) return;
  const name = `kube-api-access-${randomSuffix(5)}`;
  spec.volumes = [
    ...(spec.volumes ?? []),
    {
      name,
      projected: {
        defaultMode: 0o644,
        sources: [
          { serviceAccountToken: { expirationSeconds: 3607, path: 'token' } },
          { configMap: { name: 'kube-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
          { downwardAPI: { items: [{ path: 'namespace', fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' } }] } },
        ],
      },
    },
  ];
  for (const c of unmounted) c.volumeMounts = [...(c.volumeMounts ?? []), { name, readOnly: true, mountPath: SERVICE_ACCOUNT_MOUNT }];
}

/**
 * The pod's service account, which must exist (403 otherwise, upstream's wording). `default` is
 * looked up again for up to about 1.5 s, as upstream's plugin does: the serviceaccounts controller
 * creates it just after its namespace.
 */
async function serviceAccountOf(ctx: RequestContext, pod: JsonApiObject, name: string) {
  const accounts = ctx.registry.get('', 'v1', 'serviceaccounts');
  if (!accounts) return undefined;
  const namespace = pod.metadata?.namespace ?? '';
  const attempts = name === DEFAULT_SERVICE_ACCOUNT ? 10 : 1;
  const retryMs = 100 + Math.floor(Math.random() * 100);
  for (let i = 0; i < attempts; i++) {
    if (i > 0) await new Promise((r) => setTimeout(r, retryMs));
    const account = await readCurrent(ctx, accounts, namespace, name);
    if (account) return account;
  }
  const pods = ctx.registry.get('', 'v1', 'pods') ?? accounts;
  throw forbidden(
    pods,
    pod.metadata?.name ?? '',
    `error looking up service account ${namespace}/${name}: serviceaccount "${name}" not found`,
  );
}

/** DefaultTolerationSeconds: a pod tolerates a not-ready or unreachable node for 300 s unless it says otherwise. */
function addDefaultTolerations(spec: PodSpec): void {
  const tolerations = spec.tolerations ?? [];
  const tolerates = (key: string) =>
    tolerations.some(
      (t) =>
        (t.effect === undefined || t.effect === '' || t.effect === 'NoExecute') &&
        (t.key === key || ((t.key ?? '') === '' && t.operator === 'Exists')),
    );
  const added = ['node.kubernetes.io/not-ready', 'node.kubernetes.io/unreachable']
    .filter((key) => !tolerates(key))
    .map((key) => ({ key, operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 }));
  if (added.length > 0) spec.tolerations = [...tolerations, ...added];
}

/** The classes every cluster has (scheduling's SystemPriorityClasses). */
const SYSTEM_PRIORITY_CLASSES: Record<string, number> = {
  'system-node-critical': 2000001000,
  'system-cluster-critical': 2000000000,
};

interface PriorityClass {
  metadata?: { name?: string };
  value?: number;
  globalDefault?: boolean;
  preemptionPolicy?: string;
}

/**
 * The Priority admission plugin: the priority (and preemption policy) of the pod's class, of the
 * global default class when it names none, or 0; a class that does not exist is refused.
 */
async function setPriority(ctx: RequestContext, spec: PodSpec, pod: string): Promise<void> {
  const classes = await priorityClasses(ctx);
  const name = spec.priorityClassName ?? '';
  let chosen: PriorityClass | undefined;
  if (name === '') chosen = classes.find((c) => c.globalDefault);
  else if (name in SYSTEM_PRIORITY_CLASSES) chosen = { metadata: { name }, value: SYSTEM_PRIORITY_CLASSES[name] };
  else {
    chosen = classes.find((c) => c.metadata?.name === name);
    if (!chosen) throw forbidden({ group: '', resource: 'pods' }, pod, `no PriorityClass with name ${name} was found`);
  }
  if (chosen && name === '') spec.priorityClassName = chosen.metadata?.name;
  spec.priority = chosen?.value ?? 0;
  spec.preemptionPolicy = chosen?.preemptionPolicy ?? spec.preemptionPolicy ?? 'PreemptLowerPriority';
}

async function priorityClasses(ctx: RequestContext): Promise<PriorityClass[]> {
  const r = ctx.registry.get(ctx.registry.servedGroup('scheduling.svc.io'), 'v1', 'priorityclasses');
  if (!r) return [];
  const { items } = await ctx.store.list(r.storagePrefix);
  return (await decodeObjects(items, r)) as PriorityClass[];
}
