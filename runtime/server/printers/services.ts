/** Services and Endpoints as upstream's printService and printEndpoints (1.30). */
import type { TablePrinter } from '../../codec/index.js';
import { AGE, NAME, type Obj, WIDE, at, column, formatLabels, int, list, orNone, since, text } from './cells.js';

export const servicePrinter: TablePrinter = {
  columns: [
    NAME,
    column('Type', 'type determines how the Service is exposed.'),
    column('Cluster-IP', 'clusterIP is the IP address of the service and is usually assigned randomly.'),
    column(
      'External-IP',
      'externalIPs is a list of IP addresses for which nodes in the cluster will also accept traffic for this service.',
    ),
    column('Port(s)', 'The list of ports that are exposed by this service.'),
    AGE,
    column('Selector', 'Route service traffic to pods with label keys and values matching this selector.', WIDE),
  ],
  cells(svc, now) {
    const spec = at(svc, 'spec');
    const clusterIPs = Array.isArray(spec.clusterIPs) ? spec.clusterIPs.map(text) : [];
    return [
      text(at(svc, 'metadata').name),
      text(spec.type),
      orNone(clusterIPs[0] ?? ''),
      externalIP(spec, at(svc, 'status.loadBalancer')),
      orNone(
        list(spec.ports)
          .map((p) => `${int(p.port)}${int(p.nodePort) > 0 ? `:${int(p.nodePort)}` : ''}/${text(p.protocol)}`)
          .join(','),
      ),
      since(at(svc, 'metadata').creationTimestamp, now),
      formatLabels(spec.selector),
    ];
  },
};

/** upstream's getServiceExternalIP. */
function externalIP(spec: Obj, loadBalancer: Obj): string {
  const external = Array.isArray(spec.externalIPs) ? spec.externalIPs.map(text) : [];
  switch (spec.type) {
    case 'ClusterIP':
    case 'NodePort':
      return external.length > 0 ? external.join(',') : '<none>';
    case 'LoadBalancer': {
      const ingress = list(loadBalancer.ingress).map((i) => text(i.ip) || text(i.hostname));
      const all = [...ingress, ...external];
      return all.length > 0 ? all.join(',') : '<pending>';
    }
    case 'ExternalName':
      return text(spec.externalName);
    default:
      return '<unknown>';
  }
}

export const endpointsPrinter: TablePrinter = {
  columns: [NAME, column('Endpoints', 'The set of all endpoints is the union of all subsets.'), AGE],
  cells(ep, now) {
    return [text(at(ep, 'metadata').name), formatEndpoints(list(ep.subsets)), since(at(ep, 'metadata').creationTimestamp, now)];
  },
};

/** upstream's formatEndpoints: `ip:port` of at most three, then ` + N more...`. */
function formatEndpoints(subsets: Obj[]): string {
  const shown: string[] = [];
  let count = 0;
  for (const ss of subsets) {
    const ports = list(ss.ports);
    for (const addr of list(ss.addresses)) {
      for (const port of ports.length === 0 ? [undefined] : ports) {
        count++;
        if (shown.length < 3) shown.push(port ? `${text(addr.ip)}:${int(port.port)}` : text(addr.ip));
      }
    }
  }
  if (count === 0) return '<none>';
  return count > 3 ? `${shown.join(',')} + ${count - 3} more...` : shown.join(',');
}
