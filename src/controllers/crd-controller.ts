import { isStatusError } from '../api/errors';
import type { KubeObject } from '../api/types';
import type { GenericStore } from '../registry/generic-store';
import type { ResourceDefinition } from '../registry/resource-definition';
import type { ResourceRegistry } from '../registry/resource-registry';
import { customResourceDefinitions } from '../resources/custom-resources';
import { CLEANUP_FINALIZER, crdView, setCrdCondition, type CrdView } from '../resources/customresourcedefinitions';
import { everything } from '../storage/interfaces';
import type { ControllerLog } from './namespace-controller';
import { WorkQueue } from './work-queue';
import { internalContext } from '../registry/request-context';

const RETRY_MS = 1000;

/** The stores serving one CRD's resource, all versions over one storage. */
export interface ServedResource {
  stores: GenericStore[];
  /** Stops the resource's storage (its watch cache). */
  close(): void;
}

/** Builds the stores of a CRD's versions over one storage (a watch cache of their key range). */
export type ServeResource = (defs: ResourceDefinition[]) => Promise<ServedResource>;

/**
 * Serves what CustomResourceDefinitions define, as apiextensions-apiserver's controllers do:
 * registers each CRD's served versions (names checked against everything already served), then
 * reports NamesAccepted and Established; a deleted CRD first loses its custom resources, then
 * its cleanup finalizer, and stops being served. State comes from a list and a watch of the
 * CRDs, so a restart serves the same resources before kapi is ready.
 */
export class CrdController {
  private readonly served = new Map<string, { key: string; resource: ServedResource }>();
  private readonly queue: WorkQueue;
  private stopped = false;
  private stopWatch: (() => void) | null = null;

  constructor(
    private readonly crds: GenericStore,
    private readonly registry: ResourceRegistry,
    private readonly serve: ServeResource,
    private readonly onServed: (stores: GenericStore[], served: boolean) => void,
    private readonly log: ControllerLog,
  ) {
    this.queue = new WorkQueue(
      (name) => this.sync(name),
      (name, err) => this.log(`CRD controller: ${name} failed; retrying`, err),
      RETRY_MS,
    );
  }

  /** Serves every CRD already stored, then follows their changes. */
  async start(): Promise<void> {
    const list = await this.crds.list('', { resourceVersion: '', match: '', predicate: everything });
    for (const crd of list.items) {
      const name = crd.metadata.name!;
      const done = await this.sync(name).catch((err: unknown) => {
        this.log(`CRD controller: ${name} failed; retrying`, err);
        return false;
      });
      if (!done) this.queue.add(name);
    }
    const channel = await this.crds.watch('', { resourceVersion: list.metadata.resourceVersion ?? '', predicate: everything });
    this.stopWatch = () => channel.close();
    void (async () => {
      try {
        for await (const item of channel) {
          if (item.type === 'ADDED' || item.type === 'MODIFIED' || item.type === 'DELETED') this.queue.add(item.object.metadata.name!);
        }
      } catch (err) {
        if (this.stopped) return;
        this.log('CRD controller watch ended; restarting', err);
        setTimeout(() => void this.start().catch((e: unknown) => this.log('CRD controller restart failed', e)), RETRY_MS).unref();
      }
    })();
  }

  stop(): void {
    this.stopped = true;
    this.stopWatch?.();
    this.queue.stop();
    for (const { resource } of this.served.values()) resource.close();
    this.served.clear();
  }

  private async current(name: string): Promise<KubeObject | null> {
    try {
      return await this.crds.get('', name, { resourceVersion: '', match: '' });
    } catch (err) {
      if (isStatusError(err) && err.code === 404) return null;
      throw err;
    }
  }

  /** Brings what is served for one CRD in line with the stored object; false while its cleanup is not done. */
  private async sync(name: string): Promise<boolean> {
    const crd = await this.current(name);
    if (!crd) {
      this.unserve(name);
      return true;
    }
    if (crd.metadata.deletionTimestamp) return this.cleanUp(crd);
    const view = crdView(crd);
    const conflict = this.nameConflict(view);
    if (!conflict) await this.ensureServed(view, crd);
    await this.reportNames(crd, view, conflict);
    return true;
  }

  /** The served definitions follow from the spec alone: when it changes, the stores are rebuilt. */
  private async ensureServed(view: CrdView, crd: KubeObject): Promise<void> {
    const key = `${crd.metadata.uid}|${JSON.stringify(crd.spec)}`;
    const existing = this.served.get(view.name);
    if (existing?.key === key) return;
    const defs = customResourceDefinitions(view);
    const resource = await this.serve(defs);
    if (existing) this.unserve(view.name);
    for (const store of resource.stores) this.registry.add(store);
    this.served.set(view.name, { key, resource });
    this.onServed(resource.stores, true);
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
  }

  /** A plural or kind another resource of the group already serves (built-in, or another CRD's). */
  private nameConflict(view: CrdView): { reason: string; message: string } | null {
    const ours = this.served.get(view.name)?.resource.stores ?? [];
    for (const store of this.registry.stored()) {
      const { def } = store;
      if (def.group !== view.group || ours.includes(store)) continue;
      if (def.resource === view.names.plural) return { reason: 'PluralConflict', message: `"${view.names.plural}" is already in use` };
      if (def.kind === view.names.kind) return { reason: 'KindConflict', message: `"${view.names.kind}" is already in use` };
    }
    return null;
  }

  /** NamesAccepted and Established, with the accepted names, as the naming and establishing controllers write them. */
  private async reportNames(crd: KubeObject, view: CrdView, conflict: { reason: string; message: string } | null): Promise<void> {
    const next = structuredClone(crd);
    const status = (next.status ?? {}) as Record<string, unknown>;
    next.status = status;
    if (conflict) {
      setCrdCondition(next, { type: 'NamesAccepted', status: 'False', ...conflict });
      setCrdCondition(next, { type: 'Established', status: 'False', reason: 'NotAccepted', message: 'not all names are accepted' });
    } else {
      status.acceptedNames = acceptedNames(view);
      setCrdCondition(next, { type: 'NamesAccepted', status: 'True', reason: 'NoConflicts', message: 'no conflicts found' });
      setCrdCondition(next, { type: 'Established', status: 'True', reason: 'InitialNamesAccepted', message: 'the initial names have been accepted' });
    }
    if (JSON.stringify(next.status) === JSON.stringify(crd.status)) return;
    await this.writeStatus(view.name, next.status);
  }

  private async writeStatus(name: string, status: unknown): Promise<void> {
    try {
      await this.crds.update(
        internalContext({ namespace: '', subresource: 'status' }),
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
   * The finalizer controller: every custom resource of a deleted CRD is deleted, then the
   * cleanup finalizer goes and with it the CRD. Until then the resource stays served, so that
   * its objects' own finalizers can still be removed.
   */
  private async cleanUp(crd: KubeObject): Promise<boolean> {
    const name = crd.metadata.name!;
    if (!(crd.metadata.finalizers ?? []).includes(CLEANUP_FINALIZER)) return true;
    const store = this.served.get(name)?.resource.stores[0];
    if (store) {
      const next = structuredClone(crd);
      setCrdCondition(next, { type: 'Terminating', status: 'True', reason: 'InstanceDeletionInProgress', message: 'CustomResource deletion is in progress' });
      if (JSON.stringify(next.status) !== JSON.stringify(crd.status)) await this.writeStatus(name, next.status);
      const all = { resourceVersion: '', match: '' as const, predicate: everything };
      const items = (await store.list('', all)).items;
      for (const item of items) {
        try {
          await store.delete(internalContext({ namespace: item.metadata.namespace ?? '' }), item.metadata.name!, { dryRun: false, propagationPolicy: 'Background' });
        } catch (err) {
          if (!(isStatusError(err) && err.code === 404)) throw err;
        }
      }
      // Objects held by finalizers of their own: their owners' controllers must let go first.
      if ((await store.list('', all)).items.length > 0) return false;
    }
    this.unserve(name);
    try {
      await this.crds.update(
        internalContext({ namespace: '' }),
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
