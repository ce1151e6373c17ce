import { isStatusError } from '../../api/errors';
import type { DaemonSet, DaemonSetStatus } from '../../generated/types/apps/v1';
import type { Node, Pod } from '../../generated/types/core/v1';
import { newControllerRef } from '../pods/controller-ref';
import { isPodAvailable, isPodReady } from '../pods/pod-conditions';
import type { PodControl } from '../pods/pod-control';
import type { ControllerExpectations } from '../pods/expectations';
import type { EventRecorder } from '../runtime/event-recorder';
import { POD_REVISION_LABEL } from './controller-history';
import { daemonPodTemplate, nodeShouldRunDaemonPod, TEMPLATE_GENERATION_LABEL, withNodeNameAffinity } from './daemonset-nodes';
import { TEMPLATE_GENERATION_ANNOTATION } from '../../resources/daemonset-template-generation';
import { jsonClone } from '../../api/json-clone';
import { compareGoStrings } from '../../api/go-string-order';

/** The nodes a set's pods are on (or bound for), its pods oldest first on each. */
export type NodePods = Map<string, Pod[]>;

/** podByCreationTimestampAndPhase: running pods before others, then the oldest first. */
const byAgeAndPhase = (a: Pod, b: Pod): number => {
  const running = (p: Pod): number => (p.status?.phase === 'Running' ? 0 : 1);
  return (
    running(a) - running(b) ||
    compareGoStrings(a.metadata.creationTimestamp ?? '', b.metadata.creationTimestamp ?? '') ||
    compareGoStrings(a.metadata.name ?? '', b.metadata.name ?? '')
  );
};

/** util.IsPodUpdated: made from the current revision (its hash) or the current template generation. */
export function isPodUpdated(pod: Pod, ds: DaemonSet, hash: string): boolean {
  const generation = ds.metadata.annotations?.[TEMPLATE_GENERATION_ANNOTATION];
  const labels = pod.metadata.labels ?? {};
  return (hash !== '' && labels[POD_REVISION_LABEL] === hash) || (generation !== undefined && labels[TEMPLATE_GENERATION_LABEL] === generation);
}

/** GetValueFromIntOrPercent, rounding a percentage up. */
function scaledValue(value: number | string | undefined, total: number, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value === 'number') return value;
  const percent = /^(\d+)%$/.exec(value);
  return percent ? Math.ceil((Number(percent[1]) * total) / 100) : Number(value) || 0;
}

/** The oldest pod on a node already at the revision and the oldest not at it; null when a node has two of a kind (findUpdatedPodsOnNode). */
function updatedAndOld(pods: Pod[], ds: DaemonSet, hash: string): { updated: Pod | null; old: Pod | null } | null {
  let updated: Pod | null = null;
  let old: Pod | null = null;
  for (const pod of pods) {
    if (pod.metadata.deletionTimestamp) continue;
    if (isPodUpdated(pod, ds, hash)) {
      if (updated) return null;
      updated = pod;
    } else {
      if (old) return null;
      old = pod;
    }
  }
  return { updated, old };
}

const BURST_REPLICAS = 250;

/**
 * The DaemonSet sync (pkg/controller/daemon/daemon_controller.go and update.go), given the set's
 * pods by node: pods made for the nodes that should run one and lack it, removed where they may
 * not stay (and duplicates, failed ones), the rolling update's replacements, and the status.
 */
export class DaemonSetControl {
  constructor(
    private readonly podControl: PodControl,
    private readonly expectations: ControllerExpectations,
    private readonly recorder: EventRecorder,
    private readonly now: () => number,
  ) {}

  /** manage: what podsShouldBeOnNode asks for every node, then syncNodes. */
  async manage(ds: DaemonSet, key: string, nodes: Node[], byNode: NodePods, hash: string): Promise<void> {
    const create: string[] = [];
    const remove: string[] = [];
    const surge = allowsSurge(ds);
    for (const node of nodes) {
      const name = node.metadata.name!;
      const { shouldRun, shouldContinueRunning } = nodeShouldRunDaemonPod(node, ds);
      const pods = byNode.get(name) ?? [];
      if (shouldRun && pods.length === 0) create.push(name);
      else if (shouldContinueRunning) remove.push(...this.excessPods(ds, node, pods, surge, hash));
      else for (const pod of pods) if (!pod.metadata.deletionTimestamp) remove.push(pod.metadata.name!);
    }
    // Pods bound for nodes that no longer exist.
    const known = new Set(nodes.map((n) => n.metadata.name));
    for (const [name, pods] of byNode)
      if (!known.has(name)) for (const pod of pods) if (!pod.metadata.deletionTimestamp && !pod.spec?.nodeName) remove.push(pod.metadata.name!);
    await this.syncNodes(ds, key, remove, create, hash);
  }

  /** podsShouldBeOnNode for a node its pods may stay on: failed and finished ones go, and all but the oldest running one (with surge: one old and one new). */
  private excessPods(ds: DaemonSet, node: Node, pods: Pod[], surge: boolean, hash: string): string[] {
    const remove: string[] = [];
    const running: Pod[] = [];
    for (const pod of pods) {
      if (pod.metadata.deletionTimestamp) continue;
      if (pod.status?.phase === 'Failed') {
        this.recorder.event(
          ds,
          'Warning',
          'FailedDaemonPod',
          `Found failed daemon pod ${pod.metadata.namespace}/${pod.metadata.name} on node ${node.metadata.name}, will try to kill it`,
        );
        remove.push(pod.metadata.name!);
      } else if (pod.status?.phase === 'Succeeded') remove.push(pod.metadata.name!);
      else running.push(pod);
    }
    running.sort(byAgeAndPhase);
    if (!surge) return [...remove, ...running.slice(1).map((p) => p.metadata.name!)];
    let oldestNew: Pod | null = null;
    let oldestOld: Pod | null = null;
    for (const pod of running) {
      const isNew = pod.metadata.labels?.[POD_REVISION_LABEL] === hash;
      if (isNew && !oldestNew) oldestNew = pod;
      else if (!isNew && !oldestOld) oldestOld = pod;
      else remove.push(pod.metadata.name!);
    }
    if (oldestNew && oldestOld && (!isPodReady(oldestOld) || isPodAvailable(oldestNew, ds.spec?.minReadySeconds ?? 0, this.now()))) {
      remove.push(oldestOld.metadata.name!);
    }
    return remove;
  }

  /** rollingUpdate: with no surge, old pods deleted up to maxUnavailable; with surge, new pods made beside old ones up to maxSurge, the old ones deleted once the new are available. */
  async rollingUpdate(ds: DaemonSet, key: string, nodes: Node[], byNode: NodePods, hash: string): Promise<void> {
    const desired = nodes.filter((n) => nodeShouldRunDaemonPod(n, ds).shouldRun).length;
    const rolling = ds.spec?.updateStrategy?.rollingUpdate;
    const maxSurge = allowsSurge(ds) ? scaledValue(rolling?.maxSurge, desired, 0) : 0;
    let maxUnavailable = scaledValue(rolling?.maxUnavailable, desired, 1);
    if (desired > 0 && maxUnavailable === 0 && maxSurge === 0) maxUnavailable = 1;
    const minReadySeconds = ds.spec?.minReadySeconds ?? 0;
    const available = (pod: Pod): boolean => isPodAvailable(pod, minReadySeconds, this.now());
    const nodeNames = [...byNode.keys()].sort();
    if (maxSurge === 0) {
      let unavailable = 0;
      const replace: string[] = [];
      const candidates: string[] = [];
      for (const name of nodeNames) {
        const found = updatedAndOld(byNode.get(name)!, ds, hash);
        if (!found || (found.old === null) === (found.updated === null)) unavailable++;
        else if (found.updated) {
          if (!available(found.updated)) unavailable++;
        } else if (!available(found.old!)) replace.push(found.old!.metadata.name!);
        else if (unavailable < maxUnavailable) candidates.push(found.old!.metadata.name!);
      }
      const room = Math.min(Math.max(0, maxUnavailable - unavailable), candidates.length);
      await this.syncNodes(ds, key, [...replace, ...candidates.slice(0, room)], [], hash);
      return;
    }
    let surged = 0;
    const allowed: string[] = [];
    const candidates: string[] = [];
    const remove: string[] = [];
    for (const name of nodeNames) {
      const found = updatedAndOld(byNode.get(name)!, ds, hash);
      if (!found) {
        surged++;
        continue;
      }
      if (!found.old) continue;
      if (!found.updated) {
        if (!available(found.old)) allowed.push(name);
        else if (surged < maxSurge) candidates.push(name);
      } else if (!available(found.updated)) surged++;
      else remove.push(found.old.metadata.name!);
    }
    const room = Math.min(Math.max(0, maxSurge - surged), candidates.length);
    await this.syncNodes(ds, key, remove, [...allowed, ...candidates.slice(0, room)], hash);
  }

  /** syncNodes: the creations (in slow-start batches, each pod bound for its node by affinity) and deletions, expected before they are seen. */
  private async syncNodes(ds: DaemonSet, key: string, remove: string[], create: string[], hash: string): Promise<void> {
    const toCreate = create.slice(0, BURST_REPLICAS);
    const toRemove = remove.slice(0, BURST_REPLICAS);
    // Only creations are expected: a deletion repeated from a stale cache finds the pod gone, which is fine.
    this.expectations.expectCreations(key, toCreate.length);
    const namespace = ds.metadata.namespace!;
    const template = daemonPodTemplate(ds, hash);
    const ref = newControllerRef(ds, 'apps/v1', 'DaemonSet');
    const errors: unknown[] = [];
    for (let done = 0, batch = 1; done < toCreate.length; done += batch, batch *= 2) {
      const nodes = toCreate.slice(done, done + batch);
      const results = await Promise.allSettled(
        nodes.map((node) => {
          const forNode = jsonClone(template);
          forNode.spec!.affinity = withNodeNameAffinity(forNode.spec!.affinity, node);
          return this.podControl.createPod(namespace, forNode, ds, ref);
        }),
      );
      const failed = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
      if (failed.length > 0) {
        // The rest of this pass's creations will not happen: nothing to wait for.
        this.expectations.creationObserved(key, failed.length + toCreate.length - done - nodes.length);
        errors.push(...failed.map((f) => f.reason));
        break;
      }
    }
    const deletions = await Promise.allSettled(toRemove.map((name) => this.podControl.deletePod(namespace, name, ds)));
    for (const r of deletions) if (r.status === 'rejected' && !(isStatusError(r.reason) && r.reason.code === 404)) errors.push(r.reason);
    if (errors.length > 0) throw errors[0];
  }

  /** updateDaemonSetStatus's counts. */
  status(ds: DaemonSet, nodes: Node[], byNode: NodePods, hash: string): DaemonSetStatus {
    const counts = {
      currentNumberScheduled: 0,
      numberMisscheduled: 0,
      desiredNumberScheduled: 0,
      numberReady: 0,
      updatedNumberScheduled: 0,
      numberAvailable: 0,
    };
    const minReadySeconds = ds.spec?.minReadySeconds ?? 0;
    for (const node of nodes) {
      const { shouldRun } = nodeShouldRunDaemonPod(node, ds);
      const pods = byNode.get(node.metadata.name!) ?? [];
      if (!shouldRun) {
        if (pods.length > 0) counts.numberMisscheduled++;
        continue;
      }
      counts.desiredNumberScheduled++;
      if (pods.length === 0) continue;
      counts.currentNumberScheduled++;
      const pod = [...pods].sort(byAgeAndPhase)[0]!;
      if (isPodReady(pod)) {
        counts.numberReady++;
        if (isPodAvailable(pod, minReadySeconds, this.now())) counts.numberAvailable++;
      }
      if (isPodUpdated(pod, ds, hash)) counts.updatedNumberScheduled++;
    }
    const { numberUnavailable: _previous, ...rest } = ds.status ?? {};
    const numberUnavailable = counts.desiredNumberScheduled - counts.numberAvailable;
    // numberUnavailable is omitempty in Go: zero is not written.
    return { ...rest, ...counts, ...(numberUnavailable !== 0 ? { numberUnavailable } : {}), observedGeneration: ds.metadata.generation };
  }
}

/** util.AllowsSurge: a rolling update with a maxSurge above zero. */
function allowsSurge(ds: DaemonSet): boolean {
  const surge = ds.spec?.updateStrategy?.type === 'RollingUpdate' ? ds.spec.updateStrategy.rollingUpdate?.maxSurge : undefined;
  return surge !== undefined && surge !== 0 && surge !== '0%' && surge !== '0';
}
