/** Pods as upstream's printPod (1.30): READY, the derived STATUS, RESTARTS with the last restart's age. */
import type { TablePrinter } from '../../codec/index.js';
import { AGE, NAME, type Obj, WIDE, at, column, int, list, orNone, since, text } from './cells.js';

export const podPrinter: TablePrinter = {
  columns: [
    NAME,
    column('Ready', 'The aggregate readiness state of this pod for accepting traffic.'),
    column('Status', 'The aggregate status of the containers in this pod.'),
    column(
      'Restarts',
      'The number of times the containers in this pod have been restarted and when the last container in this pod has restarted.',
    ),
    AGE,
    column('IP', 'IP address allocated to the pod. Routable at least within the cluster. Empty if not yet allocated.', WIDE),
    column('Node', 'NodeName indicates in which node this pod is scheduled.', WIDE),
    column('Nominated Node', 'nominatedNodeName is set only when this pod preempts other pods on the node.', WIDE),
    column('Readiness Gates', 'If specified, all readiness gates will be evaluated for pod readiness.', WIDE),
  ],
  cells(pod, now) {
    const spec = at(pod, 'spec');
    const status = at(pod, 'status');
    const meta = at(pod, 'metadata');
    const s = podStatus(spec, status, meta);
    const restarts =
      s.restarts !== 0 && s.lastRestart !== undefined ? `${s.restarts} (${since(s.lastRestart, now)} ago)` : String(s.restarts);
    const gates = list(spec.readinessGates);
    const conditions = list(status.conditions);
    const readiness =
      gates.length === 0
        ? '<none>'
        : `${gates.filter((g) => conditions.find((c) => c.type === g.conditionType)?.status === 'True').length}/${gates.length}`;
    return [
      text(meta.name),
      `${s.ready}/${s.total}`,
      s.reason,
      restarts,
      since(meta.creationTimestamp, now),
      orNone(text(list(status.podIPs)[0]?.ip)),
      orNone(text(spec.nodeName)),
      orNone(text(status.nominatedNodeName)),
      readiness,
    ];
  },
};

interface PodSummary {
  ready: number;
  total: number;
  reason: string;
  restarts: number;
  lastRestart: string | undefined;
}

const restartable = (c: Obj | undefined) => c?.restartPolicy === 'Always';

function podStatus(spec: Obj, status: Obj, meta: Obj): PodSummary {
  const phase = text(status.phase);
  let reason = text(status.reason) || phase;
  const conditions = list(status.conditions);
  if (conditions.some((c) => c.type === 'PodScheduled' && c.reason === 'SchedulingGated')) reason = 'SchedulingGated';
  const inits = new Map(list(spec.initContainers).map((c) => [text(c.name), c]));
  let total = list(spec.containers).length + [...inits.values()].filter(restartable).length;
  let ready = 0;
  let restarts = 0;
  let sidecarRestarts = 0;
  let lastRestart: string | undefined;
  let lastSidecarRestart: string | undefined;
  const later = (a: string | undefined, b: unknown) =>
    typeof b === 'string' && (a === undefined || Date.parse(b) > Date.parse(a)) ? b : a;
  let initializing = false;
  const initStatuses = list(status.initContainerStatuses);
  for (const [i, c] of initStatuses.entries()) {
    const state = at(c, 'state');
    const finished = at(c, 'lastState.terminated').finishedAt;
    restarts += int(c.restartCount);
    lastRestart = later(lastRestart, finished);
    const sidecar = restartable(inits.get(text(c.name)));
    if (sidecar) {
      sidecarRestarts += int(c.restartCount);
      lastSidecarRestart = later(lastSidecarRestart, finished);
    }
    const terminated = isObj(state.terminated) ? state.terminated : undefined;
    const waiting = isObj(state.waiting) ? state.waiting : undefined;
    if (terminated && int(terminated.exitCode) === 0) continue;
    if (sidecar && c.started === true) {
      if (c.ready === true) ready++;
      continue;
    }
    if (terminated) reason = `Init:${text(terminated.reason) || exitText(terminated)}`;
    else if (waiting && text(waiting.reason) !== '' && waiting.reason !== 'PodInitializing') reason = `Init:${text(waiting.reason)}`;
    else reason = `Init:${i}/${inits.size}`;
    initializing = true;
    break;
  }
  const initialized = conditions.some((c) => c.type === 'Initialized' && c.status === 'True');
  if (!initializing || initialized) {
    restarts = sidecarRestarts;
    lastRestart = lastSidecarRestart;
    let running = false;
    const statuses = list(status.containerStatuses);
    for (let i = statuses.length - 1; i >= 0; i--) {
      const c = statuses[i]!;
      const state = at(c, 'state');
      restarts += int(c.restartCount);
      lastRestart = later(lastRestart, at(c, 'lastState.terminated').finishedAt);
      const terminated = isObj(state.terminated) ? state.terminated : undefined;
      if (text(at(state, 'waiting').reason) !== '') reason = text(at(state, 'waiting').reason);
      else if (terminated) reason = text(terminated.reason) || exitText(terminated);
      else if (c.ready === true && isObj(state.running)) {
        running = true;
        ready++;
      }
    }
    if (reason === 'Completed' && running)
      reason = conditions.some((c) => c.type === 'Ready' && c.status === 'True') ? 'Running' : 'NotReady';
  }
  if (meta.deletionTimestamp && status.reason === 'NodeLost') reason = 'Unknown';
  else if (meta.deletionTimestamp && phase !== 'Succeeded' && phase !== 'Failed') reason = 'Terminating';
  total = Math.max(total, 0);
  return { ready, total, reason, restarts, lastRestart };
}

function isObj(v: unknown): v is Obj {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function exitText(terminated: Obj): string {
  return int(terminated.signal) !== 0 ? `Signal:${int(terminated.signal)}` : `ExitCode:${int(terminated.exitCode)}`;
}
