import type { EndpointAddress, EndpointPort, EndpointSubset } from '../../generated/types/core/v1';
import { compareGoStrings } from '../../api/go-string-order';

const addressKey = (a: EndpointAddress): string => `${a.ip ?? ''}/${a.targetRef?.uid ?? ''}`;
const portKey = (p: EndpointPort): string => JSON.stringify([p.name ?? '', p.port ?? 0, p.protocol ?? '', p.appProtocol ?? '']);

const byAddress = (a: EndpointAddress, b: EndpointAddress): number =>
  compareGoStrings(a.ip ?? '', b.ip ?? '') || compareGoStrings(a.targetRef?.uid ?? '', b.targetRef?.uid ?? '');
const byPort = (a: EndpointPort, b: EndpointPort): number => compareGoStrings(portKey(a), portKey(b));

/**
 * endpoints.RepackSubsets: one subset per set of addresses offering the same ports, an address
 * ready if any of its entries is; addresses sorted by IP. kube orders ports and subsets by a hash
 * of their Go values; kapi by their contents (docs/divergences.md).
 */
export function repackSubsets(subsets: EndpointSubset[]): EndpointSubset[] {
  const addresses = new Map<string, EndpointAddress>();
  // port key → address key → ready
  const byPortKey = new Map<string, { port: EndpointPort | null; ready: Map<string, boolean> }>();
  for (const subset of subsets) {
    const ports: (EndpointPort | null)[] = subset.ports?.length ? subset.ports : [null];
    for (const port of ports) {
      const key = port ? portKey(port) : '';
      const entry = byPortKey.get(key) ?? { port, ready: new Map<string, boolean>() };
      byPortKey.set(key, entry);
      for (const a of subset.addresses ?? []) {
        addresses.set(addressKey(a), a);
        entry.ready.set(addressKey(a), true);
      }
      for (const a of subset.notReadyAddresses ?? []) {
        if (entry.ready.has(addressKey(a))) continue;
        addresses.set(addressKey(a), a);
        entry.ready.set(addressKey(a), false);
      }
    }
  }
  const groups = new Map<string, { ready: Map<string, boolean>; ports: EndpointPort[] }>();
  for (const { port, ready } of byPortKey.values()) {
    const key = JSON.stringify([...ready.entries()].sort());
    const group = groups.get(key) ?? { ready, ports: [] };
    groups.set(key, group);
    if (port) group.ports.push(port);
  }
  const repacked = [...groups.values()].map(({ ready, ports }): EndpointSubset => {
    const subset: EndpointSubset = {};
    const pick = (want: boolean): EndpointAddress[] =>
      [...ready.entries()]
        .filter(([, r]) => r === want)
        .map(([k]) => addresses.get(k)!)
        .sort(byAddress);
    const readyAddresses = pick(true);
    const notReady = pick(false);
    if (readyAddresses.length) subset.addresses = readyAddresses;
    if (notReady.length) subset.notReadyAddresses = notReady;
    if (ports.length) subset.ports = ports.sort(byPort);
    return subset;
  });
  const first = (s: EndpointSubset): string => (s.addresses ?? s.notReadyAddresses ?? [])[0]?.ip ?? '';
  return repacked.sort((a, b) => compareGoStrings(first(a), first(b)) || compareGoStrings(JSON.stringify(a.ports ?? []), JSON.stringify(b.ports ?? [])));
}

/** truncateEndpoints: at most `max` addresses, ready ones first, each subset keeping its share (rounded up). */
export function truncateSubsets(subsets: EndpointSubset[], max: number): boolean {
  const totalReady = subsets.reduce((n, s) => n + (s.addresses?.length ?? 0), 0);
  const totalNotReady = subsets.reduce((n, s) => n + (s.notReadyAddresses?.length ?? 0), 0);
  if (totalReady + totalNotReady <= max) return false;
  const truncateReady = totalReady > max;
  const room = truncateReady ? max : max - totalReady;
  const total = truncateReady ? totalReady : totalNotReady;
  let left = room;
  for (const subset of subsets) {
    const list = truncateReady ? (subset.addresses ?? []) : (subset.notReadyAddresses ?? []);
    const share = Math.min(Math.ceil((list.length / total) * room), left);
    const kept = list.slice(0, share);
    const field = truncateReady ? 'addresses' : 'notReadyAddresses';
    if (kept.length) subset[field] = kept;
    else delete subset[field];
    if (truncateReady) delete subset.notReadyAddresses;
    left -= kept.length;
  }
  return true;
}
