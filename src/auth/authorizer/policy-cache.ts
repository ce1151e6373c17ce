import type { KubeObject } from '../../api/types';
import { Informer, listWatchOf } from '../../controllers/runtime/informer';
import type { ObjectStore } from '../../registry/types';

type Log = (message: string, err?: unknown) => void;

/**
 * One kind's objects in memory, an informer of the shared controller runtime (list, watch,
 * restart with backoff, relist on 410): authorization reads roles and bindings on every request,
 * so it never goes to etcd.
 */
function kindCache(store: ObjectStore, log: Log, onChange: () => void = () => undefined): Informer {
  return new Informer(listWatchOf(store), { added: onChange, updated: onChange, deleted: onChange }, { name: `policy-${store.def.resource}`, log });
}

/** The RBAC objects an authorizer reads: roles, cluster roles and their bindings, from memory. */
export class PolicyCache {
  private readonly roles: Informer;
  private readonly clusterRoles: Informer;
  private readonly roleBindings: Informer;
  private readonly clusterRoleBindings: Informer;
  private bindingsByNamespace: Map<string, KubeObject[]> | null = null;

  constructor(stores: { roles: ObjectStore; clusterroles: ObjectStore; rolebindings: ObjectStore; clusterrolebindings: ObjectStore }, log: Log) {
    this.roles = kindCache(stores.roles, log);
    this.clusterRoles = kindCache(stores.clusterroles, log);
    this.roleBindings = kindCache(stores.rolebindings, log, () => (this.bindingsByNamespace = null));
    this.clusterRoleBindings = kindCache(stores.clusterrolebindings, log);
  }

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
