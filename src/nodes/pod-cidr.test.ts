import { formatCidr, nodePodCidr, parseClusterCidr, PodIpAllocator, type Ipv4Cidr } from './pod-cidr';

test('each node gets the next /24 of the cluster CIDR; none past its end', () => {
  const cluster = parseClusterCidr('10.244.7.9/16') as Ipv4Cidr;
  expect(formatCidr(cluster)).toBe('10.244.0.0/16');
  expect(formatCidr(nodePodCidr(cluster, 0)!)).toBe('10.244.0.0/24');
  expect(formatCidr(nodePodCidr(cluster, 3)!)).toBe('10.244.3.0/24');
  expect(formatCidr(nodePodCidr(cluster, 255)!)).toBe('10.244.255.0/24');
  expect(nodePodCidr(cluster, 256)).toBeNull();
  expect(nodePodCidr(parseClusterCidr('192.168.1.0/24') as Ipv4Cidr, 1)).toBeNull();
});

test('pod IPs: from .2 on, never the gateway or broadcast address; reserved and released ones are honoured', () => {
  const ips = new PodIpAllocator(nodePodCidr(parseClusterCidr('10.244.0.0/16') as Ipv4Cidr, 1)!);
  ips.reserve('10.244.1.3');
  ips.reserve('10.9.9.9');
  expect([ips.allocate(), ips.allocate(), ips.allocate()]).toEqual(['10.244.1.2', '10.244.1.4', '10.244.1.5']);
  ips.release('10.244.1.2');
  // Host-local IPAM moves on from the last address it gave before it reuses a freed one.
  expect(ips.allocate()).toBe('10.244.1.6');
  const given = new Set<string>();
  for (let ip = ips.allocate(); ip !== null; ip = ips.allocate()) given.add(ip);
  expect(given.size).toBe(253 - 5 + 1);
  expect(given.has('10.244.1.2')).toBe(true);
  expect(given.has('10.244.1.1') || given.has('10.244.1.255') || given.has('10.244.1.0')).toBe(false);
});
