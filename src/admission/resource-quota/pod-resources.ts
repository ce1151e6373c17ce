import { isPlainObject, type KubeObject } from '../../api/types';
import { addAmounts, compareAmounts, resourceListOf, type ResourceList } from './amounts';

type Obj = Record<string, unknown>;

const objects = (v: unknown): Obj[] => (Array.isArray(v) ? v.filter(isPlainObject) : []);

/** addResourceList: `into` gains each amount of `from`. */
export function addInto(into: ResourceList, from: ResourceList): void {
  for (const [name, amount] of from) into.set(name, into.has(name) ? addAmounts(into.get(name)!, amount) : amount);
}

/** maxResourceList: `into` keeps the larger of each amount. */
function maxInto(into: ResourceList, from: ResourceList): void {
  for (const [name, amount] of from) if (!into.has(name) || compareAmounts(amount, into.get(name)!) > 0) into.set(name, amount);
}

const containerList = (c: Obj, part: 'requests' | 'limits'): ResourceList => resourceListOf(isPlainObject(c.resources) ? c.resources[part] : undefined);

/**
 * resourcehelper.PodRequests / PodLimits: the containers' sum; sidecars (restartable init
 * containers) add to it; each other init container runs beside the sidecars before it, and the
 * pod needs the larger of the two; then the pod's overhead (which LimitRanger's own copy leaves out).
 */
export function podTotals(pod: KubeObject, part: 'requests' | 'limits', withOverhead = true): ResourceList {
  const spec = isPlainObject(pod.spec) ? pod.spec : {};
  const total: ResourceList = new Map();
  for (const c of objects(spec.containers)) addInto(total, containerList(c, part));
  const sidecars: ResourceList = new Map();
  const initPeak: ResourceList = new Map();
  for (const c of objects(spec.initContainers)) {
    const own = containerList(c, part);
    if (c.restartPolicy === 'Always') {
      addInto(total, own);
      addInto(sidecars, own);
      maxInto(initPeak, sidecars);
    } else {
      const running: ResourceList = new Map(own);
      addInto(running, sidecars);
      maxInto(initPeak, running);
    }
  }
  maxInto(total, initPeak);
  if (!withOverhead) return total;
  // Overhead counts only where the pod already names the resource (limits) or always (requests).
  const overhead = resourceListOf(spec.overhead);
  if (part === 'requests') addInto(total, overhead);
  else for (const [name, amount] of overhead) if (total.has(name)) total.set(name, addAmounts(total.get(name)!, amount));
  return total;
}
