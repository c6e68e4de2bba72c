/** Services, Endpoints and Ingresses as upstream's printService, printEndpoints and printIngress. */
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

export const ingressPrinter: TablePrinter = {
  columns: [
    NAME,
    column('Class', 'The name of the IngressClass resource that should be used for additional configuration'),
    column('Hosts', 'Hosts that incoming requests are matched against before the ingress rule'),
    column('Address', 'Address is a list containing ingress points for the load-balancer'),
    column('Ports', 'Ports of TLS configurations that open'),
    AGE,
  ],
  cells(ingress, now) {
    const spec = at(ingress, 'spec');
    // The server prints wide (the address is never clipped): a set of IPs, else hostnames, sorted.
    const addresses = new Set(list(at(ingress, 'status.loadBalancer').ingress).map((i) => text(i.ip) || text(i.hostname)));
    addresses.delete('');
    return [
      text(at(ingress, 'metadata').name),
      typeof spec.ingressClassName === 'string' ? spec.ingressClassName : '<none>',
      ingressHosts(list(spec.rules)),
      [...addresses].sort().join(','),
      list(spec.tls).length > 0 ? '80, 443' : '80',
      since(at(ingress, 'metadata').creationTimestamp, now),
    ];
  },
};

/** upstream's formatHosts: the first three hosts, `+ N more...` counting every rule, `*` for none. */
function ingressHosts(rules: Obj[]): string {
  const max = 3;
  const hosts: string[] = [];
  let more = false;
  for (const rule of rules) {
    if (hosts.length === max) more = true;
    if (!more && text(rule.host) !== '') hosts.push(text(rule.host));
  }
  if (hosts.length === 0) return '*';
  return more ? `${hosts.join(',')} + ${rules.length - max} more...` : hosts.join(',');
}
