/** Nodes and Events (core and events.k8s.io) as upstream's printNode and printEvent (1.30). */
import type { TablePrinter } from '../../codec/index.js';
import { isObject } from '../../json/index.js';
import { AGE, NAME, type Obj, WIDE, at, column, int, list, orNone, since, text } from './cells.js';

const ROLE_PREFIX = 'node-role.kubernetes.io/';

export const nodePrinter: TablePrinter = {
  columns: [
    NAME,
    column('Status', 'The status of the node'),
    column('Roles', 'The roles of the node'),
    AGE,
    column('Version', 'Kubelet Version reported by the node.'),
    column('Internal-IP', 'List of addresses reachable to the node.', WIDE),
    column('External-IP', 'List of addresses reachable to the node.', WIDE),
    column('OS-Image', 'OS Image reported by the node from /etc/os-release (e.g. Debian GNU/Linux 7 (wheezy)).', WIDE),
    column('Kernel-Version', "Kernel Version reported by the node from 'uname -r' (e.g. 3.16.0-0.bpo.4-amd64).", WIDE),
    column(
      'Container-Runtime',
      'ContainerRuntime Version reported by the node through runtime remote API (e.g. containerd://1.4.2).',
      WIDE,
    ),
  ],
  cells(node, now) {
    const status = at(node, 'status');
    const info = at(node, 'status.nodeInfo');
    const ready = list(status.conditions).find((c) => c.type === 'Ready');
    const states = [ready ? (ready.status === 'True' ? 'Ready' : 'NotReady') : 'Unknown'];
    if (at(node, 'spec').unschedulable === true) states.push('SchedulingDisabled');
    const address = (type: string) => orNone(text(list(status.addresses).find((a) => a.type === type)?.address));
    return [
      text(at(node, 'metadata').name),
      states.join(','),
      nodeRoles(at(node, 'metadata').labels),
      since(at(node, 'metadata').creationTimestamp, now),
      text(info.kubeletVersion),
      address('InternalIP'),
      address('ExternalIP'),
      orNone(text(info.osImage)),
      orNone(text(info.kernelVersion)),
      orNone(text(info.containerRuntimeVersion)),
    ];
  },
};

/** upstream's findNodeRoles: `node-role.kubernetes.io/<role>` keys and the `kubernetes.io/role` value, sorted. */
function nodeRoles(labels: unknown): string {
  const roles = new Set<string>();
  for (const [k, v] of Object.entries(isObject(labels) ? labels : {})) {
    if (k.startsWith(ROLE_PREFIX) && k.length > ROLE_PREFIX.length) roles.add(k.slice(ROLE_PREFIX.length));
    else if (k === 'kubernetes.io/role' && text(v) !== '') roles.add(text(v));
  }
  return roles.size === 0 ? '<none>' : [...roles].sort().join(',');
}

export const eventPrinter: TablePrinter = {
  columns: [
    column('Last Seen', 'The time at which the most recent occurrence of this event was recorded.'),
    column('Type', 'Type of this event (Normal, Warning), new types could be added in the future'),
    column(
      'Reason',
      "This should be a short, machine understandable string that gives the reason for the transition into the object's current status.",
    ),
    column('Object', 'The object that this event is about.'),
    column(
      'Subobject',
      'If referring to a piece of an object instead of an entire object, this string should contain a valid JSON/Go field access statement.',
      WIDE,
    ),
    column('Source', 'The component reporting this event. Should be a short machine understandable string.', WIDE),
    column('Message', 'A human-readable description of the status of this operation.'),
    column('First Seen', 'The time at which the event was first recorded. (Time of server receipt is in TypeMeta.)', WIDE),
    column('Count', 'The number of times this event has occurred.', { ...WIDE, type: 'integer' }),
    { ...NAME, priority: 1 },
  ],
  cells(served, now) {
    const event = asCoreEvent(served);
    const first = event.firstTimestamp ? since(event.firstTimestamp, now) : since(event.eventTime, now);
    let last = event.lastTimestamp ? since(event.lastTimestamp, now) : first;
    let count = int(event.count);
    const series = isObject(event.series) ? event.series : undefined;
    if (series) {
      last = since(series.lastObservedTime, now);
      count = int(series.count);
    } else if (count === 0) count = 1;
    const involved = at(event, 'involvedObject');
    const kind = text(involved.kind).toLowerCase();
    const target = text(involved.name) === '' ? kind : `${kind}/${text(involved.name)}`;
    return [
      last,
      text(event.type),
      text(event.reason),
      target,
      text(involved.fieldPath),
      eventSource(at(event, 'source'), event),
      text(event.message).trim(),
      first,
      count,
      text(at(event, 'metadata').name),
    ];
  },
};

/**
 * An events.k8s.io/v1 Event in core's field names, as upstream converts it before printing (one
 * storage and one printer serve both groups); a core Event as it is.
 */
function asCoreEvent(event: Obj): Obj {
  if (event.regarding === undefined && event.note === undefined && event.reportingController === undefined) return event;
  return {
    ...event,
    involvedObject: event.regarding,
    message: event.note,
    firstTimestamp: event.deprecatedFirstTimestamp,
    lastTimestamp: event.deprecatedLastTimestamp,
    count: event.deprecatedCount,
    source: event.deprecatedSource,
    reportingComponent: event.reportingController,
  };
}

function eventSource(source: Obj, event: Obj): string {
  const component = text(source.component) || text(event.reportingComponent);
  const instance = text(source.host) || text(event.reportingInstance);
  return instance === '' ? component : `${component}, ${instance}`;
}
