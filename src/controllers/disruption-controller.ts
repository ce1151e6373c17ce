import type { ObjectStore } from '../registry/types';
import { jsonEqual } from '../api/deep-equal';
import { isStatusError } from '../api/errors';
import { fromLabelSelectorStruct, matchesLabels, type LabelSelectorStruct } from '../api/label-selector';
import { objectOf, objectsIn } from '../api/json-read';
import { isPlainObject, type KubeObject, type OwnerReference } from '../api/types';
import { systemContext, systemReadContext, SERVER_OWN_WRITE } from '../registry/request-context';
import type { ResourceRegistry } from '../registry/resource-registry';
import { QueueController } from './runtime/controller';
import { CachedInformer, objectKey } from './runtime/informer';
import { systemClock, type Clock } from './runtime/clock';
import { WorkQueue } from './work-queue';
import type { SharedInformers } from './runtime/shared-informers';
import { jsonClone } from '../api/json-clone';

type Log = (message: string, err?: unknown) => void;
type Obj = Record<string, unknown>;

const RETRY_MS = 1000;
/** DeletionTimeout: how long an evicted pod may take to go before it counts again. */
const DELETION_TIMEOUT_MS = 2 * 60_000;

const CACHED = { resourceVersion: '0', match: '' as const };
const num = (v: unknown): number => (typeof v === 'number' ? v : 0);
const groupOf = (apiVersion: string): string => (apiVersion.includes('/') ? apiVersion.split('/')[0] : '');
const controllerOf = (obj: KubeObject): OwnerReference | undefined => obj.metadata.ownerReferences?.find((r) => r.controller === true);
const rfc3339 = (ms: number): string => new Date(ms).toISOString().replace(/\.\d+Z$/, 'Z');

/** podutil.IsPodReady. */
function isReady(pod: KubeObject): boolean {
  return objectsIn(objectOf(pod.status).conditions).some((c) => c.type === 'Ready' && c.status === 'True');
}

/** metav1.LabelSelectorAsSelector over a budget's selector: none matches nothing, an empty one everything, an invalid one nothing. */
function selects(pdb: KubeObject, pod: KubeObject): boolean {
  const selector = objectOf(pdb.spec).selector;
  if (!isPlainObject(selector) || pod.metadata.namespace !== pdb.metadata.namespace) return false;
  try {
    return matchesLabels(fromLabelSelectorStruct(selector as LabelSelectorStruct), pod.metadata.labels ?? {});
  } catch {
    return false;
  }
}

/** intstr.GetScaledValueFromIntOrPercent rounding up. */
function scaled(value: unknown, total: number): number {
  if (typeof value === 'number') return value;
  return Math.ceil((Number(String(value).slice(0, -1)) * total) / 100);
}

/** What a budget's status should be, or why it cannot be known (the controller's failSafe). */
type Computed = { status: Obj; recheckAt: number | null } | { error: string };

/** apimeta.SetStatusCondition: the transition time moves only when the status does. */
function setCondition(status: Obj, condition: Obj, now: number): void {
  const conditions = objectsIn(status.conditions);
  const old = conditions.find((c) => c.type === condition.type);
  const lastTransitionTime = old && old.status === condition.status ? old.lastTransitionTime : rfc3339(now);
  // metav1.Condition's field order.
  const next = {
    type: condition.type,
    status: condition.status,
    observedGeneration: condition.observedGeneration,
    lastTransitionTime,
    reason: condition.reason,
    message: condition.message,
  };
  status.conditions = old ? conditions.map((c) => (c === old ? next : c)) : [...conditions, next];
}

/**
 * kube-controller-manager's disruption controller (pkg/controller/disruption): each
 * PodDisruptionBudget's status from the pods it selects: how many are healthy (Ready, not being
 * deleted, not just evicted), how many must be, how many are expected (for maxUnavailable and
 * percentages, the scale of the pods' controllers), so how many disruptions are allowed; evicted
 * pods stay in disruptedPods until they go or two minutes pass.
 */
export class DisruptionController extends QueueController {
  readonly name = 'disruption-controller';
  private readonly budgets: CachedInformer;
  private readonly pods: CachedInformer;
  protected readonly queue: WorkQueue;
  private readonly rechecks = new Map<string, () => void>();

  constructor(
    private readonly registry: ResourceRegistry,
    private readonly pdbStore: ObjectStore,
    podStore: ObjectStore,
    informers: SharedInformers,
    private readonly log: Log,
    private readonly clock: Clock = systemClock,
  ) {
    super();
    this.queue = new WorkQueue(
      (key) => this.sync(key),
      (key, err) => this.log(`disruption controller: ${key} failed`, err),
      RETRY_MS,
      clock,
    );
    const enqueue = (pdb: KubeObject) => this.queue.add(objectKey(pdb));
    const podChanged = (pod: KubeObject) => {
      for (const pdb of this.budgets.list()) if (selects(pdb, pod)) enqueue(pdb);
    };
    this.budgets = informers.informer(pdbStore, { added: enqueue, updated: (_, pdb) => enqueue(pdb), deleted: enqueue }, { name: 'poddisruptionbudgets' });
    this.pods = informers.informer(
      podStore,
      {
        added: podChanged,
        updated: (old, pod) => {
          podChanged(old);
          podChanged(pod);
        },
        deleted: podChanged,
      },
      { name: 'pods' },
    );
  }

  protected get informers(): CachedInformer[] {
    return [this.pods, this.budgets];
  }

  override stop(): void {
    super.stop();
    for (const cancel of this.rechecks.values()) cancel();
    this.rechecks.clear();
  }

  private async sync(key: string): Promise<boolean> {
    this.rechecks.get(key)?.();
    this.rechecks.delete(key);
    const pdb = this.budgets.get(key);
    if (!pdb) return true;
    const now = this.clock.now();
    const computed = await this.compute(pdb, now);
    const status = 'error' in computed ? this.failSafe(pdb, computed.error, now) : this.withCondition(pdb, computed.status, now);
    if (!status) return true;
    if ('status' in computed && computed.recheckAt !== null) {
      this.rechecks.set(
        key,
        this.clock.after(Math.max(0, computed.recheckAt - now), () => this.queue.add(key)),
      );
    }
    try {
      // Guarded by the version read: an eviction that spent the budget meanwhile is never overwritten.
      await this.pdbStore.update(
        systemContext({ namespace: pdb.metadata.namespace ?? '', subresource: 'status' }, SERVER_OWN_WRITE),
        pdb.metadata.name!,
        { ...pdb, status },
        { dryRun: false },
      );
    } catch (err) {
      if (isStatusError(err) && (err.code === 409 || err.code === 404)) return err.code === 404;
      throw err;
    }
    return true;
  }

  /** trySync: the pods, the expected count, the disrupted pods still expected to go, the healthy ones. */
  private async compute(pdb: KubeObject, now: number): Promise<Computed> {
    const pods = this.pods.list().filter((pod) => selects(pdb, pod));
    const spec = objectOf(pdb.spec);
    let expectedPods = 0;
    let desiredHealthy = 0;
    try {
      if (spec.maxUnavailable !== undefined && spec.maxUnavailable !== null) {
        expectedPods = await this.expectedScale(pods);
        desiredHealthy = Math.max(0, expectedPods - scaled(spec.maxUnavailable, expectedPods));
      } else if (typeof spec.minAvailable === 'number') {
        desiredHealthy = spec.minAvailable;
        expectedPods = pods.length;
      } else if (typeof spec.minAvailable === 'string') {
        expectedPods = await this.expectedScale(pods);
        desiredHealthy = scaled(spec.minAvailable, expectedPods);
      }
    } catch (err) {
      return { error: err instanceof Error ? err.message : String(err) };
    }
    // buildDisruptedPodMap: pods being deleted and evictions older than the timeout are dropped.
    const recorded = objectOf(objectOf(pdb.status).disruptedPods);
    const disruptedPods: Obj = {};
    let recheckAt: number | null = null;
    for (const pod of pods) {
      const at = recorded[pod.metadata.name!];
      if (pod.metadata.deletionTimestamp || typeof at !== 'string') continue;
      const expectedDeletion = Date.parse(at) + DELETION_TIMEOUT_MS;
      if (expectedDeletion < now) continue;
      disruptedPods[pod.metadata.name!] = at;
      if (recheckAt === null || expectedDeletion < recheckAt) recheckAt = expectedDeletion;
    }
    // countHealthyPods.
    const currentHealthy = pods.filter((pod) => !pod.metadata.deletionTimestamp && !(pod.metadata.name! in disruptedPods) && isReady(pod)).length;
    // A budget matching no pods yet allows nothing, so its first pods are safe before it is synced.
    const allowed = currentHealthy - desiredHealthy;
    const disruptionsAllowed = expectedPods <= 0 || allowed <= 0 ? 0 : allowed;
    const status: Obj = {
      ...(Object.keys(disruptedPods).length > 0 ? { disruptedPods } : {}),
      observedGeneration: pdb.metadata.generation ?? 0,
      disruptionsAllowed,
      currentHealthy,
      desiredHealthy,
      expectedPods,
      conditions: objectOf(pdb.status).conditions ?? [],
    };
    return { status, recheckAt };
  }

  /**
   * getExpectedScale: the sum of the scales of the pods' controllers (a Deployment for its
   * ReplicaSets' pods, else any kind with a scale subresource); pods without a controller are
   * left out, a controller that cannot be found is an error.
   */
  private async expectedScale(pods: KubeObject[]): Promise<number> {
    const scales = new Map<string, number>();
    for (const pod of pods) {
      const ref = controllerOf(pod);
      if (!ref || scales.has(ref.uid)) continue;
      const found = await this.scaleOf(ref, pod.metadata.namespace ?? '');
      if (!found) throw new Error(`found no controllers for pod "${pod.metadata.name}"`);
      scales.set(found.uid, found.replicas);
    }
    return [...scales.values()].reduce((a, b) => a + b, 0);
  }

  private async scaleOf(ref: OwnerReference, namespace: string): Promise<{ uid: string; replicas: number } | null> {
    const group = groupOf(ref.apiVersion);
    const store = this.registry.stored().find((s) => s.def.group === group && s.def.kind === ref.kind);
    if (!store) return null;
    // getScaleController's answer for a kind without the subresource.
    if (!store.def.subresources.includes('scale'))
      throw new Error(`${group ? `${store.def.resource}.${group}` : store.def.resource} does not implement the scale subresource`);
    const owner = await store.find(systemReadContext(namespace), ref.name, CACHED);
    if (!owner || owner.metadata.uid !== ref.uid) return null;
    // getPodDeployment: a ReplicaSet's pods count by their Deployment's replicas.
    const parent = controllerOf(owner);
    if (ref.kind === 'ReplicaSet' && parent?.kind === 'Deployment' && ['apps', 'extensions'].includes(groupOf(parent.apiVersion))) {
      return this.scaleOf(parent, namespace);
    }
    const scale = await store.get(systemReadContext(namespace, 'scale'), ref.name, CACHED);
    return { uid: owner.metadata.uid!, replicas: num(objectOf(scale.spec).replicas) };
  }

  /** updatePdbStatus with UpdateDisruptionAllowedCondition; null when the budget already says it all. */
  private withCondition(pdb: KubeObject, status: Obj, now: number): Obj | null {
    const allowed = num(status.disruptionsAllowed) > 0;
    setCondition(
      status,
      {
        type: 'DisruptionAllowed',
        status: allowed ? 'True' : 'False',
        observedGeneration: status.observedGeneration,
        reason: allowed ? 'SufficientPods' : 'InsufficientPods',
        message: '',
      },
      now,
    );
    const old = objectOf(pdb.status);
    const same = (k: string) => jsonEqual(old[k] ?? null, status[k] ?? null);
    return ['disruptedPods', 'observedGeneration', 'disruptionsAllowed', 'currentHealthy', 'desiredHealthy', 'expectedPods', 'conditions'].every(same)
      ? null
      : status;
  }

  /** failSafe: nothing may be disrupted while the budget cannot be computed. */
  private failSafe(pdb: KubeObject, message: string, now: number): Obj | null {
    const status = jsonClone(objectOf(pdb.status));
    status.disruptionsAllowed = 0;
    setCondition(
      status,
      { type: 'DisruptionAllowed', status: 'False', observedGeneration: num(status.observedGeneration), reason: 'SyncFailed', message },
      now,
    );
    return jsonEqual(status, pdb.status) ? null : status;
  }
}
