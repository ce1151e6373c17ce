import type { ObjectStore } from '../../registry/types';
import { systemReadContext, systemContext, SERVER_OWN_WRITE } from '../../registry/request-context';
import { isPlainObject, type KubeObject } from '../../api/types';
import type { Predicate } from '../../storage/interfaces';
import { Informer, listWatchOf, type ControllerLog } from './informer';
import { jsonClone } from '../../api/json-clone';

/** client-go's LeaderElectionRecord: what a coordination.k8s.io/v1 Lease's spec holds for an election. */
export interface LeaderElectionRecord {
  holderIdentity: string;
  leaseDurationSeconds: number;
  acquireTime: string;
  renewTime: string;
  leaseTransitions: number;
}

export function recordOf(lease: KubeObject): LeaderElectionRecord {
  const spec = isPlainObject(lease.spec) ? lease.spec : {};
  return {
    holderIdentity: typeof spec.holderIdentity === 'string' ? spec.holderIdentity : '',
    leaseDurationSeconds: typeof spec.leaseDurationSeconds === 'number' ? spec.leaseDurationSeconds : 0,
    acquireTime: typeof spec.acquireTime === 'string' ? spec.acquireTime : '',
    renewTime: typeof spec.renewTime === 'string' ? spec.renewTime : '',
    leaseTransitions: typeof spec.leaseTransitions === 'number' ? spec.leaseTransitions : 0,
  };
}

/** resourcelock.Interface: where an election's record lives. */
export interface ResourceLock {
  readonly name: string;
  describe(): string;
  get(): Promise<KubeObject | null>;
  create(record: LeaderElectionRecord): Promise<KubeObject>;
  /** Writes the record over `current`; fails when the lock changed since it was read. */
  update(current: KubeObject, record: LeaderElectionRecord): Promise<KubeObject>;
  /** Tells `changed` of each new version of the lock as it is written; stop with the returned function. */
  follow?(changed: (lock: KubeObject) => void, log: ControllerLog): () => void;
}

/** resourcelock.LeaseLock: one Lease, read live and written only over the version read. */
export class LeaseLock implements ResourceLock {
  constructor(
    private readonly leases: ObjectStore,
    readonly namespace: string,
    readonly name: string,
  ) {}

  describe(): string {
    return `${this.namespace}/${this.name}`;
  }

  get(): Promise<KubeObject | null> {
    return this.leases.find(systemReadContext(this.namespace), this.name, { resourceVersion: '', match: '' });
  }

  async create(record: LeaderElectionRecord): Promise<KubeObject> {
    const lease: KubeObject = {
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: { name: this.name, namespace: this.namespace },
      spec: { ...record },
    };
    return this.leases.create(systemContext({ namespace: this.namespace }, SERVER_OWN_WRITE), lease, { dryRun: false });
  }

  follow(changed: (lease: KubeObject) => void, log: ControllerLog): () => void {
    const onlyThis: Predicate = { empty: false, matches: (obj) => obj.metadata.name === this.name };
    const informer = new Informer(
      listWatchOf(this.leases, this.namespace, onlyThis),
      { added: changed, updated: (_, lease) => changed(lease) },
      { name: `lease ${this.describe()}`, log },
    );
    informer.start();
    return () => informer.stop();
  }

  /** Writes the record over `current`; a 409 when the lease changed since it was read. */
  async update(current: KubeObject, record: LeaderElectionRecord): Promise<KubeObject> {
    const next = jsonClone(current);
    next.spec = { ...(isPlainObject(current.spec) ? current.spec : {}), ...record };
    const { object } = await this.leases.update(systemContext({ namespace: this.namespace }, SERVER_OWN_WRITE), this.name, next, { dryRun: false });
    return object;
  }
}
