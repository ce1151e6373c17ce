/** The garbage collector's finalizers, and how delete options set them (store.go's rules). */

export const ORPHAN_FINALIZER = 'orphan';
export const FOREGROUND_FINALIZER = 'foregroundDeletion';

export type PropagationPolicy = 'Orphan' | 'Background' | 'Foreground';

/**
 * A kind's default: DeleteDependents (dependents are collected in the background unless told
 * otherwise), OrphanDependents (they are orphaned unless told otherwise: core/v1
 * ReplicationControllers, for backwards compatibility), or Unsupported (the collector never
 * handles it, so its finalizers are never set).
 */
export type GarbageCollectionPolicy = 'DeleteDependents' | 'OrphanDependents' | 'Unsupported';

export interface PropagationOptions {
  propagationPolicy?: PropagationPolicy;
  /** Deprecated spelling: true is Orphan, false is Background. */
  orphanDependents?: boolean;
}

function firstGcFinalizer(finalizers: string[]): string | undefined {
  return finalizers.find((f) => f === ORPHAN_FINALIZER || f === FOREGROUND_FINALIZER);
}

/** shouldOrphanDependents: the options win, then a finalizer already on the object, then the kind's default. */
export function shouldOrphan(finalizers: string[], opts: PropagationOptions, policy: GarbageCollectionPolicy): boolean {
  if (opts.orphanDependents !== undefined) return opts.orphanDependents;
  if (opts.propagationPolicy) return opts.propagationPolicy === 'Orphan';
  const first = firstGcFinalizer(finalizers);
  return first ? first === ORPHAN_FINALIZER : policy === 'OrphanDependents';
}

export function shouldDeleteInForeground(finalizers: string[], opts: PropagationOptions): boolean {
  if (opts.orphanDependents !== undefined) return false;
  if (opts.propagationPolicy) return opts.propagationPolicy === 'Foreground';
  return firstGcFinalizer(finalizers) === FOREGROUND_FINALIZER;
}

/**
 * deletionFinalizersForGarbageCollection: the finalizers an object gets when it is deleted with
 * these options, and whether that changes them. The order of other finalizers is kept.
 */
export function finalizersForDeletion(
  finalizers: string[],
  opts: PropagationOptions,
  policy: GarbageCollectionPolicy,
): { changed: boolean; finalizers: string[] } {
  if (policy === 'Unsupported') return { changed: false, finalizers };
  const next = finalizers.filter((f) => f !== ORPHAN_FINALIZER && f !== FOREGROUND_FINALIZER);
  if (shouldOrphan(finalizers, opts, policy)) next.push(ORPHAN_FINALIZER);
  if (shouldDeleteInForeground(finalizers, opts)) next.push(FOREGROUND_FINALIZER);
  const before = new Set(finalizers);
  const changed = next.length !== before.size || next.some((f) => !before.has(f));
  return { changed, finalizers: changed ? next : finalizers };
}

/**
 * A namespace's first deletion: unlike other kinds, finalizers follow the options only when they
 * are given, and stay as they are otherwise.
 */
export function namespaceFinalizersForDeletion(finalizers: string[], opts: PropagationOptions): string[] {
  const want = (name: string, current: boolean): boolean => {
    if (opts.orphanDependents !== undefined) return name === ORPHAN_FINALIZER ? opts.orphanDependents : !opts.orphanDependents;
    if (opts.propagationPolicy) return opts.propagationPolicy === (name === ORPHAN_FINALIZER ? 'Orphan' : 'Foreground');
    return current;
  };
  const next = finalizers.filter((f) => (f !== ORPHAN_FINALIZER && f !== FOREGROUND_FINALIZER) || want(f, true));
  for (const name of [ORPHAN_FINALIZER, FOREGROUND_FINALIZER]) {
    if (!next.includes(name) && want(name, false)) next.push(name);
  }
  return next;
}
