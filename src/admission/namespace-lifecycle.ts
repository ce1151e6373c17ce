import { isPromise, type MaybePromise } from '../api/maybe-promise';
import { forbidden, notFound } from '../api/errors';
import type { KubeObject } from '../api/types';
import type { AdmissionAttributes, AdmissionPlugin } from './admission';

/** Looks a namespace up, from a cache where one exists unless `live` asks for etcd. */
export interface NamespaceLookup {
  get(name: string, live: boolean): MaybePromise<KubeObject | null>;
}

/** After a namespace's DELETE, creates in it look the namespace up live for a while (forceLiveLookupTTL). */
const FORCE_LIVE_LOOKUP_MS = 30_000;

/**
 * Namespaces that always exist and may never be deleted. kube-apiserver protects the first three
 * and lets kube-node-lease be deleted (then re-creates it); kapi protects all four.
 */
export const IMMORTAL_NAMESPACES = ['default', 'kube-system', 'kube-public', 'kube-node-lease'];

const NAMESPACES = { group: '', resource: 'namespaces' };

/**
 * Access reviews may be created in any namespace, present or not, as in kube-apiserver: a 404
 * would let anyone probe which namespaces exist.
 */
const ACCESS_REVIEW_RESOURCES = new Set(['authorization.k8s.io/localsubjectaccessreviews']);

/** NamespaceLifecycle: no content in absent or terminating namespaces; immortal namespaces stay. */
export class NamespaceLifecycle implements AdmissionPlugin {
  readonly name = 'NamespaceLifecycle';

  private readonly recentlyDeleted = new Map<string, number>();

  constructor(private readonly namespaces: NamespaceLookup) {}

  admit(attrs: AdmissionAttributes): Promise<void> | void {
    const { def, operation, namespace, name } = attrs;
    if (!def.group && def.resource === 'namespaces') {
      if (operation === 'DELETE' && IMMORTAL_NAMESPACES.includes(name)) {
        throw forbidden(NAMESPACES, name, 'this namespace may not be deleted');
      }
      if (operation === 'DELETE') this.recentlyDeleted.set(name, Date.now() + FORCE_LIVE_LOOKUP_MS);
      return;
    }
    if (!def.namespaced || operation !== 'CREATE' || ACCESS_REVIEW_RESOURCES.has(`${def.group}/${def.resource}`)) return;
    const until = this.recentlyDeleted.get(namespace);
    if (until !== undefined && until < Date.now()) this.recentlyDeleted.delete(namespace);
    const ns = this.namespaces.get(namespace, until !== undefined && until >= Date.now());
    if (isPromise(ns)) return ns.then((found) => this.admitIn(attrs, found));
    this.admitIn(attrs, ns);
  }

  /** A create in `ns`, found or not. */
  private admitIn(attrs: AdmissionAttributes, ns: KubeObject | null): void {
    const { def, namespace } = attrs;
    if (!ns) throw notFound(NAMESPACES, namespace);
    if ((ns.status as { phase?: string } | undefined)?.phase === 'Terminating') {
      const message = `unable to create new content in namespace ${namespace} because it is being terminated`;
      const err = forbidden({ group: def.group, resource: def.resource }, attrs.object?.metadata.name ?? '', message);
      err.status.details!.causes = [{ reason: 'NamespaceTerminating', message: `namespace ${namespace} is being terminated`, field: 'metadata.namespace' }];
      throw err;
    }
  }
}
