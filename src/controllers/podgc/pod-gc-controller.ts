import type { ObjectStore } from '../../registry/types';
import { conflict, isStatusError } from '../../api/errors';
import type { Node, Pod, PodCondition } from '../../generated/types/core/v1';
import { SYSTEM_READ_ALL, withInfo } from '../../registry/request-context';
import { timestampAt } from '../../registry/time';
import { informerAndQueueProblem, type Controller } from '../runtime/controller';
import type { ControllerDeps } from '../runtime/controller-deps';
import type { CachedInformer } from '../runtime/informer';
import { NodeQuarantine } from './node-quarantine';
import { isPodTerminated, terminatedOverThreshold, terminatingOnOutOfServiceNodes, unscheduledTerminating } from './pod-selection';

export interface PodGcOptions {
  /** --terminated-pod-gc-threshold: terminated pods kept before the oldest are deleted; 0 keeps them all. */
  terminatedPodThreshold: number;
  /** gcCheckPeriod (kube: 20s). */
  periodMs: number;
  /** quarantineTime (kube: 40s): how long a node missing from the cache is waited for before it is looked up. */
  quarantineMs: number;
}

const FRESH = { resourceVersion: '', match: '' } as const;
const NOT_FOUND = (err: unknown): boolean => isStatusError(err) && err.code === 404;

/** The condition an orphaned pod gets before it is deleted. */
/** apipod.UpdatePodCondition: the transition time is now unless the condition already had this status. */
function withCondition(conditions: PodCondition[], condition: PodCondition, now: string): PodCondition[] {
  const old = conditions.find((c) => c.type === condition.type);
  const next = { ...condition, lastTransitionTime: old && old.status === condition.status ? old.lastTransitionTime : now };
  return old ? conditions.map((c) => (c === old ? next : c)) : [...conditions, next];
}

const NODE_GONE: PodCondition = { type: 'DisruptionTarget', status: 'True', reason: 'DeletionByPodGC', message: 'PodGC: node no longer exists' };

/**
 * kube-controller-manager's pod-garbage-collector (pkg/controller/podgc): every period, from the
 * pod and node caches, it force-deletes the terminated pods over the threshold (evicted and oldest
 * first), pods being deleted on out-of-service nodes, pods bound to nodes that no longer exist
 * (after the quarantine and a look in storage), and pods being deleted that were never scheduled.
 * A pod not yet terminal is first marked Failed (with DisruptionTarget when its node is gone),
 * since no kubelet will do it.
 */
export class PodGcController implements Controller {
  readonly name = 'pod-garbage-collector-controller';
  private readonly pods: ObjectStore;
  private readonly nodes: ObjectStore;
  private readonly podInformer: CachedInformer;
  private readonly nodeInformer: CachedInformer;
  private readonly quarantine: NodeQuarantine;
  private cancelTick: (() => void) | null = null;
  /** Bumped by every start and stop, so that a pass of an earlier leadership schedules nothing. */
  private generation = 0;

  constructor(
    private readonly deps: ControllerDeps,
    private readonly opts: PodGcOptions,
  ) {
    this.pods = deps.store('', 'v1', 'pods');
    this.nodes = deps.store('', 'v1', 'nodes');
    this.quarantine = new NodeQuarantine(opts.quarantineMs);
    const informerOpts = (name: string) => ({ name, log: deps.log, clock: deps.clock });
    this.podInformer = deps.informers.informer(this.pods, {}, informerOpts('pods'));
    this.nodeInformer = deps.informers.informer(this.nodes, {}, informerOpts('nodes'));
  }

  async start(): Promise<void> {
    const generation = ++this.generation;
    for (const informer of [this.podInformer, this.nodeInformer]) {
      informer.start();
      await informer.waitForSync();
    }
    if (generation === this.generation) this.pass(generation);
  }

  stop(): void {
    this.generation++;
    this.cancelTick?.();
    this.cancelTick = null;
    this.nodeInformer.stop();
    this.podInformer.stop();
    this.quarantine.clear();
  }

  problem(): string | null {
    return informerAndQueueProblem([this.podInformer, this.nodeInformer], null);
  }

  /** wait.Until: a pass at once, then each next one a period after the last one ended. */
  private pass(generation: number): void {
    void this.gc()
      .catch((err: unknown) => this.deps.log('pod garbage collection failed', err))
      .finally(() => {
        if (generation === this.generation) this.cancelTick = this.deps.clock.after(this.opts.periodMs, () => this.pass(generation));
      });
  }

  private async gc(): Promise<void> {
    const pods = this.podInformer.list() as Pod[];
    const nodes = new Map((this.nodeInformer.list() as Node[]).map((node) => [node.metadata.name!, node]));
    if (this.opts.terminatedPodThreshold > 0) {
      const excess = terminatedOverThreshold(pods, this.opts.terminatedPodThreshold);
      if (excess.length > 0) this.deps.log(`Garbage collecting ${excess.length} pods`);
      await Promise.all(excess.map((pod) => this.markFailedAndDelete(pod)));
    }
    await Promise.all(terminatingOnOutOfServiceNodes(pods, nodes).map((pod) => this.markFailedAndDelete(pod)));
    await this.gcOrphaned(pods, nodes);
    for (const pod of unscheduledTerminating(pods)) await this.markFailedAndDelete(pod);
  }

  private async gcOrphaned(pods: Pod[], nodes: Map<string, Node>): Promise<void> {
    const now = this.deps.clock.now();
    for (const pod of pods) {
      const nodeName = pod.spec?.nodeName;
      if (nodeName && !nodes.has(nodeName)) this.quarantine.hold(nodeName, now);
    }
    const gone = new Set<string>();
    for (const nodeName of this.quarantine.release(now)) {
      if (nodes.has(nodeName)) continue;
      try {
        await this.nodes.get(SYSTEM_READ_ALL, nodeName, FRESH);
      } catch (err) {
        if (NOT_FOUND(err)) gone.add(nodeName);
        // Any other failure: the node is held again on the next pass if still missing.
        else this.deps.log(`Error while getting node ${nodeName}`, err);
      }
    }
    for (const pod of pods) {
      if (!gone.has(pod.spec?.nodeName ?? '')) continue;
      this.deps.log(`Found orphaned Pod ${pod.metadata.namespace}/${pod.metadata.name} assigned to the Node ${pod.spec!.nodeName}, deleting`);
      await this.markFailedAndDelete(pod, NODE_GONE);
    }
  }

  /** markFailedAndDeletePodWithCondition: Failed first (unless already terminal), then deleted with no grace period. */
  private async markFailedAndDelete(pod: Pod, condition?: PodCondition): Promise<void> {
    const namespace = pod.metadata.namespace!;
    const name = pod.metadata.name!;
    try {
      if (!isPodTerminated(pod)) await this.markFailed(pod, condition);
      await this.pods.delete(this.deps.admitted(namespace), name, { dryRun: false, gracePeriodSeconds: 0 });
    } catch (err) {
      if (!NOT_FOUND(err)) this.deps.log(`pod garbage collector could not delete pod ${namespace}/${name}`, err);
    }
  }

  /** PatchPodStatus with the pod's uid as precondition: a pod of the same name made since is left alone. */
  private async markFailed(pod: Pod, condition: PodCondition | undefined): Promise<void> {
    const namespace = pod.metadata.namespace!;
    const name = pod.metadata.name!;
    await this.pods.update(
      withInfo(this.deps.own(namespace), { subresource: 'status' }),
      name,
      (current: Pod) => {
        if (current.metadata.uid !== pod.metadata.uid) {
          throw conflict(
            { group: '', resource: 'pods' },
            name,
            `Precondition failed: UID in precondition: ${pod.metadata.uid}, UID in object meta: ${current.metadata.uid}`,
          );
        }
        const status = (current.status ??= {});
        status.phase = 'Failed';
        if (condition) status.conditions = withCondition(status.conditions ?? [], condition, timestampAt(this.deps.clock.now() / 1000));
        return current;
      },
      { dryRun: false },
    );
  }
}
