import { randomBytes } from 'node:crypto';
import { isStatusError } from '../../api/errors';
import { isPlainObject, type KubeObject } from '../../api/types';
import type { GenericStore } from '../generic-store';
import { SYSTEM_READ_ALL, systemContext, SERVER_OWN_WRITE } from '../request-context';
import { formatIp, ipAt, parseIp, rangeContains, serviceRange, type Ip, type IpFamily, type ServiceRange } from './ip-range';

/** kube's IPAddress labels (networking.IPAddressFamilyLabel, ManagedByLabel) and the allocator's name. */
export const IP_FAMILY_LABEL = 'ipaddress.kubernetes.io/ip-family';
export const MANAGED_BY_LABEL = 'ipaddress.kubernetes.io/managed-by';
export const IP_ALLOCATOR_MANAGER = 'ipallocator.k8s.io';

/** ipallocator's errors, with its messages. */
export class IpAllocationError extends Error {
  static allocated = (): IpAllocationError => new IpAllocationError('provided IP is already allocated');
  static mismatchedNetwork = (): IpAllocationError => new IpAllocationError('the provided network does not match the current range');
  static full = (): IpAllocationError => new IpAllocationError('range is full');
}

/** The Service an IPAddress belongs to. */
export interface ServiceRef {
  namespace: string;
  name: string;
}

/** Random offsets tried before the allocator lists what is taken and walks the range. */
const RANDOM_ATTEMPTS = 8;

function randomBelow(n: bigint): bigint {
  if (n <= 0n) return 0n;
  const bytes = randomBytes(Math.ceil(n.toString(16).length / 2) + 8);
  return BigInt(`0x${bytes.toString('hex')}`) % n;
}

/** Whether a ServiceCIDR may hand out addresses: not being deleted, and not reported not Ready. */
function cidrReady(cidr: KubeObject): boolean {
  if (cidr.metadata.deletionTimestamp) return false;
  const conditions = isPlainObject(cidr.status) && Array.isArray(cidr.status.conditions) ? (cidr.status.conditions as Record<string, unknown>[]) : [];
  return !conditions.some((c) => c.type === 'Ready' && c.status === 'False');
}

function ipAddressObject(ip: Ip, service: ServiceRef): KubeObject {
  return {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'IPAddress',
    metadata: { name: formatIp(ip), labels: { [IP_FAMILY_LABEL]: ip.family, [MANAGED_BY_LABEL]: IP_ALLOCATOR_MANAGER } },
    // The core group is the empty one, which parentRef.group (omitempty) leaves out.
    spec: { parentRef: { resource: 'services', namespace: service.namespace, name: service.name } },
  };
}

/**
 * ClusterIPs from the ServiceCIDRs, as kube's MetaAllocator over IPAddress objects: an address is
 * taken by creating its IPAddress (named by the address), and etcd's create-if-absent is the lock,
 * so replicas never hand out one address twice. Dynamic addresses come from the upper part of a
 * range first, the lower band being kept for addresses asked for by value.
 */
export class ClusterIpAllocator {
  constructor(
    private readonly cidrs: GenericStore,
    private readonly addresses: GenericStore,
  ) {}

  /** The ranges of the ServiceCIDRs that are ready, largest first (the MetaAllocator's tree holds the shortest prefixes on top). */
  async ranges(): Promise<ServiceRange[]> {
    const list = await this.cidrs.list(SYSTEM_READ_ALL, { resourceVersion: '0', match: '', predicate: { matches: () => true, empty: true } });
    const ranges: ServiceRange[] = [];
    for (const cidr of list.items.filter(cidrReady)) {
      const spec = isPlainObject(cidr.spec) ? cidr.spec : {};
      for (const text of Array.isArray(spec.cidrs) ? spec.cidrs : []) {
        const range = typeof text === 'string' ? serviceRange(text) : null;
        if (range && !ranges.some((r) => r.cidr === range.cidr)) ranges.push(range);
      }
    }
    return ranges.sort((a, b) => (a.size === b.size ? 0 : a.size > b.size ? -1 : 1));
  }

  /** Takes a given address for the Service; dry run only checks that it could. */
  async allocate(ip: Ip, service: ServiceRef, dryRun: boolean): Promise<void> {
    const ranges = await this.ranges();
    if (!ranges.some((r) => rangeContains(r, ip))) throw IpAllocationError.mismatchedNetwork();
    if (dryRun) {
      if (await this.taken(ip)) throw IpAllocationError.allocated();
      return;
    }
    if (!(await this.claim(ip, service))) throw IpAllocationError.allocated();
  }

  /** A free address of the family for the Service; dry run only finds one. */
  async allocateNext(family: IpFamily, service: ServiceRef, dryRun: boolean): Promise<Ip> {
    const ranges = (await this.ranges()).filter((r) => r.family === family);
    for (const range of ranges) {
      const found = await this.allocateIn(range, service, dryRun);
      if (found) return found;
    }
    throw IpAllocationError.full();
  }

  private async allocateIn(range: ServiceRange, service: ServiceRef, dryRun: boolean): Promise<Ip | null> {
    const dynamic = range.size - range.staticBand;
    const claim = async (ip: Ip): Promise<boolean> => (dryRun ? !(await this.taken(ip)) : this.claim(ip, service));
    if (dynamic > BigInt(RANDOM_ATTEMPTS * 8)) {
      for (let i = 0; i < RANDOM_ATTEMPTS; i++) {
        const ip = ipAt(range, range.staticBand + randomBelow(dynamic));
        if (await claim(ip)) return ip;
      }
    }
    // Crowded: walk the range from a random place, skipping what is known to be taken.
    const taken = await this.takenIn(range);
    if (BigInt(taken.size) >= range.size) return null;
    const start = randomBelow(dynamic);
    const order = (i: bigint): bigint => (i < dynamic ? range.staticBand + ((start + i) % dynamic) : i - dynamic);
    for (let i = 0n; i < range.size; i++) {
      const ip = ipAt(range, order(i));
      if (taken.has(ip.value)) continue;
      if (await claim(ip)) return ip;
    }
    return null;
  }

  /** Gives an address back: its IPAddress is deleted (an absent one is already free). */
  async release(ipText: string): Promise<void> {
    const ip = parseIp(ipText);
    if (!ip) return;
    try {
      await this.addresses.delete(systemContext({ namespace: '' }, SERVER_OWN_WRITE), formatIp(ip), { dryRun: false });
    } catch (err) {
      if (!(isStatusError(err) && err.code === 404)) throw err;
    }
  }

  private async taken(ip: Ip): Promise<boolean> {
    return (await this.addresses.find(SYSTEM_READ_ALL, formatIp(ip), { resourceVersion: '', match: '' })) !== null;
  }

  private async takenIn(range: ServiceRange): Promise<Set<bigint>> {
    const list = await this.addresses.list(SYSTEM_READ_ALL, { resourceVersion: '', match: '', predicate: { matches: () => true, empty: true } });
    const taken = new Set<bigint>();
    for (const item of list.items) {
      const ip = parseIp(item.metadata.name ?? '');
      if (ip && rangeContains(range, ip)) taken.add(ip.value);
    }
    return taken;
  }

  /** Creates the address's IPAddress: false when it exists already. */
  async claim(ip: Ip, service: ServiceRef): Promise<boolean> {
    try {
      await this.addresses.create(systemContext({ namespace: '' }, SERVER_OWN_WRITE), ipAddressObject(ip, service), { dryRun: false });
      return true;
    } catch (err) {
      if (isStatusError(err) && err.code === 409) return false;
      throw err;
    }
  }
}
