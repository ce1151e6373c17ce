import { scheduledPods } from '../pods/scheduled-pods';
import type { ObjectStore } from '../../registry/types';
import { jsonEqual } from '../../api/deep-equal';
import { isStatusError } from '../../api/errors';
import type { KubeObject } from '../../api/types';
import type { Node, Pod, Taint } from '../../generated/types/core/v1';
import { withInfo } from '../../registry/request-context';
import { timestampAt } from '../../registry/time';
import { DueTimers } from '../../nodes/due-timers';
import type { Controller } from '../runtime/controller';
import { informerAndQueueProblem } from '../runtime/controller';
import type { ControllerDeps } from '../runtime/controller-deps';
import type { EventRecorder } from '../runtime/event-recorder';
import { type CachedInformer, objectKey } from '../runtime/informer';
import { WorkQueue } from '../work-queue';
import { matchingTolerations, minTolerationMs } from './taints';

const noExecuteTaints = (node: Node | undefined): Taint[] => (node?.spec?.taints ?? []).filter((t) => t.effect === 'NoExecute');

/**
 * kube-controller-manager's taint-eviction-controller (pkg/controller/tainteviction): a pod on a
 * node with NoExecute taints it does not all tolerate is deleted at once; one that tolerates them
 * for a while is deleted when the least tolerationSeconds of the tolerations used has passed
 * (counted from when the eviction was first scheduled); one tolerating them forever stays. A
 * deletion gets the DisruptionTarget condition first and the TaintManagerEviction event; a
 * scheduled one the taints no longer call for is cancelled, with its event.
 */
export class TaintEvictionController implements Controller {
  readonly name = 'taint-eviction-controller';
  private readonly pods: ObjectStore;
  private readonly nodeInformer: CachedInformer;
  private readonly podInformer: CachedInformer;
  private readonly queue: WorkQueue;
  private readonly recorder: EventRecorder;
  private readonly timers: DueTimers;
  /** Scheduled evictions by pod key: when each was scheduled and when it fires. */
  private readonly scheduled = new Map<string, { createdMs: number; fireMs: number; pod: Pod }>();

  constructor(private readonly deps: ControllerDeps) {
    const { log, clock } = deps;
    this.pods = deps.store('', 'v1', 'pods');
    this.recorder = deps.recorder('taint-eviction-controller');
    this.queue = new WorkQueue(
      (key) => this.evict(key),
      (key, err) => log(`taint eviction: pod ${key} failed`, err),
      1000,
      clock,
    );
    this.timers = new DueTimers(clock, (key) => this.queue.add(key));
    this.nodeInformer = deps.informers.informer(
      deps.store('', 'v1', 'nodes'),
      {
        added: (node) => this.nodeChanged(node.metadata.name ?? ''),
        updated: (old, node) => {
          if (!jsonEqual(noExecuteTaints(old as Node), noExecuteTaints(node as Node))) this.nodeChanged(node.metadata.name ?? '');
        },
        deleted: (node) => this.nodeChanged(node.metadata.name ?? ''),
      },
      { name: 'nodes' },
    );
    this.podInformer = deps.informers.informer(
      this.pods,
      {
        added: (pod) => this.podChanged(pod as Pod),
        updated: (old, pod) => {
          const before = old as Pod;
          const after = pod as Pod;
          if (!jsonEqual(before.spec?.tolerations, after.spec?.tolerations) || before.spec?.nodeName !== after.spec?.nodeName) this.podChanged(after);
        },
        deleted: (pod) => this.cancel(objectKey(pod)),
      },
      { name: 'pods', filter: scheduledPods },
    );
  }

  async start(): Promise<void> {
    this.queue.start();
    for (const informer of [this.nodeInformer, this.podInformer]) {
      informer.start();
      await informer.waitForSync();
    }
    for (const pod of this.podInformer.list()) this.podChanged(pod as Pod);
  }

  stop(): void {
    this.podInformer.stop();
    this.nodeInformer.stop();
    this.timers.clear();
    this.scheduled.clear();
    this.queue.stop();
  }

  problem(): string | null {
    return informerAndQueueProblem([this.nodeInformer, this.podInformer], this.queue);
  }

  private nodeChanged(nodeName: string): void {
    for (const pod of this.podInformer.list() as Pod[]) if (pod.spec?.nodeName === nodeName) this.podChanged(pod);
  }

  /** processPodOnNode. */
  private podChanged(pod: Pod): void {
    const key = objectKey(pod);
    const taints = noExecuteTaints(this.nodeInformer.get(pod.spec?.nodeName ?? '') as Node | undefined);
    if (taints.length === 0) {
      this.cancel(key);
      return;
    }
    const now = this.deps.clock.now();
    const { all, used } = matchingTolerations(taints, pod.spec?.tolerations ?? []);
    if (!all) {
      this.cancel(key);
      this.schedule(key, pod, now, now);
      return;
    }
    const tolerated = minTolerationMs(used);
    if (tolerated === null) {
      this.cancel(key);
      return;
    }
    // As kube's: an eviction scheduled earlier stands as it is.
    const existing = this.scheduled.get(key);
    if (existing && existing.createdMs < now) return;
    this.cancel(key);
    this.schedule(key, pod, now, now + tolerated);
  }

  private schedule(key: string, pod: Pod, createdMs: number, fireMs: number): void {
    this.scheduled.set(key, { createdMs, fireMs, pod });
    if (fireMs <= this.deps.clock.now()) this.queue.add(key);
    else this.timers.at(key, fireMs);
  }

  private cancel(key: string): void {
    const scheduled = this.scheduled.get(key);
    if (!scheduled) return;
    this.scheduled.delete(key);
    this.timers.cancel(key);
    this.recorder.event(scheduled.pod, 'Normal', 'TaintManagerEviction', `Cancelling deletion of Pod ${key}`);
  }

  /** deletePodHandler: the event, the DisruptionTarget condition, then the deletion (with the pod's own grace period). */
  private async evict(key: string): Promise<boolean> {
    const scheduled = this.scheduled.get(key);
    if (!scheduled || scheduled.fireMs > this.deps.clock.now()) return true;
    const { pod } = scheduled;
    this.recorder.event(pod, 'Normal', 'TaintManagerEviction', `Marking for deletion Pod ${key}`);
    const namespace = pod.metadata.namespace ?? '';
    const name = pod.metadata.name ?? '';
    const at = timestampAt(this.deps.clock.now() / 1000);
    try {
      await this.pods.update(
        withInfo(this.deps.admitted(namespace), { subresource: 'status' }),
        name,
        (current: KubeObject) => {
          const live = current as Pod;
          const conditions = live.status?.conditions ?? [];
          const target = {
            type: 'DisruptionTarget',
            status: 'True',
            reason: 'DeletionByTaintManager',
            message: 'Taint manager: deleting due to NoExecute taint',
          };
          const before = conditions.find((c) => c.type === 'DisruptionTarget');
          const changed = !before || before.status !== target.status || before.reason !== target.reason || before.message !== target.message;
          if (changed) {
            const next = { ...target, lastTransitionTime: before?.status === 'True' ? before.lastTransitionTime : at };
            live.status = { ...live.status, conditions: before ? conditions.map((c) => (c === before ? next : c)) : [...conditions, next] };
          }
          return live;
        },
        { dryRun: false },
      );
      await this.pods.delete(this.deps.admitted(namespace), name, { dryRun: false });
    } catch (err) {
      if (!isStatusError(err) || err.code !== 404) throw err;
    }
    if (this.scheduled.get(key) === scheduled) this.scheduled.delete(key);
    return true;
  }
}
