import type { ObjectStore } from '../registry/types';
import { isStatusError } from '../api/errors';
import type { KubeObject } from '../api/types';
import { SYSTEM_READ_ALL, systemContext, SERVER_OWN_WRITE } from '../registry/request-context';
import { IP_ALLOCATOR_MANAGER, MANAGED_BY_LABEL, type ClusterIpAllocator } from '../registry/service-allocation/ip-allocator';
import { formatIp, parseIp, rangeContains } from '../registry/service-allocation/ip-range';
import { clusterIpsOf } from '../registry/service-allocation/service-allocator';
import { everything } from '../storage/interfaces';
import type { ControllerLog } from './runtime/informer';

/** numRepairsBeforeLeakCleanup: an IPAddress no Service holds is deleted only when seen so this many passes in a row. */
export const REPAIRS_BEFORE_LEAK_CLEANUP = 3;

const parentOf = (ip: KubeObject): string => {
  const ref = (ip.spec as { parentRef?: { resource?: string; namespace?: string; name?: string } } | undefined)?.parentRef;
  return ref?.resource === 'services' ? `${ref.namespace ?? ''}/${ref.name ?? ''}` : '';
};

/**
 * kube's ClusterIP repair controller over IPAddress objects (ipallocator/controller.RepairIPAddress):
 * a Service IP without its IPAddress gets one again; an allocator-managed IPAddress that no
 * Service holds is deleted after being seen leaked for several passes, so that an allocation whose
 * Service is still being written is never taken away.
 */
export class IpRepair {
  private readonly leaks = new Map<string, number>();

  constructor(
    private readonly services: ObjectStore,
    private readonly addresses: ObjectStore,
    private readonly allocator: ClusterIpAllocator,
    private readonly log: ControllerLog,
  ) {}

  async pass(): Promise<void> {
    const consistent = { resourceVersion: '', match: '' as const, predicate: everything };
    const [services, addresses, ranges] = await Promise.all([
      this.services.list(SYSTEM_READ_ALL, consistent),
      this.addresses.list(SYSTEM_READ_ALL, consistent),
      this.allocator.ranges(),
    ]);
    const holders = new Map<string, { namespace: string; name: string }>();
    for (const svc of services.items) {
      for (const text of clusterIpsOf(svc)) {
        const ip = parseIp(text);
        if (ip) holders.set(formatIp(ip), { namespace: svc.metadata.namespace ?? '', name: svc.metadata.name ?? '' });
      }
    }
    const existing = new Map(addresses.items.map((a) => [a.metadata.name ?? '', a]));
    for (const [ip, svc] of holders) {
      if (existing.has(ip)) continue;
      const parsed = parseIp(ip)!;
      if (!ranges.some((r) => rangeContains(r, parsed))) {
        this.log(`Cluster IP ${ip} of Service ${svc.namespace}/${svc.name} is not within any configured Service CIDR; please recreate the Service`);
        continue;
      }
      this.log(`Cluster IP ${ip} of Service ${svc.namespace}/${svc.name} has no IPAddress; repairing`);
      await this.allocator.claim(parsed, svc);
    }
    const seen = new Set<string>();
    for (const [name, address] of existing) {
      if (address.metadata.labels?.[MANAGED_BY_LABEL] !== IP_ALLOCATOR_MANAGER) continue;
      const holder = holders.get(name);
      if (holder && `${holder.namespace}/${holder.name}` === parentOf(address)) continue;
      seen.add(name);
      const count = (this.leaks.get(name) ?? 0) + 1;
      this.leaks.set(name, count);
      if (count < REPAIRS_BEFORE_LEAK_CLEANUP) continue;
      this.log(`IPAddress ${name} is held by no Service; deleting it`);
      try {
        await this.addresses.delete(systemContext({ namespace: '' }, SERVER_OWN_WRITE), name, { dryRun: false, preconditions: { uid: address.metadata.uid } });
      } catch (err) {
        if (!(isStatusError(err) && (err.code === 404 || err.code === 409))) throw err;
      }
      this.leaks.delete(name);
    }
    for (const name of this.leaks.keys()) if (!seen.has(name)) this.leaks.delete(name);
  }
}
