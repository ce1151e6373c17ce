import type { ComputedStore } from './computed-store';
import { GenericStore } from './generic-store';
import type { ResourceDefinition } from './resource-definition';

/** The REST storage of one resource: stored objects, or answers computed on create. */
export type RestStore = GenericStore | ComputedStore;

export interface GroupVersionEntry {
  group: string;
  version: string;
  stores: RestStore[];
}

/** GVR -> store. Mutable so that custom resources can come and go at run time. */
export class ResourceRegistry {
  private readonly stores = new Map<string, RestStore>();
  /** stored() is read on every etcd call (metrics) and controller pass; it changes only with add and remove. */
  private storedCache: readonly GenericStore[] | null = null;
  /** stored() by each store's key root, for storeOfKey. */
  private storedByRoot: Map<string, GenericStore> | null = null;
  /** Grows with every add and remove: what is derived from the served set is valid while it stays. */
  private servedGeneration = 0;

  get generation(): number {
    return this.servedGeneration;
  }

  private static key(group: string, version: string, resource: string): string {
    return `${group}/${version}/${resource}`;
  }

  add(store: RestStore): void {
    const { group, version, resource } = store.def;
    this.stores.set(ResourceRegistry.key(group, version, resource), store);
    this.storedCache = null;
    this.storedByRoot = null;
    this.servedGeneration++;
  }

  remove(def: Pick<ResourceDefinition, 'group' | 'version' | 'resource'>): void {
    this.stores.delete(ResourceRegistry.key(def.group, def.version, def.resource));
    this.storedCache = null;
    this.storedByRoot = null;
    this.servedGeneration++;
  }

  lookup(group: string, version: string, resource: string): RestStore | undefined {
    return this.stores.get(ResourceRegistry.key(group, version, resource));
  }

  /**
   * The stores of resources kept in etcd: what controllers watch, list and delete. Versions of one
   * resource share their objects, so each storage path appears once (the version added first).
   */
  stored(): readonly GenericStore[] {
    if (this.storedCache) return this.storedCache;
    const seen = new Set<string>();
    this.storedCache = [...this.stores.values()].filter((s): s is GenericStore => {
      if (!(s instanceof GenericStore) || seen.has(s.def.storagePath)) return false;
      seen.add(s.def.storagePath);
      return true;
    });
    return this.storedCache;
  }

  /**
   * The stored resource whose key range holds an etcd key: the longest root that is a prefix of the
   * key ending at one of its slashes. Every etcd call's metrics are labelled by it.
   */
  storeOfKey(key: string): GenericStore | undefined {
    const byRoot = (this.storedByRoot ??= new Map(this.stored().map((s) => [s.prefix(''), s])));
    let found: GenericStore | undefined;
    for (let slash = key.indexOf('/', 1); slash >= 0; slash = key.indexOf('/', slash + 1)) found = byRoot.get(key.slice(0, slash + 1)) ?? found;
    return found;
  }

  /** Group-versions in registration order, each with its stores. */
  groupVersions(): GroupVersionEntry[] {
    const byGv = new Map<string, GroupVersionEntry>();
    for (const store of this.stores.values()) {
      const { group, version } = store.def;
      const k = `${group}/${version}`;
      let entry = byGv.get(k);
      if (!entry) {
        entry = { group, version, stores: [] };
        byGv.set(k, entry);
      }
      entry.stores.push(store);
    }
    return [...byGv.values()];
  }

  hasGroupVersion(group: string, version: string): boolean {
    return this.groupVersions().some((gv) => gv.group === group && gv.version === version);
  }
}
