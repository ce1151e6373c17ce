import type { ObjectStore } from '../registry/types';
import { isStatusError } from '../api/errors';
import { isPlainObject, type KubeObject } from '../api/types';
import { addLists, listsEqual, maskList, resourceListJson, resourceListOf, zeroAmount, type ResourceList } from '../admission/resource-quota/amounts';
import { evaluatorFor, quotaScopes, resourcesNamedBy, type QuotaEvaluator } from '../admission/resource-quota/evaluators';
import { systemReadContext, systemContext, SERVER_OWN_WRITE } from '../registry/request-context';
import { everything } from '../storage/interfaces';
import { informerAndQueueProblem, type Controller } from './runtime/controller';
import { CachedInformer, type ControllerLog } from './runtime/informer';
import { systemClock, type Clock } from './runtime/clock';
import { WorkQueue } from './work-queue';
import type { SharedInformers } from './runtime/shared-informers';
import { jsonClone } from '../api/json-clone';

const RETRY_MS = 1000;

/** The stored resources quota can count, by group and resource. */
export type StoreFinder = (group: string, resource: string) => ObjectStore | undefined;

const hardOf = (quota: KubeObject): ResourceList => resourceListOf(isPlainObject(quota.spec) ? quota.spec.hard : undefined);
const statusOf = (quota: KubeObject): { hard: ResourceList; used: ResourceList } => {
  const status = isPlainObject(quota.status) ? quota.status : {};
  return { hard: resourceListOf(status.hard), used: resourceListOf(status.used) };
};

/**
 * kube-controller-manager's resourcequota-controller (pkg/controller/resourcequota): every quota's
 * status.hard is its spec.hard and status.used what the namespace's objects use, recomputed when
 * the quota's spec changes, when an object it counts is deleted or changes its usage (replenishment),
 * and for every quota each --resource-quota-sync-period.
 */
export class ResourceQuotaController implements Controller {
  readonly name = 'resourcequota-controller';
  private readonly quotaInformer: CachedInformer;
  /** Replenishment informers, one per resource some quota counts, started as quotas name them. */
  private readonly watched = new Map<string, CachedInformer>();
  private readonly queue: WorkQueue;
  private cancelResync: (() => void) | null = null;
  private stopped = false;

  constructor(
    private readonly quotas: ObjectStore,
    private readonly findStore: StoreFinder,
    private readonly syncPeriodMs: number,
    private readonly sharedInformers: SharedInformers,
    private readonly log: ControllerLog,
    private readonly clock: Clock = systemClock,
  ) {
    this.queue = new WorkQueue(
      (key) => this.sync(key),
      (key, err) => this.log(`resource quota controller: ${key} failed`, err),
      RETRY_MS,
      clock,
    );
    const enqueue = (q: KubeObject): void => this.queue.add(`${q.metadata.namespace}/${q.metadata.name}`);
    this.quotaInformer = this.sharedInformers.informer(
      quotas,
      {
        added: enqueue,
        // Only a change of spec.hard asks for a recount (kube's updateFunc): status writes, admission's charges among them, do not.
        updated: (prev, cur) => {
          if (!listsEqual(hardOf(prev), hardOf(cur))) enqueue(cur);
        },
      },
      { name: 'resourcequotas' },
    );
  }

  async start(): Promise<void> {
    this.stopped = false;
    this.queue.start();
    this.quotaInformer.start();
    await this.quotaInformer.waitForSync();
    this.scheduleResync();
  }

  stop(): void {
    this.stopped = true;
    this.cancelResync?.();
    this.quotaInformer.stop();
    for (const informer of this.watched.values()) informer.stop();
    // Watched again as the quotas name them once started again.
    this.watched.clear();
    this.queue.stop();
  }

  problem(): string | null {
    // A resource no longer served (its CRD deleted) cannot be watched; that is no fault of the controller.
    const served = [...this.watched].filter(([key]) => this.findStore(key.slice(0, key.indexOf('/')), key.slice(key.indexOf('/') + 1)));
    return informerAndQueueProblem([this.quotaInformer, ...served.map(([, informer]) => informer)], this.queue);
  }

  /** enqueueAll, every sync period (never with a period of 0). */
  private scheduleResync(): void {
    if (this.stopped || this.syncPeriodMs <= 0) return;
    this.cancelResync = this.clock.after(this.syncPeriodMs, () => {
      for (const q of this.quotaInformer.list()) this.queue.add(`${q.metadata.namespace}/${q.metadata.name}`);
      this.scheduleResync();
    });
  }

  /** Watches a resource's objects once some quota counts it: a deletion, or a change of what one uses, recounts the namespace's quotas. */
  private watch(group: string, resource: string, store: ObjectStore, evaluator: QuotaEvaluator): void {
    const key = `${group}/${resource}`;
    if (this.watched.has(key) || this.stopped) return;
    const recount = (obj: KubeObject): void => {
      const namespace = obj.metadata.namespace ?? '';
      for (const q of this.quotaInformer.list()) if (q.metadata.namespace === namespace) this.queue.add(`${namespace}/${q.metadata.name}`);
    };
    const informer = this.sharedInformers.informer(
      store,
      {
        deleted: recount,
        updated: (prev, cur) => {
          const now = this.clock.now();
          if (!listsEqual(evaluator.usage(prev, now), evaluator.usage(cur, now))) recount(cur);
        },
      },
      { name: key },
    );
    this.watched.set(key, informer);
    informer.start();
  }

  /** syncResourceQuota: status.hard from spec.hard, status.used counted afresh; written only when it changed. */
  private async sync(key: string): Promise<boolean> {
    const quota = this.quotaInformer.get(key);
    if (!quota) return true;
    const namespace = quota.metadata.namespace!;
    const hard = hardOf(quota);
    const previous = statusOf(quota);
    let used: ResourceList = new Map(previous.used);
    const counted = new Set<string>();
    for (const { group, resource } of this.countedResources(hard.keys())) {
      const store = this.findStore(group, resource);
      const evaluator = evaluatorFor(group, resource);
      const names = evaluator.matchingResources(hard.keys()).filter((n) => !counted.has(n));
      names.forEach((n) => counted.add(n));
      // A resource not served (yet: a CRD to come) has no objects; it is watched once it is served and the quota recounted.
      if (!store) {
        this.watched.get(`${group}/${resource}`)?.stop();
        this.watched.delete(`${group}/${resource}`);
        for (const n of names) used.set(n, zeroAmount());
        continue;
      }
      this.watch(group, resource, store, evaluator);
      if (names.length > 0) used = new Map([...used, ...(await this.usage(store, namespace, quota, evaluator, names))]);
    }
    used = maskList(used, hard.keys());
    if (listsEqual(previous.hard, hard) && listsEqual(previous.used, used)) return true;
    const next = jsonClone(quota);
    next.status = { hard: resourceListJson(hard), used: resourceListJson(used) };
    try {
      await this.quotas.update(
        systemContext({ namespace, resource: 'resourcequotas', subresource: 'status', verb: 'update' }, SERVER_OWN_WRITE),
        quota.metadata.name!,
        next,
        {
          dryRun: false,
        },
      );
    } catch (err) {
      // Moved (admission charged it) or gone: the informer's next version says what to do.
      if (isStatusError(err) && (err.code === 409 || err.code === 404)) return false;
      throw err;
    }
    return true;
  }

  /** The resources whose objects a quota's names count, each once. */
  private countedResources(names: Iterable<string>): { group: string; resource: string }[] {
    const out = new Map<string, { group: string; resource: string }>();
    for (const name of names) {
      const gr = resourcesNamedBy(name);
      if (gr) out.set(`${gr.group}/${gr.resource}`, gr);
    }
    return [...out.values()];
  }

  /** CalculateUsageStats: zero for every counted name, plus what each object in the quota's scopes uses, read live from etcd. */
  private async usage(store: ObjectStore, namespace: string, quota: KubeObject, evaluator: QuotaEvaluator, names: string[]): Promise<ResourceList> {
    const scopes = quotaScopes(quota);
    const now = this.clock.now();
    let total: ResourceList = new Map(names.map((n) => [n, zeroAmount()]));
    const { items } = await store.list(systemReadContext(namespace), { resourceVersion: '', match: '', predicate: everything });
    for (const obj of items) {
      if (!scopes.every((s) => evaluator.matchesScope(s, obj))) continue;
      total = addLists(total, maskList(evaluator.usage(obj, now), names));
    }
    return total;
  }
}
