import type { Pod } from '../../generated/types/core/v1';
import { isPodActive, podCondition } from './pod-conditions';
import { controllerUidOfObject } from './ref-manager';

/**
 * What an owner's sync reads of each of its pods, read once per version of the pod. An
 * informer's objects are never changed in place (a change arrives as a new object), so these
 * facts hold for as long as the object lives. A ReplicaSet of 1,000 pods syncs on every change
 * of any of them, and each sync otherwise walked every pod's references, labels and conditions
 * again: memory reads scattered over the whole heap (issue 22's 1,000-pod run).
 */
export interface PodFacts {
  /** The uid of the pod's controller reference, if it has one (ref-manager's controllerUidOfObject). */
  readonly controllerUid: string | undefined;
  readonly labels: Record<string, string> | undefined;
  /** controller.IsPodActive. */
  readonly active: boolean;
  /** podutil.IsPodReady. */
  readonly ready: boolean;
  /** The Ready condition's lastTransitionTime in epoch milliseconds; NaN when not ready or unreadable. */
  readonly readySinceMs: number;
  /** The last selector asked about these labels and its answer (an owner asks with the same matcher until its spec changes). */
  matchedBy?: (labels: Record<string, string> | undefined) => boolean;
  matched?: boolean;
}

const factsOf = new WeakMap<Pod, PodFacts>();

/** The facts of an informer's pod, read on first use. Never pass an object that will still be changed. */
export function podFacts(pod: Pod): PodFacts {
  let facts = factsOf.get(pod);
  if (facts === undefined) {
    const readyCondition = podCondition(pod, 'Ready');
    const ready = readyCondition?.status === 'True';
    facts = {
      controllerUid: controllerUidOfObject(pod),
      labels: pod.metadata.labels,
      active: isPodActive(pod),
      ready,
      readySinceMs: ready && readyCondition?.lastTransitionTime ? Date.parse(readyCondition.lastTransitionTime) : NaN,
    };
    factsOf.set(pod, facts);
  }
  return facts;
}

/** Whether `matcher` (a selector's predicate) matches the pod's labels, asked once per pod version and matcher. */
export function podMatches(facts: PodFacts, matcher: (labels: Record<string, string> | undefined) => boolean): boolean {
  if (facts.matchedBy !== matcher) {
    facts.matchedBy = matcher;
    facts.matched = matcher(facts.labels);
  }
  return facts.matched!;
}

/** podutil.IsPodAvailable over a pod's facts: ready for at least minReadySeconds, now being epoch milliseconds. */
export function factsAvailable(facts: PodFacts, minReadySeconds: number, nowMs: number): boolean {
  if (!facts.ready) return false;
  if (minReadySeconds <= 0) return true;
  return !Number.isNaN(facts.readySinceMs) && facts.readySinceMs + minReadySeconds * 1000 <= nowMs;
}
