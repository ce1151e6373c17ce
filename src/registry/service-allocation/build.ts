import type { Storage } from '../../storage/interfaces';
import type { GenericStore } from '../generic-store';
import { ClusterIpAllocator } from './ip-allocator';
import { serviceRange, type IpFamily } from './ip-range';
import { NodePortAllocator, type PortRange } from './port-allocator';
import { ServiceAllocator } from './service-allocator';

export interface ServiceAllocation {
  ips: ClusterIpAllocator;
  ports: NodePortAllocator;
  /** The Service store's write hooks. */
  services: ServiceAllocator;
}

/**
 * The allocators of one server: cluster IPs over the ServiceCIDR and IPAddress stores, node ports
 * in the bitmap at <prefix>/services/nodeports (kube's key), read and written past any cache.
 */
export function buildServiceAllocation(
  opts: { etcdPrefix: string; serviceClusterIpRange: string[]; serviceNodePortRange: PortRange },
  storage: Storage,
  store: (group: string, resource: string) => GenericStore,
  log: (message: string, err?: unknown) => void,
): ServiceAllocation {
  const ips = new ClusterIpAllocator(store('networking.k8s.io', 'servicecidrs'), store('networking.k8s.io', 'ipaddresses'));
  const ports = new NodePortAllocator(storage, `${opts.etcdPrefix.replace(/\/$/, '')}/services/nodeports`, opts.serviceNodePortRange);
  const families = opts.serviceClusterIpRange.map((cidr) => serviceRange(cidr)!.family) as IpFamily[];
  return { ips, ports, services: new ServiceAllocator(ips, ports, families, log) };
}
