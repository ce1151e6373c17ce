import type { KubeObject } from '../../api/types';
import type { CachedInformer } from '../runtime/informer';
import type { IndexFunc } from '../runtime/object-index';
import { controllerRefOf } from './controller-ref';

/** The index of objects by their controller's uid (controller.PodControllerUIDIndex, the ReplicaSet store's controllerUIDIndex). */
export const CONTROLLER_UID_INDEX = 'controllerUID';

/** Where objects without a controller in `namespace` are filed (controller.OrphanPodIndexKeyForNamespace). */
const orphansOf = (namespace: string): string => `_ORPHAN_POD/${namespace}`;

/** An object is filed under its controller's uid; one without a controller under its namespace's orphans (AddPodControllerUIDIndexer). */
export const byControllerUid: IndexFunc = (obj) => {
  const ref = controllerRefOf(obj);
  return [ref ? ref.uid : orphansOf(obj.metadata.namespace ?? '')];
};

/** The indexers of an informer whose objects controllers claim. */
export const controllerUidIndexers = { [CONTROLLER_UID_INDEX]: byControllerUid };

/**
 * FilterPodsByOwner: the objects of `informer` (indexed with controllerUidIndexers) in the
 * owner's namespace that it controls, and with `includeOrphans` those no one controls, which it
 * may adopt; a claim then decides which it keeps.
 */
export function ownedBy<T extends KubeObject>(informer: CachedInformer, owner: KubeObject, includeOrphans: boolean): T[] {
  const namespace = owner.metadata.namespace ?? '';
  const owned = informer.byIndex(CONTROLLER_UID_INDEX, owner.metadata.uid ?? '').filter((obj) => obj.metadata.namespace === namespace);
  return (includeOrphans ? [...owned, ...informer.byIndex(CONTROLLER_UID_INDEX, orphansOf(namespace))] : owned) as T[];
}
