import type { KubeObject } from '../api/types';
import type { GenericStore } from '../registry/generic-store';
import type { ResourceDefinition } from '../registry/resource-definition';
import type { ResourceRegistry } from '../registry/resource-registry';
import { customResourceDefinitions, type WebhookConverterOf } from '../resources/custom-resources';
import { crdConditionTrue, crdView, type CrdView } from '../resources/customresourcedefinitions';
import { informerAndQueueProblem, type Controller } from './runtime/controller';
import { systemClock, type Clock } from './runtime/clock';
import { CachedInformer, type ControllerLog } from './runtime/informer';
import { WorkQueue } from './work-queue';
import { SYSTEM_READ_ALL } from '../registry/request-context';
import type { SharedInformers } from './runtime/shared-informers';

const RETRY_MS = 1000;

/** The stores serving one CRD's resource, all versions over one storage. */
export interface ServedResource {
  stores: GenericStore[];
  /** Stops the resource's storage (its watch cache). */
  close(): void;
}

/** Builds the stores of a CRD's versions over one storage (a watch cache of their key range). */
export type ServeResource = (defs: ResourceDefinition[]) => Promise<ServedResource>;

/** A CRD served here: by uid, at the generation its stores were built from. */
export type ServedCrds = ReadonlyMap<string, number>;

/** A plural or kind that another resource of the group already serves. */
export interface NameConflict {
  reason: 'PluralConflict' | 'KindConflict';
  message: string;
}

/**
 * Serves what CustomResourceDefinitions define, on every replica, as apiextensions-apiserver's CRD
 * handler does: registers each CRD's served versions (names checked against everything already
 * served) and drops them once the CRD is gone. A CRD being deleted stays served until its cleanup
 * (the leader's `CrdEstablishingController`) lets it go. State comes from an informer on CRDs, so
 * a restart serves the same resources before kapi is ready, and a lost watch heals by itself.
 */
export class CrdController implements Controller {
  readonly name = 'poststarthook/start-apiextensions-controllers';
  private readonly served = new Map<string, { key: string; uid: string; generation: number; resource: ServedResource }>();
  /** CRDs whose Terminating condition is true: their resources refuse creates, as kube's crdHandler does. */
  private readonly terminating = new Set<string>();
  private run: { informer: CachedInformer; queue: WorkQueue } | null = null;

  constructor(
    private readonly crds: GenericStore,
    private readonly registry: ResourceRegistry,
    private readonly serve: ServeResource,
    /** Told of every resource served or no longer served (the garbage collector follows them). */
    private readonly onServed: (stores: GenericStore[], served: boolean) => void,
    /** Told whenever what this replica serves changes (its identity lease records it). */
    private readonly onServedCrdsChanged: (served: ServedCrds) => void,
    /** Builds the converter of a CRD with a conversion webhook. */
    private readonly webhookConverterOf: WebhookConverterOf,
    private readonly sharedInformers: SharedInformers,
    private readonly log: ControllerLog,
    private readonly clock: Clock = systemClock,
  ) {}

  /** Serves every CRD already stored, then follows their changes. */
  async start(): Promise<void> {
    if (this.run) return;
    const queue = new WorkQueue(
      (name) => this.sync(name),
      (name, err) => this.log(`CRD controller: ${name} failed; retrying`, err),
      RETRY_MS,
      this.clock,
    );
    const enqueue = (crd: KubeObject): void => queue.add(crd.metadata.name!);
    const informer = this.sharedInformers.informer(
      this.crds,
      { added: enqueue, updated: (_, crd) => enqueue(crd), deleted: enqueue },
      { name: 'customresourcedefinitions.apiextensions.k8s.io' },
    );
    this.run = { informer, queue };
    informer.start();
    await informer.waitForSync();
    // What is stored already is served before the server is ready.
    for (const crd of informer.list()) {
      const name = crd.metadata.name!;
      const done = await this.sync(name).catch((err: unknown) => {
        this.log(`CRD controller: ${name} failed; retrying`, err);
        return false;
      });
      if (!done) queue.add(name);
    }
  }

  stop(): void {
    this.run?.informer.stop();
    this.run?.queue.stop();
    this.run = null;
    for (const { resource } of this.served.values()) resource.close();
    this.served.clear();
    this.terminating.clear();
  }

  problem(): string | null {
    return this.run ? informerAndQueueProblem([this.run.informer], this.run.queue) : null;
  }

  /** CRDs served here, by uid, with the generation served. */
  servedCrds(): ServedCrds {
    return new Map([...this.served.values()].map((s) => [s.uid, s.generation]));
  }

  /** The stores serving a CRD here, if it is served. */
  storesOf(name: string): GenericStore[] {
    return this.served.get(name)?.resource.stores ?? [];
  }

  /** A plural or kind another resource of the group already serves (built-in, or another CRD's). */
  nameConflict(view: CrdView): NameConflict | null {
    const ours = this.storesOf(view.name);
    for (const store of this.registry.stored()) {
      const { def } = store;
      if (def.group !== view.group || ours.includes(store)) continue;
      if (def.resource === view.names.plural) return { reason: 'PluralConflict', message: `"${view.names.plural}" is already in use` };
      if (def.kind === view.names.kind) return { reason: 'KindConflict', message: `"${view.names.kind}" is already in use` };
    }
    return null;
  }

  private current(name: string): Promise<KubeObject | null> {
    return this.crds.find(SYSTEM_READ_ALL, name, { resourceVersion: '', match: '' });
  }

  /** Brings what is served for one CRD in line with the stored object. */
  private async sync(name: string): Promise<boolean> {
    const crd = await this.current(name);
    if (!crd) {
      this.terminating.delete(name);
      this.unserve(name);
      return true;
    }
    if (crdConditionTrue(crd, 'Terminating')) this.terminating.add(name);
    else this.terminating.delete(name);
    // A CRD being deleted keeps being served until its cleanup finalizer goes and it is removed.
    if (crd.metadata.deletionTimestamp) return true;
    const view = crdView(crd);
    if (!this.nameConflict(view)) await this.ensureServed(view, crd);
    return true;
  }

  /** The served definitions follow from the spec alone: when it changes, the stores are rebuilt. */
  private async ensureServed(view: CrdView, crd: KubeObject): Promise<void> {
    const uid = crd.metadata.uid ?? '';
    const key = `${uid}|${JSON.stringify(crd.spec)}`;
    const existing = this.served.get(view.name);
    if (existing?.key === key) return;
    const defs = customResourceDefinitions(view, this.webhookConverterOf, () => this.terminating.has(view.name));
    const resource = await this.serve(defs);
    if (existing) this.unserve(view.name);
    for (const store of resource.stores) this.registry.add(store);
    this.served.set(view.name, { key, uid, generation: crd.metadata.generation ?? 0, resource });
    this.onServed(resource.stores, true);
    this.onServedCrdsChanged(this.servedCrds());
  }

  private unserve(name: string): void {
    const existing = this.served.get(name);
    if (!existing) return;
    this.served.delete(name);
    for (const store of existing.resource.stores) {
      if (this.registry.lookup(store.def.group, store.def.version, store.def.resource) === store) this.registry.remove(store.def);
    }
    this.onServed(existing.resource.stores, false);
    existing.resource.close();
    this.onServedCrdsChanged(this.servedCrds());
  }
}
