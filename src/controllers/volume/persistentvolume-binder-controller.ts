import { isStatusError } from '../../api/errors';
import type { KubeObject } from '../../api/types';
import type { PersistentVolume, PersistentVolumeClaim } from '../../generated/types/core/v1';
import type { StorageClass } from '../../generated/types/storage/v1';
import { withInfo } from '../../registry/request-context';
import { QueueController } from '../runtime/controller';
import type { ControllerDeps } from '../runtime/controller-deps';
import type { EventRecorder } from '../runtime/event-recorder';
import { type CachedInformer, objectKey } from '../runtime/informer';
import { WorkQueue } from '../work-queue';
import { claimClass, findBestMatch, isVolumeBoundToClaim, volumeMismatch } from './pv-matching';
import { jsonClone } from '../../api/json-clone';

export const BIND_COMPLETED = 'pv.kubernetes.io/bind-completed';
export const BOUND_BY_CONTROLLER = 'pv.kubernetes.io/bound-by-controller';
export const SELECTED_NODE = 'volume.kubernetes.io/selected-node';
const STORAGE_PROVISIONER = 'volume.kubernetes.io/storage-provisioner';
const BETA_STORAGE_PROVISIONER = 'volume.beta.kubernetes.io/storage-provisioner';
/** The PV controller's resync period: unbound claims are looked at again this often. */
const RESYNC_MS = 15_000;
const RETRY_MS = 1000;

type ClaimPhase = 'Pending' | 'Bound' | 'Lost';
type VolumePhase = 'Available' | 'Bound' | 'Released';

const CLAIM = 'claim:';
const VOLUME = 'volume:';
const rfc3339 = (ms: number): string => new Date(ms).toISOString().replace(/\.\d+Z$/, 'Z');
const ignoreNotFound = (err: unknown): void => {
  if (!isStatusError(err) || err.code !== 404) throw err;
};

/**
 * kube-controller-manager's persistentvolume-binder-controller (pkg/controller/volume/persistentvolume,
 * pv_controller.go): binds claims to volumes, both sides, as syncClaim and syncVolume do: a claim
 * that names no volume gets the smallest matching one (pv-matching.ts); one that names a volume
 * gets it if it fits; the volume's claimRef and the claim's volumeName, with kube's
 * bind-completed and bound-by-controller annotations, then both phases Bound. A claim of a
 * WaitForFirstConsumer class waits until the scheduler picks a node (`volume.kubernetes.io/selected-node`).
 * A volume whose claim is gone is Released; one bound by the controller to a claim that went
 * elsewhere is freed. Nothing is provisioned (docs/divergences.md).
 */
export class PersistentVolumeBinderController extends QueueController {
  readonly name = 'persistentvolume-binder-controller';
  protected readonly queue: WorkQueue;
  private readonly claims: CachedInformer;
  private readonly volumes: CachedInformer;
  private readonly classes: CachedInformer;
  private readonly recorder: EventRecorder;

  constructor(private readonly deps: ControllerDeps) {
    super();
    this.recorder = deps.recorder('persistentvolume-controller');
    this.queue = new WorkQueue(
      (key) => (key.startsWith(CLAIM) ? this.syncClaim(key.slice(CLAIM.length)) : this.syncVolume(key.slice(VOLUME.length))),
      (key, err) => deps.log(`${this.name}: ${key} failed`, err),
      RETRY_MS,
      deps.clock,
    );
    const claimChanged = (claim: KubeObject): void => {
      this.queue.add(CLAIM + objectKey(claim));
      const volume = (claim as PersistentVolumeClaim).spec?.volumeName;
      if (volume) this.queue.add(VOLUME + volume);
    };
    const volumeChanged = (volume: KubeObject): void => {
      this.queue.add(VOLUME + objectKey(volume));
      const ref = (volume as PersistentVolume).spec?.claimRef;
      if (ref?.name) this.queue.add(`${CLAIM}${ref.namespace}/${ref.name}`);
      // A new or freed volume may suit a claim still waiting: kube finds out at its next resync, kapi now.
      else for (const claim of this.claims.list()) if (!(claim as PersistentVolumeClaim).spec?.volumeName) this.queue.add(CLAIM + objectKey(claim));
    };
    this.claims = deps.informers.informer(
      deps.store('', 'v1', 'persistentvolumeclaims'),
      { added: claimChanged, updated: (_, claim) => claimChanged(claim), deleted: claimChanged },
      { name: 'persistentvolumeclaims', resyncMs: RESYNC_MS },
    );
    this.volumes = deps.informers.informer(
      deps.store('', 'v1', 'persistentvolumes'),
      { added: volumeChanged, updated: (_, volume) => volumeChanged(volume), deleted: volumeChanged },
      { name: 'persistentvolumes', resyncMs: RESYNC_MS },
    );
    this.classes = deps.informers.informer(deps.store('storage.k8s.io', 'v1', 'storageclasses'), {}, { name: 'storageclasses' });
  }

  protected get informers(): CachedInformer[] {
    return [this.classes, this.volumes, this.claims];
  }

  private claim(key: string): PersistentVolumeClaim | undefined {
    return this.claims.get(key) as PersistentVolumeClaim | undefined;
  }

  private volume(name: string): PersistentVolume | undefined {
    return this.volumes.get(name) as PersistentVolume | undefined;
  }

  private async syncClaim(key: string): Promise<boolean> {
    const claim = this.claim(key);
    if (!claim || claim.metadata.deletionTimestamp) return true;
    if (claim.metadata.annotations?.[BIND_COMPLETED] === undefined) await this.syncUnboundClaim(claim);
    else await this.syncBoundClaim(claim);
    return true;
  }

  private async syncUnboundClaim(claim: PersistentVolumeClaim): Promise<void> {
    const volumeName = claim.spec?.volumeName;
    if (!volumeName) {
      const className = claimClass(claim);
      const storageClass = className ? (this.classes.get(className) as StorageClass | undefined) : undefined;
      const delayBinding = storageClass?.volumeBindingMode === 'WaitForFirstConsumer' && !claim.metadata.annotations?.[SELECTED_NODE];
      const volume = findBestMatch(claim, this.volumes.list() as PersistentVolume[], delayBinding);
      if (volume) return this.bind(volume, claim);
      if (delayBinding) this.recorder.event(claim, 'Normal', 'WaitForFirstConsumer', 'waiting for first consumer to be created before binding');
      else if (className) await this.awaitProvisioning(claim, className, storageClass);
      else this.recorder.event(claim, 'Normal', 'FailedBinding', 'no persistent volumes available for this claim and no storage class is set');
      return this.setClaimPhase(claim, 'Pending', null);
    }
    const volume = this.volume(volumeName);
    // The claim asks for a volume that is not there (yet).
    if (!volume) return this.setClaimPhase(claim, 'Pending', null);
    if (!volume.spec?.claimRef) {
      const mismatch = volumeMismatch(volume, claim);
      if (!mismatch) return this.bind(volume, claim);
      this.recorder.event(claim, 'Warning', 'VolumeMismatch', `Cannot bind to requested volume "${volumeName}": ${mismatch}`);
      return this.setClaimPhase(claim, 'Pending', null);
    }
    if (isVolumeBoundToClaim(volume, claim)) return this.bind(volume, claim);
    this.recorder.event(claim, 'Warning', 'FailedBinding', `volume "${volumeName}" already bound to a different claim.`);
    return this.setClaimPhase(claim, 'Pending', null);
  }

  /**
   * provisionClaim without a provisioner: kapi runs none, so a claim of a class waits for a volume
   * made by hand, with kube's words for an external provisioner (or for a class that is missing).
   */
  private async awaitProvisioning(claim: PersistentVolumeClaim, className: string, storageClass: StorageClass | undefined): Promise<void> {
    if (!storageClass) {
      this.recorder.event(claim, 'Warning', 'ProvisioningFailed', `storageclass.storage.k8s.io "${className}" not found`);
      return;
    }
    const provisioner = storageClass.provisioner ?? '';
    if (claim.metadata.annotations?.[STORAGE_PROVISIONER] !== provisioner) {
      await this.updateClaim(claim, (c) => {
        c.metadata.annotations = { ...c.metadata.annotations, [BETA_STORAGE_PROVISIONER]: provisioner, [STORAGE_PROVISIONER]: provisioner };
      });
    }
    this.recorder.event(
      claim,
      'Normal',
      'ExternalProvisioning',
      `Waiting for a volume to be created either by the external provisioner '${provisioner}' or manually by the system administrator. If volume creation is delayed, please verify that the provisioner is running and correctly registered.`,
    );
  }

  private async syncBoundClaim(claim: PersistentVolumeClaim): Promise<void> {
    const volumeName = claim.spec?.volumeName;
    if (!volumeName) {
      this.recorder.event(claim, 'Warning', 'ClaimLost', 'Bound claim has lost reference to PersistentVolume. Data on the volume is lost!');
      return this.setClaimPhase(claim, 'Lost', null);
    }
    const volume = this.volume(volumeName);
    if (!volume) {
      this.recorder.event(claim, 'Warning', 'ClaimLost', 'Bound claim has lost its PersistentVolume. Data on the volume is lost!');
      return this.setClaimPhase(claim, 'Lost', null);
    }
    if (!volume.spec?.claimRef || isVolumeBoundToClaim(volume, claim)) return this.bind(volume, claim);
    this.recorder.event(claim, 'Warning', 'ClaimMisbound', 'Two claims are bound to the same volume, this one is bound incorrectly');
    return this.setClaimPhase(claim, 'Lost', null);
  }

  private async syncVolume(name: string): Promise<boolean> {
    const volume = this.volume(name);
    if (!volume || volume.metadata.deletionTimestamp) return true;
    const ref = volume.spec?.claimRef;
    // Unclaimed, or pre-bound by its creator to a claim the controller has not bound yet.
    if (!ref || !ref.uid) {
      await this.setVolumePhase(volume, 'Available');
      return true;
    }
    const claim = this.claim(`${ref.namespace}/${ref.name}`);
    if (!claim || claim.metadata.uid !== ref.uid) {
      // Its claim was deleted. Retain keeps it Released; kapi reclaims nothing else either (docs/divergences.md).
      if (volume.status?.phase !== 'Released' && volume.status?.phase !== 'Failed') await this.setVolumePhase(volume, 'Released');
      return true;
    }
    const claimVolume = claim.spec?.volumeName;
    if (!claimVolume) {
      // Being bound by the controller: the claim's sync finishes it; a pre-bound volume is Available until then.
      if (volume.metadata.annotations?.[BOUND_BY_CONTROLLER] === undefined) await this.setVolumePhase(volume, 'Available');
      else this.queue.add(CLAIM + objectKey(claim));
      return true;
    }
    if (claimVolume === name) {
      await this.setVolumePhase(volume, 'Bound');
      return true;
    }
    // The claim went to another volume: unbindVolume frees this one (a creator's pre-binding keeps its name).
    await this.updateVolume(volume, (v) => {
      if (v.metadata.annotations?.[BOUND_BY_CONTROLLER] !== undefined) {
        delete v.spec!.claimRef;
        delete v.metadata.annotations[BOUND_BY_CONTROLLER];
      } else if (v.spec?.claimRef) delete v.spec.claimRef.uid;
    });
    return true;
  }

  /** bind: the volume's claimRef, its phase Bound, the claim's volumeName and annotations, its status Bound. */
  private async bind(volume: PersistentVolume, claim: PersistentVolumeClaim): Promise<void> {
    const ref = volume.spec?.claimRef;
    if (!ref || ref.uid !== claim.metadata.uid || ref.name !== claim.metadata.name || ref.namespace !== claim.metadata.namespace) {
      const preBound = isVolumeBoundToClaim(volume, claim);
      volume = await this.updateVolume(volume, (v) => {
        v.spec = {
          ...v.spec,
          claimRef: {
            kind: 'PersistentVolumeClaim',
            namespace: claim.metadata.namespace,
            name: claim.metadata.name,
            uid: claim.metadata.uid,
            apiVersion: 'v1',
            resourceVersion: claim.metadata.resourceVersion,
          },
        };
        if (!preBound) v.metadata.annotations = { ...v.metadata.annotations, [BOUND_BY_CONTROLLER]: 'yes' };
      });
    }
    await this.setVolumePhase(volume, 'Bound');
    const annotations = claim.metadata.annotations ?? {};
    if (claim.spec?.volumeName !== volume.metadata.name || annotations[BIND_COMPLETED] === undefined) {
      const byController = claim.spec?.volumeName !== volume.metadata.name;
      claim = await this.updateClaim(claim, (c) => {
        c.spec = { ...c.spec, volumeName: volume.metadata.name };
        c.metadata.annotations = { ...c.metadata.annotations, [BIND_COMPLETED]: 'yes', ...(byController ? { [BOUND_BY_CONTROLLER]: 'yes' } : {}) };
      });
    }
    await this.setClaimPhase(claim, 'Bound', volume);
  }

  private async updateVolume(volume: PersistentVolume, change: (v: PersistentVolume) => void): Promise<PersistentVolume> {
    const next = jsonClone(volume);
    change(next);
    const { object } = await this.deps.store('', 'v1', 'persistentvolumes').update(this.deps.admitted(''), volume.metadata.name!, next, { dryRun: false });
    return object as PersistentVolume;
  }

  private async updateClaim(claim: PersistentVolumeClaim, change: (c: PersistentVolumeClaim) => void): Promise<PersistentVolumeClaim> {
    const next = jsonClone(claim);
    change(next);
    const ctx = this.deps.admitted(claim.metadata.namespace!);
    const { object } = await this.deps.store('', 'v1', 'persistentvolumeclaims').update(ctx, claim.metadata.name!, next, { dryRun: false });
    return object as PersistentVolumeClaim;
  }

  /** updateVolumePhase: the phase and its transition time, when the phase moves. */
  private async setVolumePhase(volume: PersistentVolume, phase: VolumePhase): Promise<void> {
    if (volume.status?.phase === phase) return;
    const next = jsonClone(volume);
    next.status = { ...next.status, phase, lastPhaseTransitionTime: rfc3339(this.deps.clock.now()) };
    const ctx = withInfo(this.deps.own(''), { subresource: 'status' });
    await this.deps.store('', 'v1', 'persistentvolumes').update(ctx, volume.metadata.name!, next, { dryRun: false }).catch(ignoreNotFound);
  }

  /** updateClaimStatus: the phase, and from the volume bound its access modes and capacity. */
  private async setClaimPhase(claim: PersistentVolumeClaim, phase: ClaimPhase, volume: PersistentVolume | null): Promise<void> {
    const status = { ...claim.status, phase };
    if (volume) {
      status.accessModes = volume.spec?.accessModes;
      status.capacity = volume.spec?.capacity;
    } else if (phase !== 'Bound') {
      delete status.accessModes;
      delete status.capacity;
    }
    if (JSON.stringify(status) === JSON.stringify(claim.status ?? {})) return;
    const ctx = withInfo(this.deps.own(claim.metadata.namespace!), { subresource: 'status' });
    await this.deps
      .store('', 'v1', 'persistentvolumeclaims')
      .update(ctx, claim.metadata.name!, { ...claim, status }, { dryRun: false })
      .catch(ignoreNotFound);
  }
}
