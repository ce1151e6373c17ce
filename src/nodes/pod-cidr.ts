/** An IPv4 network: its first address as a number, and its prefix length. */
export interface Ipv4Cidr {
  base: number;
  prefix: number;
}

/** node-ipam's default --node-cidr-mask-size for IPv4. */
export const NODE_CIDR_MASK_SIZE = 24;

function parseIpv4(text: string): number | null {
  const parts = text.split('.');
  if (parts.length !== 4 || parts.some((p) => !/^[0-9]{1,3}$/.test(p) || Number(p) > 255)) return null;
  return parts.reduce((n, p) => n * 256 + Number(p), 0);
}

export function formatIpv4(n: number): string {
  return [24, 16, 8, 0].map((shift) => Math.floor(n / 2 ** shift) % 256).join('.');
}

/** --cluster-cidr: an IPv4 CIDR no narrower than a node's /24; a message when it is not one. */
export function parseClusterCidr(text: string): Ipv4Cidr | string {
  const [address, length, ...rest] = text.trim().split('/');
  const ip = parseIpv4(address ?? '');
  const prefix = Number(length);
  if (ip === null || rest.length > 0 || !/^[0-9]{1,2}$/.test(length ?? '') || prefix > 32) return `invalid CIDR address: ${text}`;
  if (prefix > NODE_CIDR_MASK_SIZE) return `the cluster CIDR must be /${NODE_CIDR_MASK_SIZE} or wider to hold a node's pod CIDR`;
  const size = 2 ** (32 - prefix);
  return { base: ip - (ip % size), prefix };
}

export function formatCidr(cidr: Ipv4Cidr): string {
  return `${formatIpv4(cidr.base)}/${cidr.prefix}`;
}

/** The index-th /24 of the cluster CIDR (node-ipam's range allocator hands them out in order); null past its end. */
export function nodePodCidr(cluster: Ipv4Cidr, index: number): Ipv4Cidr | null {
  const count = 2 ** (NODE_CIDR_MASK_SIZE - cluster.prefix);
  if (index < 0 || index >= count) return null;
  return { base: cluster.base + index * 2 ** (32 - NODE_CIDR_MASK_SIZE), prefix: NODE_CIDR_MASK_SIZE };
}

/**
 * Pod IPs of one node's CIDR, as a CNI bridge with host-local IPAM hands them out: the network
 * address and the gateway (.1) are never given, nor the broadcast address; the next free one
 * after the last given is.
 */
export class PodIpAllocator {
  private readonly used = new Set<number>();
  /** Where the search for a free address starts, counted from the first one given (.2). */
  private next = 0;

  constructor(private readonly cidr: Ipv4Cidr) {}

  private get size(): number {
    return 2 ** (32 - this.cidr.prefix);
  }

  /** A free address, or null when every one is taken. */
  allocate(): string | null {
    const usable = this.size - 3;
    for (let i = 0; i < usable; i++) {
      const offset = 2 + ((this.next + i) % usable);
      if (this.used.has(offset)) continue;
      this.used.add(offset);
      this.next = offset - 1;
      return formatIpv4(this.cidr.base + offset);
    }
    return null;
  }

  /** Marks an address taken (a pod that already has it); one outside the CIDR is ignored. */
  reserve(ip: string): void {
    const n = parseIpv4(ip);
    if (n !== null && n >= this.cidr.base && n < this.cidr.base + this.size) this.used.add(n - this.cidr.base);
  }

  release(ip: string): void {
    const n = parseIpv4(ip);
    if (n !== null) this.used.delete(n - this.cidr.base);
  }
}
