import type { ObjectStore } from '../registry/types';
import { isStatusError } from '../api/errors';
import { isPlainObject, type KubeObject } from '../api/types';
import type { ResourceRegistry } from '../registry/resource-registry';
import { everything } from '../storage/interfaces';
import { NAMESPACE_FINALIZER, namespaceFinalizers } from '../resources/namespaces';
import { updatedConditions, type ContentTotals, type NamespaceCondition } from './namespace-conditions';
import { QueueController } from './runtime/controller';
import { systemClock, type Clock } from './runtime/clock';
import { CachedInformer, type ControllerLog } from './runtime/informer';
import { WorkQueue } from './work-queue';
import { SYSTEM_READ_ALL, systemReadContext, systemContext, SERVER_OWN_WRITE } from '../registry/request-context';
import type { SharedInformers } from './runtime/shared-informers';

export type { ControllerLog } from './runtime/informer';

const RETRY_MS = 1000;
/** kube-controller-manager's --namespace-sync-period. */
const RESYNC_MS = 5 * 60_000;

/**
 * Empties terminating namespaces, then removes the "kubernetes" finalizer so that they go away.
 * Everything it knows comes from etcd (an informer on namespaces), so it resumes after a restart,
 * a lost watch, or a change of leader.
 */
export class NamespaceController extends QueueController {
  readonly name = 'namespace-controller';
  protected readonly queue: WorkQueue;
  private readonly informer: CachedInformer;

  constructor(
    private readonly registry: ResourceRegistry,
    private readonly namespaces: ObjectStore,
    informers: SharedInformers,
    private readonly log: ControllerLog,
    clock: Clock = systemClock,
  ) {
    super();
    this.queue = new WorkQueue(
      (name) => this.finalize(name),
      (name, err) => this.log(`namespace controller: finalizing ${name} failed`, err),
      RETRY_MS,
      clock,
    );
    const observe = (ns: KubeObject): void => {
      if (ns.metadata.deletionTimestamp && namespaceFinalizers(ns).includes(NAMESPACE_FINALIZER)) this.queue.add(ns.metadata.name!);
    };
    this.informer = informers.informer(namespaces, { added: observe, updated: (_, ns) => observe(ns) }, { name: 'namespaces', resyncMs: RESYNC_MS });
  }

  protected get informers(): CachedInformer[] {
    return [this.informer];
  }

  private namespacedStores(): ObjectStore[] {
    return this.registry.stored().filter((s) => s.def.namespaced && s.def.verbs.includes('delete'));
  }

  /**
   * One pass of the namespace deleter: deletes everything in the namespace (in the background, so
   * that the collector's finalizers are not added), records what is left in the status
   * conditions, and once nothing is left removes the "kubernetes" finalizer. True when done.
   */
  private async finalize(name: string): Promise<boolean> {
    let ns: KubeObject;
    try {
      ns = await this.namespaces.get(SYSTEM_READ_ALL, name, { resourceVersion: '', match: '' });
    } catch (err) {
      if (isStatusError(err) && err.code === 404) return true;
      throw err;
    }
    if (!ns.metadata.deletionTimestamp || !namespaceFinalizers(ns).includes(NAMESPACE_FINALIZER)) return true;
    const totals: ContentTotals = { remainingByResource: new Map(), remainingByFinalizer: new Map(), deleteErrors: [] };
    for (const store of this.namespacedStores()) {
      try {
        await this.deleteContent(store, name, totals);
      } catch (err) {
        totals.deleteErrors.push(err instanceof Error ? err.message : String(err));
      }
    }
    await this.writeConditions(ns, totals);
    if (totals.deleteErrors.length > 0 || totals.remainingByResource.size > 0) return false;
    try {
      await this.namespaces.update(
        systemContext({ namespace: '', subresource: 'finalize' }, SERVER_OWN_WRITE),
        name,
        (current) => {
          const spec = (current.spec ?? {}) as { finalizers?: string[] };
          current.spec = { ...spec, finalizers: (spec.finalizers ?? []).filter((f) => f !== NAMESPACE_FINALIZER) };
          return current;
        },
        { dryRun: false },
      );
    } catch (err) {
      if (!(isStatusError(err) && err.code === 404)) throw err;
    }
    return true;
  }

  /** deleteAllContentForGroupVersionResource: delete the collection, then count what stays and why. */
  private async deleteContent(store: ObjectStore, namespace: string, totals: ContentTotals): Promise<void> {
    const { def } = store;
    const all = { resourceVersion: '', match: '' as const, predicate: everything };
    for (const item of (await store.list(systemReadContext(namespace), all)).items) {
      try {
        await store.delete(systemContext({ namespace }, SERVER_OWN_WRITE), item.metadata.name!, { dryRun: false, propagationPolicy: 'Background' });
      } catch (err) {
        if (!(isStatusError(err) && err.code === 404)) throw err;
      }
    }
    const left = (await store.list(systemReadContext(namespace), all)).items;
    if (left.length === 0) return;
    totals.remainingByResource.set(`${def.resource}.${def.group}`, left.length);
    let held = false;
    for (const item of left) {
      for (const f of item.metadata.finalizers ?? []) {
        held = true;
        totals.remainingByFinalizer.set(f, (totals.remainingByFinalizer.get(f) ?? 0) + 1);
      }
      // A graceful deletion (a pod on a node) that is still running its course.
      if ((item.metadata.deletionGracePeriodSeconds ?? 0) > 0) held = true;
    }
    if (!held) throw new Error(`unexpected items still remain in namespace: ${namespace} for gvr: {${def.group} ${def.version} ${def.resource}}`);
  }

  private async writeConditions(ns: KubeObject, totals: ContentTotals): Promise<void> {
    const status = isPlainObject(ns.status) ? ns.status : {};
    const existing = Array.isArray(status.conditions) ? (status.conditions as NamespaceCondition[]) : [];
    const conditions = updatedConditions(existing, totals);
    if (!conditions) return;
    try {
      await this.namespaces.update(
        systemContext({ namespace: '', subresource: 'status' }, SERVER_OWN_WRITE),
        ns.metadata.name!,
        (current) => {
          current.status = { ...(isPlainObject(current.status) ? current.status : {}), conditions };
          return current;
        },
        { dryRun: false },
      );
    } catch (err) {
      this.log(`namespace controller: couldn't update status condition for namespace ${JSON.stringify(ns.metadata.name)}`, err);
    }
  }
}
