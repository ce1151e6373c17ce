import { conflict } from '../api/errors';
import type { KubeObject } from '../api/types';
import type { Preconditions } from '../storage/interfaces';
import type { DeleteRequest, GracefulDeleteOptions, ResourceDefinition } from './types';
import { groupResource } from './resource-definition';
import { finalizersForDeletion, type PropagationOptions } from './deletion-finalizers';
import { timestampAt } from './time';
import { jsonClone } from '../api/json-clone';

/**
 * The deletion state machine, as pure decisions over the stored object, the delete options and
 * the store's clock (kube's rest/delete.go and the generic registry's store.go): graceful
 * deletion, marking, the garbage collector's finalizers, and when the object is removed. The
 * store only carries out what they decide, in etcd transactions.
 */

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
    // Only a shorter grace period may be given: the deletion moves back by the difference, but
    // never into the past (rest.BeforeDelete): then it is now, and a graceful deletion whose
    // period has run out keeps one second, so that it stays graceful.
    let period = req.gracePeriodSeconds;
    let at = Date.parse(meta.deletionTimestamp) / 1000 - current + period;
    if (at < nowSeconds) {
      at = nowSeconds;
      if (period !== 0) period = 1;
    }
    meta.deletionTimestamp = timestampAt(at);
    meta.deletionGracePeriodSeconds = period;
    return { graceful: true, pending: false, period };
  }
  meta.deletionTimestamp = timestampAt(nowSeconds + period);
  meta.deletionGracePeriodSeconds = period;
  if (meta.generation) meta.generation += 1;
  return { graceful: true, pending: false, period };
}

/**
 * The delete options admission is shown: rest.BeforeDelete has a graceful kind's strategy settle
 * the grace period into the request's options (the pod strategy's CheckGracefulDelete) before any
 * admission runs, when the object is not yet being deleted; webhooks and policies see that period.
 */
export function admittedDeleteRequest(def: ResourceDefinition, obj: KubeObject, req: DeleteRequest): DeleteRequest {
  if (obj.metadata.deletionTimestamp) return req;
  const period = def.strategy.gracePeriodSeconds(obj, req.gracePeriodSeconds);
  return period === null || period === req.gracePeriodSeconds ? req : { ...req, gracePeriodSeconds: period };
}

/**
 * Store.Delete's first look at the stored object, before any transaction: `pending`, a graceful
 * deletion under way that this request does not shorten (answered with the object as it is);
 * `remove`, nothing to mark (no grace period, no finalizers, none to add); `update`, the object is
 * marked first (updateForGracefulDeletionAndFinalizers).
 */
export function startDeletion(def: ResourceDefinition, current: KubeObject, req: DeleteRequest, nowSeconds: number): 'pending' | 'remove' | 'update' {
  const first = beforeDelete(def, jsonClone(current), req, nowSeconds);
  if (first.pending) return 'pending';
  const finalizers = current.metadata.finalizers ?? [];
  const gc = finalizersForDeletion(finalizers, req, def.strategy.garbageCollectionPolicy);
  return first.graceful || finalizers.length > 0 || gc.changed ? 'update' : 'remove';
}

/**
 * What updateForGracefulDeletionAndFinalizers makes of the object read in its guaranteed update:
 * `pending` (another request started a graceful deletion meanwhile), `removeNow` (nothing holds
 * it: kube's errDeleteNow, removed without an update), or `mark`: the object to write, with its
 * deletion timestamp, grace period and finalizers, and whether it is removed right after
 * (graceful with a zero period and nothing holding it).
 */
export type DeletionUpdate = { step: 'pending' } | { step: 'removeNow' } | { step: 'mark'; object: KubeObject; thenRemove: boolean };

export function deletionUpdate(def: ResourceDefinition, existing: KubeObject, req: DeleteRequest, nowSeconds: number): DeletionUpdate {
  const next = jsonClone(existing);
  const decision = beforeDelete(def, next, req, nowSeconds);
  if (decision.pending) return { step: 'pending' };
  const wanted = finalizersForDeletion(next.metadata.finalizers ?? [], req, def.strategy.garbageCollectionPolicy);
  if (wanted.changed) setFinalizers(next, wanted.finalizers);
  const held = (next.metadata.finalizers ?? []).length > 0;
  if (!decision.graceful) {
    if (!held) return { step: 'removeNow' };
    markAsDeleting(next, nowSeconds);
    return { step: 'mark', object: next, thenRemove: false };
  }
  return { step: 'mark', object: next, thenRemove: !held && decision.period === 0 };
}

/**
 * The namespace registry's Delete (pkg/registry/core/namespace/storage), for kinds with a
 * `startTermination` hook: its own precondition checks (a uid precondition is always enforced),
 * then `mark` on the first DELETE (deletionTimestamp, the hook's phase and the collector's
 * finalizers), `wait` while the strategy's finalizers remain, and `delete` as any object is deleted.
 */
export type TerminationStep = { step: 'mark' | 'wait' | 'delete'; preconditions: Preconditions };

export function terminationStep(def: ResourceDefinition, current: KubeObject, req: Pick<DeleteRequest, 'preconditions'>): TerminationStep {
  const meta = current.metadata;
  const name = meta.name ?? '';
  const pre = req.preconditions;
  if (pre?.uid && pre.uid !== meta.uid) {
    throw conflict(groupResource(def), name, `Precondition failed: UID in precondition: ${pre.uid}, UID in object meta: ${meta.uid ?? ''}`);
  }
  if (pre?.resourceVersion && pre.resourceVersion !== meta.resourceVersion) {
    throw conflict(
      groupResource(def),
      name,
      `Precondition failed: ResourceVersion in precondition: ${pre.resourceVersion}, ResourceVersion in object meta: ${meta.resourceVersion ?? ''}`,
    );
  }
  const preconditions = { ...pre, uid: pre?.uid ?? meta.uid };
  if (!meta.deletionTimestamp) return { step: 'mark', preconditions };
  return { step: def.strategy.finalizing(current) ? 'wait' : 'delete', preconditions };
}

/** The first DELETE's marking of the object read in its guaranteed update, at `nowSeconds`. */
export function markTerminating(def: ResourceDefinition, existing: KubeObject, req: PropagationOptions, nowSeconds: number): KubeObject {
  const next = jsonClone(existing);
  next.metadata.deletionTimestamp ??= timestampAt(nowSeconds);
  def.strategy.startTermination?.(next, req);
  return next;
}
