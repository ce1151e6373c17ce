import { parseQuantity } from '../api/quantity';

/** A node's resources by name (cpu, memory, pods, ...), as the quantities the kubelet reports. */
export type NodeCapacity = Readonly<Record<string, string>>;

/** The resources a kubelet always reports, besides those given. */
const ALWAYS_REPORTED: NodeCapacity = { 'ephemeral-storage': '100Gi', 'hugepages-1Gi': '0', 'hugepages-2Mi': '0' };

/** `cpu=8,memory=32Gi,pods=110`: every pair a resource name and a quantity; a message when it is not. */
export function parseNodeCapacity(text: string): NodeCapacity | string {
  const capacity: Record<string, string> = { ...ALWAYS_REPORTED };
  for (const pair of text.split(',').filter((p) => p.trim() !== '')) {
    const [name, value, ...rest] = pair.split('=').map((p) => p.trim());
    if (!name || value === undefined || rest.length > 0) return `${JSON.stringify(pair)} is not name=quantity`;
    const quantity = parseQuantity(value);
    if (!quantity || quantity.digits < 0n) return `${JSON.stringify(value)} is not a non-negative quantity`;
    capacity[name] = value;
  }
  for (const required of ['cpu', 'memory', 'pods']) if (!(required in capacity)) return `${required} is missing`;
  return capacity;
}
