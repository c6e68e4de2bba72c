import { type JsonApiObject, fieldInvalid, internalError } from '../../runtime/api/index.js';
import { decodeObjects, type HookHost, invalidObject, type KindHook, type ServedResource } from '../../runtime/server/index.js';

/** kube-apiserver's default `--service-cluster-ip-range`. */
export const DEFAULT_SERVICE_CIDR = '10.96.0.0/12';

/** An IPv4 range: its first address and its size, as numbers. */
export interface Ipv4Range {
  cidr: string;
  base: number;
  size: number;
}

/** Parses an IPv4 CIDR (`10.96.0.0/12`); throws on anything else (dual-stack ranges are not served). */
export function parseServiceCidr(cidr: string): Ipv4Range {
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})\/(\d{1,2})$/.exec(cidr.trim());
  const octets = m ? m.slice(1, 5).map(Number) : [];
  const bits = m ? Number(m[5]) : -1;
  if (!m || octets.some((o) => o > 255) || bits < 1 || bits > 30)
    throw new Error(`invalid service CIDR ${JSON.stringify(cidr)}: expected IPv4 a.b.c.d/n, n in 1..30`);
  const size = 2 ** (32 - bits);
  const address = octets.reduce((a, o) => a * 256 + o, 0);
  return { cidr: cidr.trim(), base: address - (address % size), size };
}

export function ipv4Text(n: number): string {
  return [24, 16, 8, 0].map((shift) => Math.floor(n / 2 ** shift) % 256).join('.');
}

function ipv4Number(text: string): number | undefined {
  const parts = text.split('.');
  if (parts.length !== 4 || parts.some((p) => !/^\d{1,3}$/.test(p) || Number(p) > 255)) return undefined;
  return parts.reduce((a, p) => a * 256 + Number(p), 0);
}

/** The address of the `kubernetes` Service: the first one of the range, as upstream. */
export function kubernetesServiceIP(range: Ipv4Range): string {
  return ipv4Text(range.base + 1);
}

interface ServicePort {
  port?: number;
  protocol?: string;
  nodePort?: number;
}

interface ServiceSpec {
  type?: string;
  clusterIP?: string;
  clusterIPs?: string[];
  ipFamilies?: string[];
  ipFamilyPolicy?: string;
  ports?: ServicePort[];
  allocateLoadBalancerNodePorts?: boolean;
}

/** kube-apiserver's default `--service-node-port-range`, 30000-32767. */
const NODE_PORTS = { first: 30000, last: 32767 };

/** The addresses and node ports stored services hold. */
interface Allocated {
  ips: Set<number>;
  nodePorts: Set<number>;
}

/**
 * Cluster IPs of services, as upstream's service storage with one IPv4 range (`--service-cluster-ip-range`):
 * a new service gets a free address of the range (or keeps the free one it asks for), `None` stays
 * headless, an ExternalName service gets none; the families are `[IPv4]`, single stack. An address
 * is in use while a stored service holds it, so a deleted service's address is free again. An
 * update that leaves the allocated fields out keeps them. NodePort and LoadBalancer services get a
 * node port per port from `--service-node-port-range`'s default (or keep a free one they ask for).
 * Declared by the service kind as the hook `service-cluster-ip`.
 */
export function serviceClusterIPs(cidr = DEFAULT_SERVICE_CIDR): (host: HookHost) => KindHook {
  const range = parseServiceCidr(cidr);
  return ({ context, declaring }) => {
    const inUse = async (except?: string): Promise<Allocated> => {
      const { items } = await context.store.list(declaring.storagePrefix);
      const used: Allocated = { ips: new Set(), nodePorts: new Set() };
      for (const svc of await decodeObjects(items, declaring)) {
        if (svc.metadata?.uid === except) continue;
        const spec = (svc.spec ?? {}) as ServiceSpec;
        for (const ip of spec.clusterIPs ?? []) {
          const n = ipv4Number(ip);
          if (n !== undefined) used.ips.add(n);
        }
        for (const p of spec.ports ?? []) if (typeof p.nodePort === 'number') used.nodePorts.add(p.nodePort);
      }
      return used;
    };
    return {
      async prepareWrite(object, old) {
        // The write handlers let a hook see only decodable objects (checkDecodable): spec is an object or absent.
        const spec = (object.spec ??= {}) as ServiceSpec;
        if (old) {
          keepAllocated(spec, (old.spec ?? {}) as ServiceSpec);
          if (needsNodePorts(spec)) allocateNodePorts(declaring, object, (await inUse(old.metadata?.uid)).nodePorts);
          return;
        }
        // A struct upstream: every service reports it, empty while no load balancer exists.
        object.status = { loadBalancer: {} };
        if (spec.type === 'ExternalName') return;
        // Families a client names are validated as sent (IPv6 is not refused as unconfigured, as upstream would).
        if (!spec.ipFamilies?.length) spec.ipFamilies = ['IPv4'];
        spec.ipFamilyPolicy ??= 'SingleStack';
        const used = await inUse();
        if (needsNodePorts(spec)) allocateNodePorts(declaring, object, used.nodePorts);
        if (spec.clusterIP === 'None') {
          spec.clusterIPs = ['None'];
          return;
        }
        const asked = spec.clusterIP || spec.clusterIPs?.[0];
        const ip = asked ? checkRequested(declaring, object, range, used.ips, asked) : pickFree(range, used.ips);
        spec.clusterIP = ip;
        spec.clusterIPs = [ip];
      },
    };
  };
}

/** NodePort services, and LoadBalancer ones unless they ask for no node ports. */
function needsNodePorts(spec: ServiceSpec): boolean {
  return spec.type === 'NodePort' || (spec.type === 'LoadBalancer' && spec.allocateLoadBalancerNodePorts !== false);
}

/**
 * A node port for each port that names none; a port that names one keeps it if it is in the range
 * and no other service holds it, as upstream's port allocator (its messages, on spec.ports[i].nodePort).
 */
function allocateNodePorts(r: ServedResource, object: JsonApiObject, used: Set<number>): void {
  const ports = ((object.spec as ServiceSpec).ports ?? []).filter((p): p is ServicePort => typeof p === 'object' && p !== null);
  const errors = [];
  for (const [i, p] of ports.entries()) {
    if (typeof p.nodePort !== 'number' || p.nodePort === 0) continue;
    const field = `spec.ports[${i}].nodePort`;
    if (p.nodePort < NODE_PORTS.first || p.nodePort > NODE_PORTS.last) {
      const detail = `provided port is not in the valid range. The range of valid ports is ${NODE_PORTS.first}-${NODE_PORTS.last}`;
      errors.push(fieldInvalid(field, p.nodePort, detail));
    } else if (used.has(p.nodePort)) errors.push(fieldInvalid(field, p.nodePort, 'provided port is already allocated'));
    else used.add(p.nodePort);
  }
  if (errors.length > 0) throw invalidObject(r, object, errors);
  for (const p of ports) if (!p.nodePort) p.nodePort = pickFreePort(used);
}

function pickFreePort(used: Set<number>): number {
  const size = NODE_PORTS.last - NODE_PORTS.first + 1;
  const start = Math.floor(Math.random() * size);
  for (let i = 0; i < size; i++) {
    const port = NODE_PORTS.first + ((start + i) % size);
    if (!used.has(port)) {
      used.add(port);
      return port;
    }
  }
  throw internalError(new Error(`failed to allocate a nodePort: range is full (${NODE_PORTS.first}-${NODE_PORTS.last})`));
}

/** An update keeps what was allocated where it leaves it out (upstream's patchAllocatedValues). */
function keepAllocated(spec: ServiceSpec, old: ServiceSpec): void {
  if (needsNodePorts(spec) && needsNodePorts(old)) {
    // A port keeps its node port when the same port and protocol had one.
    for (const p of spec.ports ?? []) {
      if (typeof p !== 'object' || p === null || p.nodePort) continue;
      const before = (old.ports ?? []).find((o) => o.port === p.port && (o.protocol ?? 'TCP') === (p.protocol ?? 'TCP'));
      if (before?.nodePort) p.nodePort = before.nodePort;
    }
  }
  if (spec.type === 'ExternalName' || old.clusterIP === undefined) return;
  if (!spec.clusterIP) spec.clusterIP = old.clusterIP;
  if (!spec.clusterIPs?.length && spec.clusterIP === old.clusterIP) spec.clusterIPs = old.clusterIPs;
  spec.ipFamilies ??= old.ipFamilies;
  spec.ipFamilyPolicy ??= old.ipFamilyPolicy;
}

function checkRequested(r: ServedResource, object: JsonApiObject, range: Ipv4Range, used: Set<number>, asked: string): string {
  const n = ipv4Number(asked);
  const refuse = (detail: string) => invalidObject(r, object, [fieldInvalid('spec.clusterIPs[0]', asked, detail)]);
  // Invalid text is left to validation.
  if (n === undefined) return asked;
  if (n <= range.base || n >= range.base + range.size - 1)
    throw refuse(`failed to allocate IP ${asked}: provided IP is not in the valid range. The range of valid IPs is ${range.cidr}`);
  if (used.has(n)) throw refuse(`failed to allocate IP ${asked}: provided IP is already allocated`);
  return asked;
}

/** A random free address (neither the network's nor the broadcast address), as upstream's allocator picks. */
function pickFree(range: Ipv4Range, used: Set<number>): string {
  const usable = range.size - 2;
  const start = Math.floor(Math.random() * usable);
  for (let i = 0; i < usable; i++) {
    const n = range.base + 1 + ((start + i) % usable);
    if (!used.has(n)) return ipv4Text(n);
  }
  throw internalError(new Error(`failed to allocate a serviceIP: range is full (${range.cidr})`));
}
