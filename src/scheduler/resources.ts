import { milliValue, parseAmount } from '../admission/resource-quota/amounts';
import type { Container, Node, Pod } from '../generated/types/core/v1';

/** Resource name → amount: millicores for cpu, whole units (bytes, devices) for everything else. */
export type Resources = Map<string, number>;

const CPU = 'cpu';
const MEMORY = 'memory';
/** DefaultMilliCPURequest and DefaultMemoryRequest: what scoring assumes for a container that requests nothing. */
const DEFAULT_MILLI_CPU = 100;
const DEFAULT_MEMORY = 200 * 1024 * 1024;

/** Parsed amounts by resource and text: pods repeat a handful of quantities, and parsing one is costly. */
const parsed = new Map<string, number>();
const MAX_PARSED = 10_000;

/** Quantity.MilliValue for cpu, Quantity.Value (rounded up) for the rest. */
function amountOf(name: string, value: unknown): number {
  const key = `${name === CPU ? 'm' : ''}${String(value)}`;
  const known = parsed.get(key);
  if (known !== undefined) return known;
  const amount = parseAmount(value);
  let n = 0;
  if (amount) n = name === CPU ? Number(milliValue(amount)) : Number(amount.nanos / 1_000_000_000n + (amount.nanos % 1_000_000_000n > 0n ? 1n : 0n));
  if (parsed.size >= MAX_PARSED) parsed.clear();
  parsed.set(key, n);
  return n;
}

export function resourcesOf(list: Record<string, unknown> | undefined): Resources {
  const out: Resources = new Map();
  for (const [name, value] of Object.entries(list ?? {})) out.set(name, amountOf(name, value));
  return out;
}

function addInto(into: Resources, more: Resources): void {
  for (const [name, v] of more) into.set(name, (into.get(name) ?? 0) + v);
}

function maxInto(into: Resources, other: Resources): void {
  for (const [name, v] of other) if (v > (into.get(name) ?? 0)) into.set(name, v);
}

function containerRequests(c: Container, nonZero: boolean): Resources {
  const r = resourcesOf(c.resources?.requests);
  if (nonZero) {
    if (!r.has(CPU)) r.set(CPU, DEFAULT_MILLI_CPU);
    if (!r.has(MEMORY)) r.set(MEMORY, DEFAULT_MEMORY);
  }
  return r;
}

/**
 * resourcehelper.PodRequests: the containers' requests summed, sidecars (restartable init containers)
 * added to them and to every later init container, the larger of that and the largest init step,
 * pod-level requests over the containers' for what they name, plus the pod overhead. With `nonZero`,
 * a container's missing cpu and memory count as kube's scoring defaults (NonMissingContainerRequests).
 */
export function podRequests(pod: Pod, nonZero = false): Resources {
  const spec = pod.spec ?? {};
  const total: Resources = new Map();
  for (const c of spec.containers ?? []) addInto(total, containerRequests(c, nonZero));
  const sidecars: Resources = new Map();
  const initMax: Resources = new Map();
  for (const c of spec.initContainers ?? []) {
    const own = containerRequests(c, nonZero);
    if (c.restartPolicy === 'Always') {
      addInto(total, own);
      addInto(sidecars, own);
      maxInto(initMax, sidecars);
    } else {
      const step = new Map(own);
      addInto(step, sidecars);
      maxInto(initMax, step);
    }
  }
  maxInto(total, initMax);
  for (const [name, v] of resourcesOf(spec.resources?.requests)) if (name === CPU || name === MEMORY || name.startsWith('hugepages-')) total.set(name, v);
  addInto(total, resourcesOf(spec.overhead));
  return total;
}

export function allocatableOf(node: Node): Resources {
  return resourcesOf(node.status?.allocatable ?? node.status?.capacity);
}

/** How many pods the node takes (allocatable pods; 0 when it does not say, as kube's). */
export function allowedPods(node: Node): number {
  return allocatableOf(node).get('pods') ?? 0;
}

export function addResources(into: Resources, more: Resources, sign: 1 | -1): void {
  for (const [name, v] of more) into.set(name, (into.get(name) ?? 0) + sign * v);
}
