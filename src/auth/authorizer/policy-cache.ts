import type { KubeObject } from '../../api/types';
import type { GenericStore } from '../../registry/generic-store';
import { everything } from '../../storage/interfaces';

type Log = (message: string, err?: unknown) => void;

const RETRY_MS = 1000;

/**
 * One kind's objects in memory, kept current by a list and a watch of its store (an informer's
 * indexer): authorization reads roles and bindings on every request, so it never goes to etcd.
 */
class KindCache {
  readonly byKey = new Map<string, KubeObject>();
  private stopped = false;
  private close: (() => void) | null = null;
  private listeners: (() => void)[] = [];

  constructor(
    readonly store: GenericStore,
    private readonly log: Log,
  ) {}

  onChange(listener: () => void): void {
    this.listeners.push(listener);
  }

  async start(): Promise<void> {
    const list = await this.store.list('', { resourceVersion: '', match: '', predicate: everything });
    this.byKey.clear();
    for (const item of list.items) this.byKey.set(keyOf(item), item);
    this.changed();
    const channel = await this.store.watch('', { resourceVersion: list.metadata.resourceVersion ?? '', predicate: everything });
    this.close = () => channel.close();
    void (async () => {
      try {
        for await (const item of channel) {
          if (item.type === 'ADDED' || item.type === 'MODIFIED') this.byKey.set(keyOf(item.object), item.object);
          else if (item.type === 'DELETED') this.byKey.delete(keyOf(item.object));
          else continue;
          this.changed();
        }
        if (!this.stopped) throw new Error('watch closed');
      } catch (err) {
        if (this.stopped) return;
        this.log(`policy cache: ${this.store.def.resource} watch ended; relisting`, err);
        setTimeout(() => void this.start().catch((e) => this.log(`policy cache: ${this.store.def.resource} relist failed`, e)), RETRY_MS);
      }
    })();
  }

  stop(): void {
    this.stopped = true;
    this.close?.();
  }

  private changed(): void {
    for (const l of this.listeners) l();
  }
}

const keyOf = (obj: KubeObject): string => `${obj.metadata.namespace ?? ''}/${obj.metadata.name ?? ''}`;

/** The RBAC objects an authorizer reads: roles, cluster roles and their bindings, from memory. */
export class PolicyCache {
  private readonly roles: KindCache;
  private readonly clusterRoles: KindCache;
  private readonly roleBindings: KindCache;
  private readonly clusterRoleBindings: KindCache;
  private bindingsByNamespace: Map<string, KubeObject[]> | null = null;

  constructor(stores: { roles: GenericStore; clusterroles: GenericStore; rolebindings: GenericStore; clusterrolebindings: GenericStore }, log: Log) {
    this.roles = new KindCache(stores.roles, log);
    this.clusterRoles = new KindCache(stores.clusterroles, log);
    this.roleBindings = new KindCache(stores.rolebindings, log);
    this.clusterRoleBindings = new KindCache(stores.clusterrolebindings, log);
    this.roleBindings.onChange(() => (this.bindingsByNamespace = null));
  }

  async start(): Promise<void> {
    await Promise.all([this.roles, this.clusterRoles, this.roleBindings, this.clusterRoleBindings].map((c) => c.start()));
  }

  stop(): void {
    for (const c of [this.roles, this.clusterRoles, this.roleBindings, this.clusterRoleBindings]) c.stop();
  }

  getRole(namespace: string, name: string): KubeObject | undefined {
    return this.roles.byKey.get(`${namespace}/${name}`);
  }

  getClusterRole(name: string): KubeObject | undefined {
    return this.clusterRoles.byKey.get(`/${name}`);
  }

  listClusterRoles(): KubeObject[] {
    return [...this.clusterRoles.byKey.values()];
  }

  listClusterRoleBindings(): Iterable<KubeObject> {
    return this.clusterRoleBindings.byKey.values();
  }

  listRoleBindings(namespace: string): KubeObject[] {
    if (!this.bindingsByNamespace) {
      const index = new Map<string, KubeObject[]>();
      for (const b of this.roleBindings.byKey.values()) {
        const ns = b.metadata.namespace ?? '';
        const list = index.get(ns);
        if (list) list.push(b);
        else index.set(ns, [b]);
      }
      this.bindingsByNamespace = index;
    }
    return this.bindingsByNamespace.get(namespace) ?? [];
  }
}
