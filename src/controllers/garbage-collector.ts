import type { ObjectStore } from '../registry/types';
import { isStatusError } from '../api/errors';
import { systemReadContext, systemContext, SERVER_OWN_WRITE } from '../registry/request-context';
import { parseApiVersion, type KubeObject, type OwnerReference } from '../api/types';
import { FOREGROUND_FINALIZER, ORPHAN_FINALIZER, type PropagationPolicy } from '../registry/deletion-finalizers';
import type { ResourceRegistry } from '../registry/resource-registry';
import { STUCK_AFTER_MS, type Controller } from './runtime/controller';
import { systemClock, type Clock } from './runtime/clock';
import { CachedInformer, type ControllerLog } from './runtime/informer';
import type { SharedInformers } from './runtime/shared-informers';

const RETRY_MS = 1000;

/**
 * garbagecollector.DefaultIgnoredResources: events are neither watched nor collected. They are
 * the most written kind (a thousand pods starting write about a thousand), and owner references
 * on them mean nothing to kube's collector.
 */
const IGNORED_RESOURCES = new Set(['/events', 'events.k8s.io/events']);
const ignored = (store: ObjectStore): boolean => IGNORED_RESOURCES.has(`${store.def.group}/${store.def.resource}`);

/** What the collector knows of one object, from its watches. */
interface GraphNode {
  store: ObjectStore;
  namespace: string;
  name: string;
  uid: string;
  owners: OwnerReference[];
  deletionTimestamp?: string;
  finalizers: string[];
}

const deletingDependents = (n: GraphNode): boolean => !!n.deletionTimestamp && n.finalizers.includes(FOREGROUND_FINALIZER);
const orphaning = (n: GraphNode): boolean => !!n.deletionTimestamp && n.finalizers.includes(ORPHAN_FINALIZER);

type OwnerState = 'solid' | 'dangling' | 'waiting';

/**
 * The garbage collector: keeps a graph of owners and dependents from informers on every resource
 * but events, deletes dependents whose owners are all gone (their absence confirmed by a live
 * read, by uid),
 * serves foreground deletion (an owner with the foregroundDeletion finalizer goes after its
 * blocking dependents) and orphaning (the orphan finalizer: dependents lose the reference first).
 * Its graph is rebuilt from etcd at every start, so a restart or a new leader resumes where the
 * last one stopped; an informer that lists again reports what went missing as deleted.
 */
export class GarbageCollector implements Controller {
  readonly name = 'garbage-collector-controller';
  private readonly nodes = new Map<string, GraphNode>();
  private readonly dependents = new Map<string, Set<string>>();
  private readonly queue = new Set<string>();
  /** The stores to watch: every stored resource, and custom resources while they are served. */
  private readonly tracked = new Set<ObjectStore>();
  private readonly informers = new Map<ObjectStore, CachedInformer>();
  private running = false;
  private working = false;
  private workingSince = 0;
  private cancelRetry: (() => void) | null = null;

  constructor(
    private readonly registry: ResourceRegistry,
    private readonly sharedInformers: SharedInformers,
    private readonly log: ControllerLog,
    private readonly clock: Clock = systemClock,
  ) {}

  async start(): Promise<void> {
    if (this.running) return;
    this.running = true;
    for (const store of this.registry.stored()) if (store.def.verbs.includes('watch') && !ignored(store)) this.tracked.add(store);
    await Promise.all([...this.tracked].map((s) => this.inform(s)));
  }

  /** Follows a store: custom resources once they are served (on every replica; informed only while running). */
  track(store: ObjectStore): void {
    if (this.tracked.has(store)) return;
    this.tracked.add(store);
    if (this.running) void this.inform(store);
  }

  /** Stops following a store that is no longer served; its objects leave the graph. */
  untrack(store: ObjectStore): void {
    this.tracked.delete(store);
    this.informers.get(store)?.stop();
    this.informers.delete(store);
    for (const [uid, node] of this.nodes) if (node.store === store) this.forget(uid);
  }

  stop(): void {
    this.running = false;
    for (const informer of this.informers.values()) informer.stop();
    this.informers.clear();
    this.nodes.clear();
    this.dependents.clear();
    this.queue.clear();
    this.cancelRetry?.();
    this.cancelRetry = null;
  }

  problem(): string | null {
    for (const informer of this.informers.values()) {
      const problem = informer.problem();
      if (problem) return problem;
    }
    if (this.working && this.clock.now() - this.workingSince > STUCK_AFTER_MS) {
      return `worker busy for ${Math.round((this.clock.now() - this.workingSince) / 1000)}s without finishing a pass`;
    }
    return null;
  }

  /** Resolves once the store's current state is in the graph; keeps following it after that. */
  private inform(store: ObjectStore): Promise<void> {
    const informer = this.sharedInformers.informer(
      store,
      {
        added: (obj) => this.observe(store, obj),
        updated: (_, obj) => this.observe(store, obj),
        deleted: (obj) => this.forget(obj.metadata.uid ?? ''),
      },
      { name: store.def.group ? `${store.def.resource}.${store.def.group}` : store.def.resource },
    );
    this.informers.set(store, informer);
    informer.start();
    return informer.waitForSync();
  }

  private observe(store: ObjectStore, obj: KubeObject): void {
    const meta = obj.metadata;
    const uid = meta.uid;
    if (!uid) return;
    const previous = this.nodes.get(uid);
    const node: GraphNode = {
      store,
      namespace: meta.namespace ?? '',
      name: meta.name ?? '',
      uid,
      owners: meta.ownerReferences ?? [],
      deletionTimestamp: meta.deletionTimestamp,
      finalizers: meta.finalizers ?? [],
    };
    for (const owner of previous?.owners ?? []) {
      if (node.owners.some((o) => o.uid === owner.uid)) continue;
      this.dependents.get(owner.uid)?.delete(uid);
      // A dependent that let go of a foreground owner may have been the last one blocking it.
      this.enqueue(owner.uid);
    }
    for (const owner of node.owners) {
      let set = this.dependents.get(owner.uid);
      if (!set) this.dependents.set(owner.uid, (set = new Set()));
      set.add(uid);
    }
    this.nodes.set(uid, node);
    if (deletingDependents(node) && !(previous && deletingDependents(previous))) {
      for (const dep of this.dependents.get(uid) ?? []) this.enqueue(dep);
    }
    if (node.owners.length > 0 || deletingDependents(node) || orphaning(node)) this.enqueue(uid);
  }

  private forget(uid: string): void {
    const node = this.nodes.get(uid);
    if (!node) return;
    this.nodes.delete(uid);
    for (const owner of node.owners) {
      this.dependents.get(owner.uid)?.delete(uid);
      this.enqueue(owner.uid);
    }
    // Its dependents may have lost their last owner.
    for (const dep of this.dependents.get(uid) ?? []) this.enqueue(dep);
  }

  private enqueue(uid: string): void {
    if (!this.running) return;
    this.queue.add(uid);
    if (!this.working) {
      this.working = true;
      this.workingSince = this.clock.now();
      setImmediate(() => void this.drain());
    }
  }

  private async drain(): Promise<void> {
    const failed: string[] = [];
    while (this.queue.size > 0 && this.running) {
      this.workingSince = this.clock.now();
      const uid = this.queue.values().next().value as string;
      this.queue.delete(uid);
      try {
        await this.process(uid);
      } catch (err) {
        this.log(`garbage collector: processing ${uid} failed; will retry`, err);
        failed.push(uid);
      }
    }
    this.working = false;
    if (failed.length > 0 && this.running) {
      this.cancelRetry = this.clock.after(RETRY_MS, () => {
        this.cancelRetry = null;
        for (const uid of failed) this.enqueue(uid);
      });
    }
  }

  private async process(uid: string): Promise<void> {
    const node = this.nodes.get(uid);
    if (!node) return;
    if (orphaning(node)) return this.orphanDependents(node);
    if (deletingDependents(node)) return this.deleteDependentsFirst(node);
    if (node.deletionTimestamp || node.owners.length === 0) return;
    await this.collect(node);
  }

  /** Orphan: every dependent loses its reference to the owner, then the orphan finalizer goes. */
  private async orphanDependents(owner: GraphNode): Promise<void> {
    for (const depUid of [...(this.dependents.get(owner.uid) ?? [])]) {
      const dep = this.nodes.get(depUid);
      if (dep) await this.removeOwnerReferences(dep, [owner.uid]);
    }
    await this.removeFinalizer(owner, ORPHAN_FINALIZER);
  }

  /** Foreground: the owner waits until no dependent that blocks it (blockOwnerDeletion) is left. */
  private async deleteDependentsFirst(owner: GraphNode): Promise<void> {
    const blocking = [...(this.dependents.get(owner.uid) ?? [])]
      .map((uid) => this.nodes.get(uid))
      .filter((d): d is GraphNode => !!d && d.owners.some((o) => o.uid === owner.uid && o.blockOwnerDeletion === true));
    if (blocking.length === 0) {
      await this.removeFinalizer(owner, FOREGROUND_FINALIZER);
      return;
    }
    for (const dep of blocking) if (!deletingDependents(dep)) this.enqueue(dep.uid);
  }

  /** attemptToDeleteItem: an object whose owners are all gone, or waiting for it, is deleted. */
  private async collect(node: GraphNode): Promise<void> {
    const states = await Promise.all(node.owners.map((ref) => this.ownerState(node, ref)));
    const solid = states.filter((s) => s === 'solid').length;
    const gone = node.owners.filter((_, i) => states[i] !== 'solid').map((o) => o.uid);
    if (solid > 0) {
      if (gone.length > 0) await this.removeOwnerReferences(node, gone);
      return;
    }
    const waitedFor = states.includes('waiting');
    let policy: PropagationPolicy;
    if (waitedFor && (this.dependents.get(node.uid)?.size ?? 0) > 0) policy = 'Foreground';
    else if (node.finalizers.includes(ORPHAN_FINALIZER)) policy = 'Orphan';
    else if (node.finalizers.includes(FOREGROUND_FINALIZER)) policy = 'Foreground';
    else policy = 'Background';
    try {
      await node.store.delete(systemContext({ namespace: node.namespace }, SERVER_OWN_WRITE), node.name, {
        dryRun: false,
        propagationPolicy: policy,
        preconditions: { uid: node.uid },
      });
    } catch (err) {
      if (!(isStatusError(err) && (err.code === 404 || err.code === 409))) throw err;
    }
  }

  /** Is the owner there (solid), being deleted in the foreground (waiting), or gone (dangling)? */
  private async ownerState(dependent: GraphNode, ref: OwnerReference): Promise<OwnerState> {
    const { group } = parseApiVersion(ref.apiVersion ?? '');
    const store = this.registry.stored().find((s) => s.def.group === group && s.def.kind === ref.kind);
    // An owner of a kind not served here, or a namespaced owner of a cluster-scoped object, cannot be resolved: left alone.
    if (!store || (store.def.namespaced && !dependent.namespace)) return 'solid';
    const known = this.nodes.get(ref.uid);
    let owner: { uid?: string; deletionTimestamp?: string; finalizers: string[] } | null = known
      ? { uid: known.uid, deletionTimestamp: known.deletionTimestamp, finalizers: known.finalizers }
      : null;
    if (!owner) {
      // Absence is confirmed by a live read before anything is deleted.
      try {
        const live = await store.get(systemReadContext(store.def.namespaced ? dependent.namespace : ''), ref.name, { resourceVersion: '', match: '' });
        owner = { uid: live.metadata.uid, deletionTimestamp: live.metadata.deletionTimestamp, finalizers: live.metadata.finalizers ?? [] };
      } catch (err) {
        if (!(isStatusError(err) && err.code === 404)) throw err;
      }
    }
    if (!owner || owner.uid !== ref.uid) return 'dangling';
    return owner.deletionTimestamp && owner.finalizers.includes(FOREGROUND_FINALIZER) ? 'waiting' : 'solid';
  }

  private async removeOwnerReferences(node: GraphNode, uids: string[]): Promise<void> {
    await this.updateLatest(node, (obj) => {
      const refs = (obj.metadata.ownerReferences ?? []).filter((r) => !uids.includes(r.uid));
      if (refs.length === (obj.metadata.ownerReferences ?? []).length) return false;
      if (refs.length > 0) obj.metadata.ownerReferences = refs;
      else delete obj.metadata.ownerReferences;
      return true;
    });
  }

  private async removeFinalizer(node: GraphNode, finalizer: string): Promise<void> {
    await this.updateLatest(node, (obj) => {
      const finalizers = obj.metadata.finalizers ?? [];
      if (!finalizers.includes(finalizer)) return false;
      const rest = finalizers.filter((f) => f !== finalizer);
      if (rest.length > 0) obj.metadata.finalizers = rest;
      else delete obj.metadata.finalizers;
      return true;
    });
  }

  /** Changes the stored object (the same uid only); nothing happens when `change` finds nothing to do. */
  private async updateLatest(node: GraphNode, change: (obj: KubeObject) => boolean): Promise<void> {
    try {
      await node.store.update(
        systemContext({ namespace: node.namespace }, SERVER_OWN_WRITE),
        node.name,
        (current) => {
          if (current.metadata.uid !== node.uid || !change(current)) throw NOTHING_TO_DO;
          return current;
        },
        { dryRun: false },
      );
    } catch (err) {
      if (err === NOTHING_TO_DO || (isStatusError(err) && err.code === 404)) return;
      throw err;
    }
  }
}

const NOTHING_TO_DO = Symbol('nothing to do');
