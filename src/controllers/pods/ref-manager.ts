import type { ObjectStore } from '../../registry/types';
import { isStatusError } from '../../api/errors';
import type { KubeObject, OwnerReference } from '../../api/types';
import type { RequestContext } from '../../registry/request-context';
import { controllerRefOf } from './controller-ref';

/** Where the objects a controller claims are written: their store, with the controller's context. */
export interface ClaimTarget {
  store: ObjectStore;
  context(namespace: string): RequestContext;
}

const UNCHANGED = Symbol('unchanged');

/** The uid its controller reference names ('' for a reference without one); undefined without a controller. */
export function controllerUidOfObject(obj: KubeObject): string | undefined {
  const ref = controllerRefOf(obj);
  return ref ? (ref.uid ?? '') : undefined;
}

/**
 * controller.ControllerRefManager.ClaimObjects: of `candidates` (the owner's namespace's objects),
 * those the owner controls and its selector still matches; orphans the selector matches are
 * adopted (the owner's controller reference added), owned ones it no longer matches are released.
 * `canAdopt` runs once before the first adoption and throws when the owner must not adopt (kube
 * rechecks a fresh copy of the owner: same uid, not being deleted). Objects being deleted are not
 * adopted, but are released. `controllerUidOf` reads an object's controller's uid (a caller with
 * the object's facts at hand passes its own reader).
 */
export async function claimObjects<T extends KubeObject>(
  owner: KubeObject,
  ref: OwnerReference,
  matches: (obj: T) => boolean,
  candidates: T[],
  target: ClaimTarget,
  canAdopt: () => Promise<void>,
  controllerUidOf: (obj: T) => string | undefined = controllerUidOfObject,
): Promise<T[]> {
  const claimed: T[] = [];
  let adoptionChecked = false;
  const ownerDeleting = !!owner.metadata.deletionTimestamp;
  for (const obj of candidates) {
    const controllerUid = controllerUidOf(obj);
    if (controllerUid !== undefined) {
      if (controllerUid !== owner.metadata.uid) continue;
      if (matches(obj)) {
        claimed.push(obj);
        continue;
      }
      // Released even while it is being deleted: only the owner's own deletion stops a release.
      if (ownerDeleting) continue;
      await release(obj, owner, target);
      continue;
    }
    if (ownerDeleting || !matches(obj) || obj.metadata.deletionTimestamp) continue;
    if (obj.metadata.namespace !== owner.metadata.namespace) continue;
    if (!adoptionChecked) {
      await canAdopt();
      adoptionChecked = true;
    }
    const adopted = await adopt(obj, ref, target);
    if (adopted) claimed.push(adopted);
  }
  return claimed;
}

/** Adds the controller reference, unless another controller claimed the object meanwhile; null when it is gone or taken. */
async function adopt<T extends KubeObject>(obj: T, ref: OwnerReference, target: ClaimTarget): Promise<T | null> {
  try {
    const { object } = await target.store.update(
      target.context(obj.metadata.namespace ?? ''),
      obj.metadata.name!,
      (current) => {
        if (current.metadata.uid !== obj.metadata.uid || controllerRefOf(current) || current.metadata.deletionTimestamp) throw UNCHANGED;
        const refs = (current.metadata.ownerReferences ?? []).filter((r) => r.uid !== ref.uid);
        current.metadata.ownerReferences = [...refs, ref];
        return current;
      },
      { dryRun: false },
    );
    return object as T;
  } catch (err) {
    if (err === UNCHANGED || (isStatusError(err) && err.code === 404)) return null;
    throw err;
  }
}

/** Removes the owner's reference (ReleasePod); an object gone or changed hands meanwhile needs nothing. */
async function release(obj: KubeObject, owner: KubeObject, target: ClaimTarget): Promise<void> {
  try {
    await target.store.update(
      target.context(obj.metadata.namespace ?? ''),
      obj.metadata.name!,
      (current) => {
        const refs = current.metadata.ownerReferences ?? [];
        if (current.metadata.uid !== obj.metadata.uid || !refs.some((r) => r.uid === owner.metadata.uid)) throw UNCHANGED;
        const rest = refs.filter((r) => r.uid !== owner.metadata.uid);
        if (rest.length > 0) current.metadata.ownerReferences = rest;
        else delete current.metadata.ownerReferences;
        return current;
      },
      { dryRun: false },
    );
  } catch (err) {
    if (err === UNCHANGED || (isStatusError(err) && (err.code === 404 || err.code === 422))) return;
    throw err;
  }
}
