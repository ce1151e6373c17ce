import type { MaybePromise } from '../api/maybe-promise';
import { forbidden } from '../api/errors';
import { jsonEqual } from '../api/deep-equal';
import { objectOf, objectsIn, stringOf } from '../api/json-read';
import { compareQuantities, parseQuantity } from '../api/quantity';
import { isPlainObject, type KubeObject } from '../api/types';
import type { AdmissionAttributes, AdmissionPlugin } from './admission';
import { createOf } from './default-storage-class';
import { jsonClone } from '../api/json-clone';

/** Looks a RuntimeClass up: from a cache where one exists unless `live` asks for etcd; null when absent. */
export type RuntimeClassLookup = (name: string, live: boolean) => MaybePromise<KubeObject | null>;

type Obj = Record<string, unknown>;

const PODS = { group: '', resource: 'pods' };

/** apiequality.Semantic on ResourceLists: the same names with equal quantities; an empty list equals none. */
function sameResources(a: Obj, b: Obj): boolean {
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  return keys.every((k) => {
    const qa = parseQuantity(a[k]);
    const qb = parseQuantity(b[k]);
    return k in b && (qa && qb ? compareQuantities(qa, qb) === 0 : a[k] === b[k]);
  });
}

/** tolerations.isSuperset: does `ss` tolerate everything `t` tolerates? */
function tolerates(ss: Obj, t: Obj): boolean {
  if (jsonEqual(ss, t)) return true;
  // An empty key with Exists matches every key.
  if (t.key !== ss.key && (stringOf(ss.key) !== '' || ss.operator !== 'Exists')) return false;
  if (t.effect !== ss.effect && stringOf(ss.effect) !== '') return false;
  if (ss.effect === 'NoExecute' && typeof ss.tolerationSeconds === 'number') {
    if (typeof t.tolerationSeconds !== 'number' || t.tolerationSeconds > ss.tolerationSeconds) return false;
  }
  const operator = stringOf(ss.operator);
  if (operator === 'Equal' || operator === '') return t.operator === 'Equal' && t.value === ss.value;
  return operator === 'Exists';
}

/** tolerations.MergeTolerations: both lists, less every toleration another one already covers (of equal ones, the first stays). */
export function mergeTolerations(first: Obj[], second: Obj[]): Obj[] {
  const all = [...first, ...second];
  const merged: Obj[] = [];
  all.forEach((t, i) => {
    if (merged.some((kept) => tolerates(kept, t))) return;
    if (all.slice(i + 1).some((later) => !jsonEqual(t, later) && tolerates(later, t))) return;
    merged.push(t);
  });
  return merged;
}

/**
 * RuntimeClass (plugin/pkg/admission/runtimeclass): a pod created with spec.runtimeClassName
 * takes the class's overhead.podFixed as spec.overhead and merges its scheduling nodeSelector and
 * tolerations; an unknown class, an overhead of the pod's own that differs, or a conflicting
 * nodeSelector is refused with kube's 403s.
 */
export class RuntimeClassAdmission implements AdmissionPlugin {
  readonly name = 'RuntimeClass';

  constructor(private readonly runtimeClasses: RuntimeClassLookup) {}

  admit(attrs: AdmissionAttributes): Promise<void> | void {
    if (!createOf(attrs, '', 'pods')) return;
    return this.admitPod(attrs);
  }

  private async admitPod(attrs: AdmissionAttributes): Promise<void> {
    const pod = attrs.object!;
    const runtimeClass = await this.runtimeClassOf(pod);
    if (!runtimeClass) return;
    const spec = objectOf(pod.spec);
    const podName = pod.metadata.name ?? '';
    // setOverhead
    if (isPlainObject(runtimeClass.overhead)) {
      const fixed = objectOf(runtimeClass.overhead.podFixed);
      const own = objectOf(spec.overhead);
      if (Object.keys(own).length > 0 && !sameResources(fixed, own)) {
        throw forbidden(PODS, podName, "pod rejected: Pod's Overhead doesn't match RuntimeClass's defined Overhead");
      }
      if (Object.keys(fixed).length > 0) spec.overhead = jsonClone(fixed);
      else delete spec.overhead;
    }
    // setScheduling
    if (isPlainObject(runtimeClass.scheduling)) {
      const scheduling = runtimeClass.scheduling;
      const classSelector = objectOf(scheduling.nodeSelector);
      if (isPlainObject(spec.nodeSelector)) {
        const selector = spec.nodeSelector;
        for (const [key, value] of Object.entries(classSelector)) {
          if (key in selector && selector[key] !== value) {
            throw forbidden(
              PODS,
              podName,
              `conflict: runtimeClass.scheduling.nodeSelector[${key}] = ${String(value)}; pod.spec.nodeSelector[${key}] = ${String(selector[key])}`,
            );
          }
          selector[key] = value;
        }
      } else if (isPlainObject(scheduling.nodeSelector)) {
        spec.nodeSelector = jsonClone(classSelector);
      }
      const tolerations = mergeTolerations(objectsIn(spec.tolerations), jsonClone(objectsIn(scheduling.tolerations)));
      if (tolerations.length > 0) spec.tolerations = tolerations;
    }
    pod.spec = spec;
  }

  /** validateOverhead: the pod's overhead is the class's, and a pod without a class overhead has none. */
  validate(attrs: AdmissionAttributes): Promise<void> | void {
    if (!createOf(attrs, '', 'pods')) return;
    return this.validatePod(attrs);
  }

  private async validatePod(attrs: AdmissionAttributes): Promise<void> {
    const pod = attrs.object!;
    const runtimeClass = await this.runtimeClassOf(pod);
    const overhead = objectOf(pod.spec).overhead;
    const podName = pod.metadata.name ?? '';
    if (runtimeClass && isPlainObject(runtimeClass.overhead)) {
      if (!sameResources(objectOf(runtimeClass.overhead.podFixed), objectOf(overhead))) {
        throw forbidden(PODS, podName, "pod rejected: Pod's Overhead doesn't match RuntimeClass's defined Overhead");
      }
    } else if (overhead !== undefined && overhead !== null) {
      throw forbidden(PODS, podName, 'pod rejected: Pod Overhead set without corresponding RuntimeClass defined Overhead');
    }
  }

  /** prepareObjects: the cache, then a live read (the cache may lag a class created a moment ago). */
  private async runtimeClassOf(pod: KubeObject): Promise<KubeObject | null> {
    const name = objectOf(pod.spec).runtimeClassName;
    if (typeof name !== 'string') return null;
    const found = (await this.runtimeClasses(name, false)) ?? (await this.runtimeClasses(name, true));
    if (!found) throw forbidden(PODS, pod.metadata.name ?? '', `pod rejected: RuntimeClass "${name}" not found`);
    return found;
  }
}
