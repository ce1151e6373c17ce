import type { ObjectStore } from '../registry/types';
import { jsonEqual } from '../api/deep-equal';
import { isStatusError } from '../api/errors';
import type { KubeObject } from '../api/types';
import type { Pod, PodCondition, PodStatus } from '../generated/types/core/v1';
import { withInfo } from '../registry/request-context';
import { timestampAt } from '../registry/time';
import type { ControllerDeps } from '../controllers/runtime/controller-deps';
import { type CachedInformer, objectKey } from '../controllers/runtime/informer';
import type { NodeAgents } from './node-agents';
import { PodIpAllocator } from './pod-cidr';
import { planPod, type PodRun } from './pod-timeline';
import { DueTimers } from './due-timers';
import { yieldToRequests } from '../controllers/runtime/turn-budget';
import { resourcesOf, type Resources } from '../scheduler/resources';
import { withGoZeros } from '../schema/go-zeros';
import { containerEvents, killingEvents, type KubeletEventSinks } from './kubelet-events';

/** Status writes in flight at once. */
const MAX_IN_FLIGHT = 32;
/** A failed write is tried again after this long. */
const RETRY_MS = 1000;

/** The conditions the kubelet owns; others (DisruptionTarget, readiness gates', the scheduler's PodScheduled) are kept as they are. */
const KUBELET_CONDITIONS = new Set(['PodReadyToStartContainers', 'Initialized', 'Ready', 'ContainersReady', 'PodResizePending', 'PodResizeInProgress']);

interface Tracked {
  uid: string;
  nodeName: string;
  run: PodRun;
  /** The pod as this agent last wrote it: its resourceVersion, and when its plan next changes. */
  written?: { resourceVersion: string; nextChangeMs: number | null };
}

const NOTHING_TO_DO = Symbol('nothing to do');

/**
 * The new status as the kubelet's status manager writes it over `current`: its own conditions
 * keep their lastTransitionTime while their status holds, conditions it does not own are kept,
 * and PodScheduled is added when nothing set it.
 */
export function mergeStatus(current: PodStatus | undefined, next: PodStatus, now: string): PodStatus {
  const previous = new Map((current?.conditions ?? []).map((c) => [c.type, c]));
  const conditions: PodCondition[] = [];
  for (const c of next.conditions ?? []) {
    const before = previous.get(c.type);
    if (c.type === 'PodScheduled' && before) {
      conditions.push(before);
      continue;
    }
    const since = before && before.status === c.status && before.lastTransitionTime ? before.lastTransitionTime : now;
    conditions.push({ ...c, lastTransitionTime: since });
  }
  for (const c of current?.conditions ?? []) if (!KUBELET_CONDITIONS.has(c.type ?? '') && c.type !== 'PodScheduled') conditions.push(c);
  // With the zero values Go writes (a condition's lastProbeTime: null), as the stored status has
  // them: compared without them, every sync saw a change and wrote a status etcd already held.
  return withGoZeros('k8s.io.api.core.v1.PodStatus', { ...current, ...next, conditions });
}

/**
 * The pod side of the simulated kubelets: every pod bound to a simulated node whose kubelet runs
 * is driven through its timeline (planPod), its status written through pods/status when it
 * changes, and removed (grace 0) once its containers have stopped after its deletion. One
 * informer of the pods on simulated nodes; changes due later wait on one timer.
 */
export class PodAgent {
  readonly informer: CachedInformer;
  private readonly pods: ObjectStore;
  private readonly tracked = new Map<string, Tracked>();
  private readonly ips = new Map<string, PodIpAllocator>();
  private readonly timers: DueTimers;
  private readonly allocatable: Resources;
  private inFlight = 0;
  private readonly waiting: string[] = [];
  private readonly queued = new Set<string>();
  private running = false;

  constructor(
    private readonly deps: ControllerDeps,
    private readonly agents: NodeAgents,
    private readonly defaultRunMs: number,
    private readonly events: KubeletEventSinks,
  ) {
    this.pods = deps.store('', 'v1', 'pods');
    this.allocatable = resourcesOf(agents.allocatable);
    for (const name of agents.names) this.ips.set(name, new PodIpAllocator(agents.simulated(name)!.podCidr));
    const names = agents.names;
    this.timers = new DueTimers(deps.clock, (key) => this.enqueue(key));
    this.informer = deps.informers.informer(
      this.pods,
      {
        added: (pod) => this.observe(pod as Pod),
        updated: (_, pod) => this.observe(pod as Pod),
        deleted: (pod) => this.removed(pod as Pod),
      },
      {
        name: 'pods on simulated nodes',
        filter: {
          description: 'spec.nodeName in the simulated nodes',
          predicate: { matches: (o) => names.has((o as Pod).spec?.nodeName ?? ''), empty: false },
        },
      },
    );
  }

  async start(): Promise<void> {
    this.running = true;
    this.informer.start();
    await this.informer.waitForSync();
  }

  stop(): void {
    this.running = false;
    this.informer.stop();
    this.timers.clear();
  }

  /** A node's kubelet runs again: each of its pods gets a look. */
  resume(nodeName: string): void {
    for (const [key, t] of this.tracked) if (t.nodeName === nodeName) this.enqueue(key);
  }

  private observe(pod: Pod): void {
    const key = objectKey(pod);
    const nodeName = pod.spec?.nodeName ?? '';
    let t = this.tracked.get(key);
    if (t && t.uid !== pod.metadata.uid) {
      this.forget(key);
      t = undefined;
    }
    if (!t) {
      const started = pod.status?.startTime ? Date.parse(pod.status.startTime) : NaN;
      const simulated = this.agents.simulated(nodeName)!;
      t = {
        uid: pod.metadata.uid ?? '',
        nodeName,
        run: {
          admittedMs: Number.isNaN(started) ? this.deps.clock.now() : started,
          deletionSeenMs: null,
          hostIP: simulated.internalIp,
          podIP: '',
          defaultRunMs: this.defaultRunMs,
          allocatable: this.allocatable,
        },
      };
      const phase = pod.status?.phase;
      if (pod.status?.podIP && phase !== 'Succeeded' && phase !== 'Failed') {
        this.ips.get(nodeName)!.reserve(pod.status.podIP);
        t.run.podIP = pod.status.podIP;
      }
      this.tracked.set(key, t);
    }
    this.enqueue(key);
  }

  /**
   * A pod gone from the API: one deleted without a grace period (or before this kubelet saw its
   * deletion) still has running containers, which the kubelet kills (HandlePodRemoves, killPod).
   */
  private removed(pod: Pod): void {
    const key = objectKey(pod);
    const t = this.tracked.get(key);
    if (t && t.uid === pod.metadata.uid && t.run.deletionSeenMs === null && this.agents.isRunning(t.nodeName)) {
      this.events.aboutPod(t.nodeName, pod, killingEvents(pod));
    }
    this.forget(key);
  }

  private forget(key: string): void {
    const t = this.tracked.get(key);
    if (!t) return;
    if (t.run.podIP) this.ips.get(t.nodeName)?.release(t.run.podIP);
    this.tracked.delete(key);
    this.timers.cancel(key);
  }

  private enqueue(key: string): void {
    if (!this.running || this.queued.has(key)) return;
    this.queued.add(key);
    this.waiting.push(key);
    this.pump();
  }

  private pump(): void {
    while (this.inFlight < MAX_IN_FLIGHT && this.waiting.length > 0) {
      const key = this.waiting.shift()!;
      this.queued.delete(key);
      this.inFlight++;
      void this.sync(key)
        .catch((err: unknown) => {
          this.deps.log(`simulated kubelet: pod ${key} failed`, err);
          this.timers.at(key, this.deps.clock.now() + RETRY_MS);
        })
        .finally(() => {
          this.inFlight--;
          this.pump();
        });
    }
  }

  private async sync(key: string): Promise<void> {
    await yieldToRequests();
    const pod = this.informer.get(key) as Pod | undefined;
    const t = this.tracked.get(key);
    if (!pod || !t || !this.agents.isRunning(t.nodeName)) return;
    const now = this.deps.clock.now();
    // The informer telling of this agent's own write: the pod is as the plan left it (a plan is a
    // function of the pod and the time), and nothing is due before the timer already set.
    const written = t.written;
    if (written !== undefined && written.resourceVersion === pod.metadata.resourceVersion && (written.nextChangeMs === null || now < written.nextChangeMs))
      return;
    // A stopped kubelet learns of a deletion only once it runs again.
    if (pod.metadata.deletionTimestamp && t.run.deletionSeenMs === null) {
      t.run.deletionSeenMs = now;
      this.events.aboutPod(t.nodeName, pod, killingEvents(pod));
    }
    if (!t.run.podIP && pod.status?.phase !== 'Succeeded' && pod.status?.phase !== 'Failed') {
      t.run.podIP = this.ips.get(t.nodeName)!.allocate() ?? '';
    }
    const plan = planPod(pod, t.run, now);
    if (plan.status.phase === 'Succeeded' || plan.status.phase === 'Failed') {
      // The sandbox is gone: its address may be handed out again.
      if (t.run.podIP) this.ips.get(t.nodeName)!.release(t.run.podIP);
    }
    const result = await this.writeStatus(pod, plan.status, now);
    if (result !== null) {
      t.written = { resourceVersion: result.resourceVersion, nextChangeMs: plan.nextChangeMs };
      // What the written status shows the kubelet did since the status it replaced (the stored
      // one: the informer's copy may not hold this agent's last write yet).
      this.events.aboutPod(t.nodeName, pod, containerEvents(pod, result.replaced, plan.status, this.events.imagesOf(t.nodeName)));
    }
    if (plan.remove) {
      await this.remove(pod);
      return;
    }
    if (plan.nextChangeMs !== null) this.timers.at(key, plan.nextChangeMs);
  }

  /** Writes the status when it changes; the resourceVersion written and the status it replaced, or null when nothing was. */
  private async writeStatus(pod: Pod, status: PodStatus, nowMs: number): Promise<{ resourceVersion: string; replaced: PodStatus | undefined } | null> {
    const namespace = pod.metadata.namespace ?? '';
    const now = timestampAt(nowMs / 1000);
    if (jsonEqual(mergeStatus(pod.status, status, now), pod.status)) return null;
    let replaced: PodStatus | undefined;
    try {
      const { object } = await this.pods.update(
        withInfo(this.deps.own(namespace), { subresource: 'status', name: pod.metadata.name ?? '' }),
        pod.metadata.name ?? '',
        (current: KubeObject) => {
          const live = current as Pod;
          if (live.metadata.uid !== pod.metadata.uid) throw NOTHING_TO_DO;
          const merged = mergeStatus(live.status, status, now);
          if (jsonEqual(merged, live.status)) throw NOTHING_TO_DO;
          replaced = live.status;
          live.status = merged;
          return live;
        },
        { dryRun: false },
      );
      return object.metadata.resourceVersion === undefined ? null : { resourceVersion: object.metadata.resourceVersion, replaced };
    } catch (err) {
      if (err === NOTHING_TO_DO || (isStatusError(err) && err.code === 404)) return null;
      throw err;
    }
  }

  /** The status manager's final delete: grace 0, only this pod (a new one of the name is not touched). */
  private async remove(pod: Pod): Promise<void> {
    try {
      await this.pods.delete(this.deps.own(pod.metadata.namespace ?? ''), pod.metadata.name ?? '', {
        dryRun: false,
        gracePeriodSeconds: 0,
        preconditions: { uid: pod.metadata.uid },
      });
    } catch (err) {
      if (isStatusError(err) && (err.code === 404 || err.code === 409)) return;
      throw err;
    }
  }
}
