import type { KubeObject } from '../../api/types';
import type { CachedInformer } from '../../controllers/runtime/informer';
import type { SharedInformers } from '../../controllers/runtime/shared-informers';
import type { ObjectStore } from '../../registry/types';

/**
 * One kind's objects in memory, a view of the process's shared informer of it (list, watch,
 * restart with backoff, relist on 410; the ClusterRole aggregation controller reads the same
 * ClusterRoles): authorization reads roles and bindings on every request, so it never goes to etcd.
 * Its first list is consistent, not the watch cache's state as it happens to be: the bootstrap
 * policy was written just before, and the cache may not have had those events yet; synced from
 * such a list, the authorizer would refuse what the policy allows (anonymous /version, say) until they came.
 */
function kindCache(informers: SharedInformers, store: ObjectStore, onChange: () => void = () => undefined): CachedInformer {
  return informers.informer(
    store,
    { added: onChange, updated: onChange, deleted: onChange },
    { name: `policy-${store.def.resource}`, consistentFirstList: true },
  );
}

/** The RBAC objects an authorizer reads: roles, cluster roles and their bindings, from memory. */
export class PolicyCache {
  private readonly roles: CachedInformer;
  private readonly clusterRoles: CachedInformer;
  private readonly roleBindings: CachedInformer;
  private readonly clusterRoleBindings: CachedInformer;
  private bindingsByNamespace: Map<string, KubeObject[]> | null = null;

  constructor(
    stores: { roles: ObjectStore; clusterroles: ObjectStore; rolebindings: ObjectStore; clusterrolebindings: ObjectStore },
    informers: SharedInformers,
  ) {
    this.roles = kindCache(informers, stores.roles);
    this.clusterRoles = kindCache(informers, stores.clusterroles);
    this.roleBindings = kindCache(informers, stores.rolebindings, () => (this.bindingsByNamespace = null));
    this.clusterRoleBindings = kindCache(informers, stores.clusterrolebindings);
  }

  /** Resolves once each kind holds every write completed before the call (the bootstrap policy's included). */
  async start(): Promise<void> {
    const all = [this.roles, this.clusterRoles, this.roleBindings, this.clusterRoleBindings];
    for (const c of all) c.start();
    await Promise.all(all.map((c) => c.waitForSync()));
  }

  stop(): void {
    for (const c of [this.roles, this.clusterRoles, this.roleBindings, this.clusterRoleBindings]) c.stop();
  }

  getRole(namespace: string, name: string): KubeObject | undefined {
    return this.roles.get(`${namespace}/${name}`);
  }

  getClusterRole(name: string): KubeObject | undefined {
    return this.clusterRoles.get(name);
  }

  listClusterRoles(): KubeObject[] {
    return this.clusterRoles.list();
  }

  listClusterRoleBindings(): Iterable<KubeObject> {
    return this.clusterRoleBindings.list();
  }

  listRoleBindings(namespace: string): KubeObject[] {
    if (!this.bindingsByNamespace) {
      const index = new Map<string, KubeObject[]>();
      for (const b of this.roleBindings.list()) {
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
