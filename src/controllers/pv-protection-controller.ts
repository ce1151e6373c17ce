import type { ObjectStore } from '../registry/types';
import { objectOf } from '../api/json-read';
import type { KubeObject } from '../api/types';
import { PV_PROTECTION_FINALIZER } from '../admission/storage-object-in-use-protection';
import { systemContext, SERVER_OWN_WRITE } from '../registry/request-context';
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

/** pvprotection's isBeingUsed: a volume is in use while its status says Bound (the binder's word). */
const isBound = (volume: KubeObject): boolean => objectOf(volume.status).phase === 'Bound';

/**
 * kube-controller-manager's pv-protection controller (pkg/controller/volume/pvprotection): a
 * volume being deleted keeps its `kubernetes.io/pv-protection` finalizer while it is Bound; a
 * volume not being deleted gets the finalizer if it lacks it.
 */
export class PvProtectionController extends QueueController {
  readonly name = 'persistentvolume-protection-controller';
  private readonly informer: CachedInformer;
  protected readonly queue: WorkQueue;

  constructor(
    private readonly volumes: ObjectStore,
    informers: SharedInformers,
    private readonly log: Log,
    clock: Clock = systemClock,
  ) {
    super();
    this.queue = new WorkQueue(
      (key) => this.sync(key),
      (key, err) => this.log(`pv protection controller: volume ${key} failed`, err),
      RETRY_MS,
      clock,
    );
    const changed = (volume: KubeObject): void => {
      if (needsFinalizer(volume, PV_PROTECTION_FINALIZER) || isDeletionCandidate(volume, PV_PROTECTION_FINALIZER)) this.queue.add(objectKey(volume));
    };
    this.informer = informers.informer(volumes, { added: changed, updated: (_, volume) => changed(volume) }, { name: 'persistentvolumes' });
  }

  protected get informers(): CachedInformer[] {
    return [this.informer];
  }

  private async sync(key: string): Promise<boolean> {
    const volume = this.informer.get(key);
    if (!volume) return true;
    if (isDeletionCandidate(volume, PV_PROTECTION_FINALIZER)) {
      if (!isBound(volume)) await setFinalizer(this.volumes, ownWrite(volume), volume, PV_PROTECTION_FINALIZER, false);
      return true;
    }
    if (needsFinalizer(volume, PV_PROTECTION_FINALIZER)) await setFinalizer(this.volumes, ownWrite(volume), volume, PV_PROTECTION_FINALIZER, true);
    return true;
  }
}
