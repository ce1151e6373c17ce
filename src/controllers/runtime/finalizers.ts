import { isStatusError } from '../../api/errors';
import type { KubeObject } from '../../api/types';
import type { ObjectStore, RequestContext } from '../../registry/types';

const NOTHING_TO_DO = Symbol('nothing to do');

/** protectionutil.IsDeletionCandidate: being deleted, and still held by the finalizer. */
export const isDeletionCandidate = (obj: KubeObject, finalizer: string): boolean =>
  !!obj.metadata.deletionTimestamp && (obj.metadata.finalizers ?? []).includes(finalizer);

/** protectionutil.NeedToAddFinalizer: not being deleted, and without the finalizer (made before the admission plugin ran). */
export const needsFinalizer = (obj: KubeObject, finalizer: string): boolean =>
  !obj.metadata.deletionTimestamp && !(obj.metadata.finalizers ?? []).includes(finalizer);

/** Adds or removes a finalizer on the stored object of the same uid; an object gone or changed meanwhile needs nothing. */
export async function setFinalizer(store: ObjectStore, ctx: RequestContext, obj: KubeObject, finalizer: string, present: boolean): Promise<void> {
  const { name = '', uid } = obj.metadata;
  try {
    await store.update(
      ctx,
      name,
      (current) => {
        const finalizers = current.metadata.finalizers ?? [];
        if (current.metadata.uid !== uid || finalizers.includes(finalizer) === present) throw NOTHING_TO_DO;
        const next = present ? [...finalizers, finalizer] : finalizers.filter((f) => f !== finalizer);
        if (next.length > 0) current.metadata.finalizers = next;
        else delete current.metadata.finalizers;
        return current;
      },
      { dryRun: false },
    );
  } catch (err) {
    if (err === NOTHING_TO_DO || (isStatusError(err) && err.code === 404)) return;
    throw err;
  }
}
