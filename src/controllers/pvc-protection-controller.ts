import type { ObjectStore } from '../registry/types';
import { objectOf, objectsIn, stringOf } from '../api/json-read';
import type { KubeObject } from '../api/types';
import { PVC_PROTECTION_FINALIZER } from '../admission/storage-object-in-use-protection';
import { systemReadContext, systemContext, SERVER_OWN_WRITE } from '../registry/request-context';
import { everything } from '../storage/interfaces';
import { QueueController } from './runtime/controller';
import { isDeletionCandidate, needsFinalizer, setFinalizer } from './runtime/finalizers';
import { CachedInformer, objectKey } from './runtime/informer';
import { systemClock, type Clock } from './runtime/clock';
import { WorkQueue } from './work-queue';
import type { SharedInformers } from './runtime/shared-informers';

type Log = (message: string, err?: unknown) => void;

const RETRY_MS = 1000;

/** The controller's finalizer writes are the server's own. */
const ownWrite = (obj: KubeObject) => systemContext({ namespace: obj.metadata.namespace ?? '' }, SERVER_OWN_WRITE);
const podPhase = (pod: KubeObject): string => stringOf(objectOf(pod.status).phase);

/** The claims a pod's volumes name: its own PVC volumes, and its generic ephemeral volumes' `<pod>-<volume>` (ephemeral.VolumeClaimName). */
function claimsOf(pod: KubeObject): { name: string; ephemeral: boolean }[] {
  return objectsIn(objectOf(pod.spec).volumes).flatMap((v): { name: string; ephemeral: boolean }[] => {
    const claim = objectOf(v.persistentVolumeClaim).claimName;
    if (typeof claim === 'string') return [{ name: claim, ephemeral: false }];
    return v.ephemeral ? [{ name: `${pod.metadata.name}-${stringOf(v.name)}`, ephemeral: true }] : [];
  });
}

/** podIsShutDown: done with by the kubelet, or force-deleted. */
const isShutDown = (pod: KubeObject): boolean => !!pod.metadata.deletionTimestamp && pod.metadata.deletionGracePeriodSeconds === 0;

/** ephemeral.VolumeIsForPod: the claim is controlled by the pod. */
const ownedBy = (claim: KubeObject, pod: KubeObject): boolean =>
  (claim.metadata.ownerReferences ?? []).some((ref) => ref.controller === true && ref.uid === pod.metadata.uid);

/**
 * podUsesPVC: only a scheduled pod (spec.nodeName) uses a claim, as the kubelet only starts those
 * and refuses a claim being deleted; an ephemeral volume's claim counts until the pod is shut down.
 */
function podUsesClaim(pod: KubeObject, claim: KubeObject): boolean {
  if (!stringOf(objectOf(pod.spec).nodeName)) return false;
  return claimsOf(pod).some((c) => c.name === claim.metadata.name && (!c.ephemeral || (!isShutDown(pod) && ownedBy(claim, pod))));
}

/**
 * kube-controller-manager's pvc-protection controller (pkg/controller/volume/pvcprotection): a
 * claim being deleted keeps its `kubernetes.io/pvc-protection` finalizer while a scheduled pod of
 * its namespace uses it, looked for in the pod cache and then in a live list; a claim not being
 * deleted gets the finalizer if it lacks it.
 */
export class PvcProtectionController extends QueueController {
  readonly name = 'persistentvolumeclaim-protection-controller';
  private readonly claimInformer: CachedInformer;
  private readonly podInformer: CachedInformer;
  protected readonly queue: WorkQueue;

  constructor(
    private readonly claims: ObjectStore,
    private readonly pods: ObjectStore,
    informers: SharedInformers,
    private readonly log: Log,
    clock: Clock = systemClock,
  ) {
    super();
    this.queue = new WorkQueue(
      (key) => this.sync(key),
      (key, err) => this.log(`pvc protection controller: claim ${key} failed`, err),
      RETRY_MS,
      clock,
    );
    const claimChanged = (claim: KubeObject): void => {
      if (needsFinalizer(claim, PVC_PROTECTION_FINALIZER) || isDeletionCandidate(claim, PVC_PROTECTION_FINALIZER)) this.queue.add(objectKey(claim));
    };
    // enqueuePVCs: only a pod that is gone, finished or unscheduled can free a claim.
    const podChanged = (pod: KubeObject, deleted: boolean): void => {
      const phase = podPhase(pod);
      if (!deleted && phase !== 'Succeeded' && phase !== 'Failed' && stringOf(objectOf(pod.spec).nodeName)) return;
      for (const claim of claimsOf(pod)) this.queue.add(`${pod.metadata.namespace}/${claim.name}`);
    };
    this.claimInformer = informers.informer(claims, { added: claimChanged, updated: (_, claim) => claimChanged(claim) }, { name: 'persistentvolumeclaims' });
    this.podInformer = informers.informer(
      pods,
      {
        added: (pod) => podChanged(pod, false),
        updated: (old, pod) => {
          podChanged(pod, false);
          // A replacement pod of the same name: the one it replaced may have held a claim the new one does not.
          if (old.metadata.uid !== pod.metadata.uid) podChanged(old, true);
        },
        deleted: (pod) => podChanged(pod, true),
      },
      { name: 'pods' },
    );
  }

  protected get informers(): CachedInformer[] {
    return [this.podInformer, this.claimInformer];
  }

  private async sync(key: string): Promise<boolean> {
    const claim = this.claimInformer.get(key);
    if (!claim) return true;
    if (isDeletionCandidate(claim, PVC_PROTECTION_FINALIZER)) {
      if (!(await this.inUse(claim))) await setFinalizer(this.claims, ownWrite(claim), claim, PVC_PROTECTION_FINALIZER, false);
      return true;
    }
    if (needsFinalizer(claim, PVC_PROTECTION_FINALIZER)) await setFinalizer(this.claims, ownWrite(claim), claim, PVC_PROTECTION_FINALIZER, true);
    return true;
  }

  /** isBeingUsed: the cache first; a pod it does not have yet may still use the claim, so a live list decides. */
  private async inUse(claim: KubeObject): Promise<boolean> {
    const namespace = claim.metadata.namespace!;
    if (this.podInformer.list().some((pod) => pod.metadata.namespace === namespace && podUsesClaim(pod, claim))) return true;
    const live = await this.pods.list(systemReadContext(namespace), { resourceVersion: '', match: '', predicate: everything });
    return live.items.some((pod) => podUsesClaim(pod, claim));
  }
}
