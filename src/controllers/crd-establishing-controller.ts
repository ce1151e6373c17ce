import type { ObjectStore } from '../registry/types';
import { isStatusError } from '../api/errors';
import { SYSTEM_READ_ALL, systemContext, SERVER_OWN_WRITE } from '../registry/request-context';
import { isPlainObject, type KubeObject } from '../api/types';
import { CLEANUP_FINALIZER, crdConditionTrue, crdView, setCrdCondition, type CrdView } from '../resources/customresourcedefinitions';
import { everything } from '../storage/interfaces';
import { everyIdentityLease, replicaOf } from './apiserver-identity';
import type { CrdController, NameConflict } from './crd-controller';
import { QueueController } from './runtime/controller';
import { systemClock, type Clock } from './runtime/clock';
import { CachedInformer, type ControllerLog } from './runtime/informer';
import { WorkQueue } from './work-queue';
import type { SharedInformers } from './runtime/shared-informers';
import { jsonClone } from '../api/json-clone';

const RETRY_MS = 1000;

/**
 * What apiextensions-apiserver's naming, establishing and finalizer controllers do, run by the
 * leader only: NamesAccepted (with the accepted names), then Established once every live replica
 * (by its identity lease) serves the CRD at its current generation; a deleted CRD first loses its
 * custom resources, then its cleanup finalizer. kube's establishing controller waits a fixed 5 s
 * in HA instead of asking the replicas.
 */
export class CrdEstablishingController extends QueueController {
  readonly name = 'apiextensions-establishing-controller';
  protected readonly queue: WorkQueue;
  private readonly crdInformer: CachedInformer;
  private readonly leaseInformer: CachedInformer;

  constructor(
    private readonly crds: ObjectStore,
    leases: ObjectStore,
    private readonly serving: CrdController,
    /** This replica's identity lease name: it must be among the live replicas that serve a CRD. */
    private readonly ownIdentity: string,
    informers: SharedInformers,
    private readonly log: ControllerLog,
    private readonly clock: Clock = systemClock,
  ) {
    super();
    this.queue = new WorkQueue(
      (name) => this.sync(name),
      (name, err) => this.log(`CRD establishing controller: ${name} failed; retrying`, err),
      RETRY_MS,
      clock,
    );
    const enqueue = (crd: KubeObject): void => this.queue.add(crd.metadata.name!);
    this.crdInformer = informers.informer(
      crds,
      { added: enqueue, updated: (_, crd) => enqueue(crd) },
      { name: 'customresourcedefinitions.apiextensions.k8s.io' },
    );
    // A replica that starts serving (or goes away) may be the one a CRD waits for.
    const recheck = (): void => {
      for (const crd of this.crdInformer.list()) if (!crdConditionTrue(crd, 'Established') || crd.metadata.deletionTimestamp) enqueue(crd);
    };
    this.leaseInformer = informers.informer(
      leases,
      { added: recheck, updated: recheck, deleted: recheck },
      { name: 'leases.coordination.k8s.io', namespace: 'kube-system', filter: { description: 'apiserver identity leases', predicate: everyIdentityLease } },
    );
  }

  /** The replicas first, so that the CRDs' first syncs see who serves them. */
  protected get informers(): CachedInformer[] {
    return [this.leaseInformer, this.crdInformer];
  }

  private current(name: string): Promise<KubeObject | null> {
    return this.crds.find(SYSTEM_READ_ALL, name, { resourceVersion: '', match: '' });
  }

  /** False while the CRD waits for replicas or for its custom resources to go. */
  private async sync(name: string): Promise<boolean> {
    const crd = await this.current(name);
    if (!crd) return true;
    if (crd.metadata.deletionTimestamp) return this.cleanUp(crd);
    const view = crdView(crd);
    const conflict = this.serving.nameConflict(view);
    const servedEverywhere = !conflict && this.servedByEveryReplica(crd);
    await this.reportNames(crd, view, conflict, servedEverywhere);
    return !!conflict || servedEverywhere || crdConditionTrue(crd, 'Established');
  }

  /** Every live replica's identity lease records the CRD at its generation; this replica's among them. */
  private servedByEveryReplica(crd: KubeObject): boolean {
    const uid = crd.metadata.uid ?? '';
    const generation = crd.metadata.generation ?? 0;
    const now = this.clock.now();
    const replicas = this.leaseInformer
      .list()
      .map((l) => replicaOf(l, now))
      .filter((r) => r.live);
    if (!replicas.some((r) => r.leaseName === this.ownIdentity)) return false;
    return replicas.every((r) => (r.served.get(uid) ?? -1) >= generation);
  }

  /** NamesAccepted and Established, with the accepted names, as the naming and establishing controllers write them. */
  private async reportNames(crd: KubeObject, view: CrdView, conflict: NameConflict | null, servedEverywhere: boolean): Promise<void> {
    const next = jsonClone(crd);
    const status = (isPlainObject(next.status) ? next.status : {}) as Record<string, unknown>;
    next.status = status;
    if (conflict) {
      setCrdCondition(next, { type: 'NamesAccepted', status: 'False', ...conflict });
      setCrdCondition(next, { type: 'Established', status: 'False', reason: 'NotAccepted', message: 'not all names are accepted' });
    } else {
      status.acceptedNames = acceptedNames(view);
      setCrdCondition(next, { type: 'NamesAccepted', status: 'True', reason: 'NoConflicts', message: 'no conflicts found' });
      if (servedEverywhere || crdConditionTrue(crd, 'Established')) {
        setCrdCondition(next, { type: 'Established', status: 'True', reason: 'InitialNamesAccepted', message: 'the initial names have been accepted' });
      } else {
        setCrdCondition(next, { type: 'Established', status: 'False', reason: 'Installing', message: 'the initial names have been accepted' });
      }
    }
    if (JSON.stringify(next.status) === JSON.stringify(crd.status)) return;
    await this.writeStatus(view.name, next.status);
  }

  private async writeStatus(name: string, status: unknown): Promise<void> {
    try {
      await this.crds.update(
        systemContext({ namespace: '', subresource: 'status' }, SERVER_OWN_WRITE),
        name,
        (current) => {
          current.status = status;
          return current;
        },
        { dryRun: false },
      );
    } catch (err) {
      if (!(isStatusError(err) && err.code === 404)) throw err;
    }
  }

  /**
   * The finalizer controller: every custom resource of a deleted CRD is deleted, then the cleanup
   * finalizer goes and with it the CRD (each replica then stops serving it). Until then the
   * resource stays served, so that its objects' own finalizers can still be removed.
   */
  private async cleanUp(crd: KubeObject): Promise<boolean> {
    const name = crd.metadata.name!;
    if (!(crd.metadata.finalizers ?? []).includes(CLEANUP_FINALIZER)) return true;
    const store = this.serving.storesOf(name)[0];
    if (store) {
      const next = jsonClone(crd);
      setCrdCondition(next, { type: 'Terminating', status: 'True', reason: 'InstanceDeletionInProgress', message: 'CustomResource deletion is in progress' });
      if (JSON.stringify(next.status) !== JSON.stringify(crd.status)) await this.writeStatus(name, next.status);
      const all = { resourceVersion: '', match: '' as const, predicate: everything };
      for (const item of (await store.list(SYSTEM_READ_ALL, all)).items) {
        try {
          await store.delete(systemContext({ namespace: item.metadata.namespace ?? '' }, SERVER_OWN_WRITE), item.metadata.name!, {
            dryRun: false,
            propagationPolicy: 'Background',
          });
        } catch (err) {
          if (!(isStatusError(err) && err.code === 404)) throw err;
        }
      }
      // Objects held by finalizers of their own: their owners' controllers must let go first.
      if ((await store.list(SYSTEM_READ_ALL, all)).items.length > 0) return false;
    }
    try {
      await this.crds.update(
        systemContext({ namespace: '' }, SERVER_OWN_WRITE),
        name,
        (current) => {
          current.metadata.finalizers = (current.metadata.finalizers ?? []).filter((f) => f !== CLEANUP_FINALIZER);
          return current;
        },
        { dryRun: false },
      );
    } catch (err) {
      if (!(isStatusError(err) && err.code === 404)) throw err;
    }
    return true;
  }
}

function acceptedNames(view: CrdView): Record<string, unknown> {
  const { plural, singular, kind, listKind, shortNames, categories } = view.names;
  return {
    plural,
    ...(singular ? { singular } : {}),
    ...(shortNames.length > 0 ? { shortNames } : {}),
    kind,
    ...(listKind ? { listKind } : {}),
    ...(categories.length > 0 ? { categories } : {}),
  };
}
