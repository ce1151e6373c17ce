import type { ResourceDefinition } from './resource-definition';

/**
 * Where a resource's objects live in etcd, as kube-apiserver lays them out (registry/generic's
 * NamespaceKeyFunc and NoNamespaceKeyFunc under the storage prefix): `<prefix>/<storagePath>/`,
 * then `<namespace>/<name>` or `<name>`.
 */

export function resourceRoot(etcdPrefix: string, def: ResourceDefinition): string {
  return `${etcdPrefix.replace(/\/$/, '')}/${def.storagePath}/`;
}

export function objectKey(root: string, namespaced: boolean, namespace: string, name: string): string {
  return namespaced ? `${root}${namespace}/${name}` : `${root}${name}`;
}

/** The prefix of a collection: one namespace, or all of them when namespace is ''. */
export function collectionPrefix(root: string, namespaced: boolean, namespace: string): string {
  return namespaced && namespace ? `${root}${namespace}/` : root;
}
