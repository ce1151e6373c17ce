import type { KubeObject } from '../api/types';
import {
  admittedDeleteRequest,
  beforeDelete,
  deletionUpdate,
  markAsDeleting,
  markTerminating,
  shouldDeleteDuringUpdate,
  startDeletion,
  terminationStep,
} from './deletion';
import type { ResourceDefinition } from './resource-definition';
import { strategy } from './strategy';
import { timestampAt } from './time';

const graceful = {
  group: 'example.com',
  kind: 'Thing',
  strategy: strategy({ gracePeriodSeconds: (_obj, requested) => requested ?? 30 }),
} as ResourceDefinition;
const immediate = { ...graceful, strategy: strategy({}) } as ResourceDefinition;

/** The store's clock at the delete: a fixed instant. */
const NOW = 1_800_000_000;

const thing = (meta: Partial<KubeObject['metadata']> = {}): KubeObject => ({
  apiVersion: 'example.com/v1',
  kind: 'Thing',
  metadata: { name: 't', uid: 'u1', resourceVersion: '7', ...meta },
});

describe('beforeDelete', () => {
  test('preconditions are checked first, with the kind in the conflict', () => {
    expect(() => beforeDelete(graceful, thing(), { preconditions: { uid: 'other' } }, NOW)).toThrow(
      'Operation cannot be fulfilled on Thing.example.com "t": the UID in the precondition (other) does not match the UID in record (u1). The object might have been deleted and then recreated',
    );
    expect(() => beforeDelete(graceful, thing(), { preconditions: { resourceVersion: '6' } }, NOW)).toThrow(
      'the ResourceVersion in the precondition (6) does not match the ResourceVersion in record (7)',
    );
  });

  test('a kind without graceful deletion is removed at once', () => {
    expect(beforeDelete(immediate, thing(), {}, NOW)).toEqual({ graceful: false, pending: false, period: 0 });
  });

  test('a first graceful delete marks the object for its period and bumps its generation', () => {
    const obj = thing({ generation: 2 });
    expect(beforeDelete(graceful, obj, {}, NOW)).toEqual({ graceful: true, pending: false, period: 30 });
    expect(obj.metadata).toMatchObject({ deletionTimestamp: timestampAt(NOW + 30), deletionGracePeriodSeconds: 30, generation: 3 });
  });

  test('a later delete may only shorten the period, keeping its start', () => {
    const start = NOW - 10;
    const marked = () => thing({ deletionTimestamp: timestampAt(start + 30), deletionGracePeriodSeconds: 30 });
    expect(beforeDelete(graceful, marked(), { gracePeriodSeconds: 60 }, NOW)).toEqual({ graceful: false, pending: true, period: 0 });
    const shorter = marked();
    expect(beforeDelete(graceful, shorter, { gracePeriodSeconds: 15 }, NOW)).toEqual({ graceful: true, pending: false, period: 15 });
    expect(shorter.metadata.deletionTimestamp).toBe(timestampAt(start + 15));
  });

  test('a shortened deletion never moves into the past: it is now, and a period that ran out is one second', () => {
    const start = NOW - 10;
    const marked = () => thing({ deletionTimestamp: timestampAt(start + 30), deletionGracePeriodSeconds: 30 });
    const expired = marked();
    expect(beforeDelete(graceful, expired, { gracePeriodSeconds: 5 }, NOW)).toEqual({ graceful: true, pending: false, period: 1 });
    expect(expired.metadata).toMatchObject({ deletionTimestamp: timestampAt(NOW), deletionGracePeriodSeconds: 1 });
    const zero = marked();
    expect(beforeDelete(graceful, zero, { gracePeriodSeconds: 0 }, NOW)).toEqual({ graceful: true, pending: false, period: 0 });
    expect(zero.metadata).toMatchObject({ deletionTimestamp: timestampAt(NOW), deletionGracePeriodSeconds: 0 });
  });
});

test('markAsDeleting starts the deletion now, once', () => {
  const obj = thing({ generation: 1 });
  markAsDeleting(obj, NOW);
  expect(obj.metadata).toMatchObject({ generation: 2, deletionTimestamp: timestampAt(NOW), deletionGracePeriodSeconds: 0 });
  markAsDeleting(obj, NOW + 5);
  expect(obj.metadata).toMatchObject({ generation: 2, deletionTimestamp: timestampAt(NOW) });
});

test('emptying the finalizers of an object being deleted with no grace left deletes it', () => {
  expect(shouldDeleteDuringUpdate(thing({ deletionTimestamp: timestampAt(0), deletionGracePeriodSeconds: 0 }), false)).toBe(true);
  expect(shouldDeleteDuringUpdate(thing({ deletionTimestamp: timestampAt(0), deletionGracePeriodSeconds: 0 }), true)).toBe(false);
  expect(shouldDeleteDuringUpdate(thing({ deletionTimestamp: timestampAt(0), deletionGracePeriodSeconds: 30 }), false)).toBe(false);
  expect(shouldDeleteDuringUpdate(thing(), false)).toBe(false);
});

describe('startDeletion: what Store.Delete does before any transaction', () => {
  const orphaning = { ...immediate, strategy: strategy({ garbageCollectionPolicy: 'OrphanDependents' }) } as ResourceDefinition;

  test('nothing to mark is removed at once; a finalizer, a finalizer to add or a grace period mean a marking update first', () => {
    expect(startDeletion(immediate, thing(), { dryRun: false }, NOW)).toBe('remove');
    expect(startDeletion(immediate, thing({ finalizers: ['example.com/hold'] }), { dryRun: false }, NOW)).toBe('update');
    expect(startDeletion(immediate, thing(), { dryRun: false, propagationPolicy: 'Foreground' }, NOW)).toBe('update');
    expect(startDeletion(immediate, thing(), { dryRun: false, propagationPolicy: 'Background' }, NOW)).toBe('remove');
    // A kind that orphans by default (ReplicationControllers) gets the orphan finalizer unless told otherwise.
    expect(startDeletion(orphaning, thing(), { dryRun: false }, NOW)).toBe('update');
    expect(startDeletion(orphaning, thing(), { dryRun: false, orphanDependents: false }, NOW)).toBe('remove');
    expect(startDeletion(graceful, thing(), { dryRun: false }, NOW)).toBe('update');
  });

  test('a graceful deletion under way that the request does not shorten is pending, and the object is left untouched', () => {
    const marked = thing({ deletionTimestamp: timestampAt(NOW + 20), deletionGracePeriodSeconds: 30 });
    expect(startDeletion(graceful, marked, { dryRun: false }, NOW)).toBe('pending');
    expect(marked.metadata.deletionTimestamp).toBe(timestampAt(NOW + 20));
    expect(startDeletion(graceful, marked, { dryRun: false, gracePeriodSeconds: 1 }, NOW)).toBe('update');
  });
});

describe('deletionUpdate: updateForGracefulDeletionAndFinalizers on the object read in the update', () => {
  test('an object held only by finalizers is marked now, with no grace period, and kept', () => {
    const existing = thing({ finalizers: ['example.com/hold'], generation: 4 });
    const update = deletionUpdate(immediate, existing, { dryRun: false }, NOW);
    expect(update).toEqual({
      step: 'mark',
      thenRemove: false,
      object: thing({ finalizers: ['example.com/hold'], generation: 5, deletionTimestamp: timestampAt(NOW), deletionGracePeriodSeconds: 0 }),
    });
    // The stored object is not changed in place.
    expect(existing.metadata.deletionTimestamp).toBeUndefined();
  });

  test('nothing holding it: removed without an update', () => {
    expect(deletionUpdate(immediate, thing(), { dryRun: false }, NOW)).toEqual({ step: 'removeNow' });
  });

  test('propagation: foreground replaces orphan, other finalizers keep their order', () => {
    const update = deletionUpdate(immediate, thing({ finalizers: ['orphan', 'example.com/hold'] }), { dryRun: false, propagationPolicy: 'Foreground' }, NOW);
    expect(update.step === 'mark' && update.object.metadata.finalizers).toEqual(['example.com/hold', 'foregroundDeletion']);
    const orphaned = deletionUpdate(immediate, thing(), { dryRun: false, orphanDependents: true }, NOW);
    expect(orphaned.step === 'mark' && orphaned.object.metadata).toMatchObject({ finalizers: ['orphan'], deletionGracePeriodSeconds: 0 });
  });

  test('graceful: kept for its period; a zero period with nothing holding it is removed right after the update', () => {
    expect(deletionUpdate(graceful, thing(), { dryRun: false }, NOW)).toMatchObject({
      step: 'mark',
      thenRemove: false,
      object: { metadata: { deletionTimestamp: timestampAt(NOW + 30), deletionGracePeriodSeconds: 30 } },
    });
    expect(deletionUpdate(graceful, thing(), { dryRun: false, gracePeriodSeconds: 0 }, NOW)).toMatchObject({ step: 'mark', thenRemove: true });
    expect(deletionUpdate(graceful, thing({ finalizers: ['example.com/hold'] }), { dryRun: false, gracePeriodSeconds: 0 }, NOW)).toMatchObject({
      step: 'mark',
      thenRemove: false,
    });
  });

  test('another request started a graceful deletion meanwhile: pending', () => {
    const marked = thing({ deletionTimestamp: timestampAt(NOW + 20), deletionGracePeriodSeconds: 30 });
    expect(deletionUpdate(graceful, marked, { dryRun: false }, NOW)).toEqual({ step: 'pending' });
  });
});

describe('terminationStep and markTerminating (a namespace-like kind)', () => {
  const terminating = {
    group: '',
    kind: 'Namespace',
    resource: 'namespaces',
    strategy: strategy({
      finalizing: (ns: KubeObject) => ((ns.spec as { finalizers?: string[] } | undefined)?.finalizers ?? []).length > 0,
      startTermination: (ns: KubeObject) => {
        ns.status = { phase: 'Terminating' };
      },
    }),
  } as unknown as ResourceDefinition;

  test('its own precondition messages, and the stored uid always becomes a precondition', () => {
    expect(() => terminationStep(terminating, thing(), { preconditions: { uid: 'other' } })).toThrow(
      'Operation cannot be fulfilled on namespaces "t": Precondition failed: UID in precondition: other, UID in object meta: u1',
    );
    expect(() => terminationStep(terminating, thing(), { preconditions: { resourceVersion: '6' } })).toThrow(
      'Precondition failed: ResourceVersion in precondition: 6, ResourceVersion in object meta: 7',
    );
    expect(terminationStep(terminating, thing(), {})).toEqual({ step: 'mark', preconditions: { uid: 'u1' } });
  });

  test('marked: waits while the finalizers remain, then is deleted', () => {
    const marked = thing({ deletionTimestamp: timestampAt(NOW) });
    expect(terminationStep(terminating, { ...marked, spec: { finalizers: ['kubernetes'] } }, {}).step).toBe('wait');
    expect(terminationStep(terminating, marked, { preconditions: { resourceVersion: '7' } })).toEqual({
      step: 'delete',
      preconditions: { resourceVersion: '7', uid: 'u1' },
    });
  });

  test('the first DELETE marks a copy at the store time and runs the hook; an earlier timestamp stays', () => {
    const stored = thing();
    const next = markTerminating(terminating, stored, {}, NOW);
    expect(next).toMatchObject({ metadata: { deletionTimestamp: timestampAt(NOW) }, status: { phase: 'Terminating' } });
    expect(stored.metadata.deletionTimestamp).toBeUndefined();
    expect(markTerminating(terminating, thing({ deletionTimestamp: timestampAt(NOW - 5) }), {}, NOW).metadata.deletionTimestamp).toBe(timestampAt(NOW - 5));
  });
});

test("admission is shown the grace period a graceful kind's strategy settles, until the deletion is under way", () => {
  expect(admittedDeleteRequest(graceful, thing(), { dryRun: false })).toEqual({ dryRun: false, gracePeriodSeconds: 30 });
  expect(admittedDeleteRequest(graceful, thing({ deletionTimestamp: timestampAt(NOW), deletionGracePeriodSeconds: 30 }), { dryRun: false })).toEqual({
    dryRun: false,
  });
  expect(admittedDeleteRequest(immediate, thing(), { dryRun: false })).toEqual({ dryRun: false });
});
