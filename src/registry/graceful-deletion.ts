import { conflict } from '../api/errors';
import type { KubeObject } from '../api/types';
import type { GracefulDeleteOptions, ResourceDefinition } from './types';
import { timestampAt } from './time';

/** The steps of a deletion that only change the object: graceful deletion, marking, finalizers (kube's rest/delete.go and store.go). */

export type { GracefulDeleteOptions } from './types';

/** graceful: the object is marked and kept for `period` seconds; pending: a graceful deletion is already under way. */
export interface BeforeDelete {
  graceful: boolean;
  pending: boolean;
  period: number;
}

export function setFinalizers(obj: KubeObject, finalizers: string[]): void {
  if (finalizers.length > 0) obj.metadata.finalizers = finalizers;
  else delete obj.metadata.finalizers;
}

/** markAsDeleting: deletion starts at `nowSeconds` (or stays earlier), with no grace period. */
export function markAsDeleting(obj: KubeObject, nowSeconds: number): void {
  const meta = obj.metadata;
  if (!meta.deletionTimestamp && meta.generation) meta.generation += 1;
  const now = timestampAt(nowSeconds);
  if (!meta.deletionTimestamp || meta.deletionTimestamp > now) meta.deletionTimestamp = now;
  meta.deletionGracePeriodSeconds = 0;
}

/** An update that empties the finalizers of an object being deleted, with no grace period left, deletes it. */
export function shouldDeleteDuringUpdate(prev: KubeObject, held: boolean): boolean {
  if (held || !prev.metadata.deletionTimestamp) return false;
  const grace = prev.metadata.deletionGracePeriodSeconds;
  return grace === undefined || grace === 0;
}

/**
 * rest.BeforeDelete on a copy of the object at `nowSeconds`: preconditions (409 naming the kind),
 * then graceful deletion. `pending`: a graceful deletion is under way and this request does not shorten it.
 */
export function beforeDelete(def: ResourceDefinition, obj: KubeObject, req: GracefulDeleteOptions, nowSeconds: number): BeforeDelete {
  const meta = obj.metadata;
  const gk = { group: def.group, resource: def.kind };
  const pre = req.preconditions;
  if (pre?.uid && pre.uid !== meta.uid) {
    throw conflict(
      gk,
      meta.name ?? '',
      `the UID in the precondition (${pre.uid}) does not match the UID in record (${meta.uid ?? ''}). The object might have been deleted and then recreated`,
    );
  }
  if (pre?.resourceVersion && pre.resourceVersion !== meta.resourceVersion) {
    throw conflict(
      gk,
      meta.name ?? '',
      `the ResourceVersion in the precondition (${pre.resourceVersion}) does not match the ResourceVersion in record (${meta.resourceVersion ?? ''}). The object might have been modified`,
    );
  }
  const none = { graceful: false, pending: false, period: 0 };
  const period = def.strategy.gracePeriodSeconds(obj, req.gracePeriodSeconds);
  if (period === null) return none;
  if (meta.deletionTimestamp) {
    const current = meta.deletionGracePeriodSeconds;
    // Marked with no grace period left: a delete that did not finish; remove it now.
    if (current === undefined || current === 0) return none;
    if (req.gracePeriodSeconds === undefined || req.gracePeriodSeconds >= current) return { graceful: false, pending: true, period: 0 };
    // Only a shorter grace period may be given.
    const start = Date.parse(meta.deletionTimestamp) / 1000 - current;
    meta.deletionTimestamp = timestampAt(start + req.gracePeriodSeconds);
    meta.deletionGracePeriodSeconds = req.gracePeriodSeconds;
    return { graceful: true, pending: false, period: req.gracePeriodSeconds };
  }
  meta.deletionTimestamp = timestampAt(nowSeconds + period);
  meta.deletionGracePeriodSeconds = period;
  if (meta.generation) meta.generation += 1;
  return { graceful: true, pending: false, period };
}
