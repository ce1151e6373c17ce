import { nowTimestamp } from '../registry/time';

/** A namespace's status condition, as the namespace controller writes it. */
export interface NamespaceCondition {
  type: string;
  status: 'True' | 'False';
  lastTransitionTime: string;
  reason: string;
  message: string;
}

/** The condition types the controller maintains, in the order it writes them, with their "all is well" forms. */
const OK: [type: string, reason: string, message: string][] = [
  ['NamespaceDeletionDiscoveryFailure', 'ResourcesDiscovered', 'All resources successfully discovered'],
  ['NamespaceDeletionGroupVersionParsingFailure', 'ParsedGroupVersions', 'All legacy kube types successfully parsed'],
  ['NamespaceDeletionContentFailure', 'ContentDeleted', 'All content successfully deleted, may be waiting on finalization'],
  ['NamespaceContentRemaining', 'ContentRemoved', 'All content successfully removed'],
  ['NamespaceFinalizersRemaining', 'ContentRemoved', 'All content successfully removed'],
];

/** What one pass over a terminating namespace found. */
export interface ContentTotals {
  /** "configmaps." or "deployments.apps" -> instances left. */
  remainingByResource: Map<string, number>;
  /** finalizer -> instances it still holds. */
  remainingByFinalizer: Map<string, number>;
  /** Errors listing or deleting, one per resource. */
  deleteErrors: string[];
}

function failures(totals: ContentTotals): Map<string, [reason: string, message: string]> {
  const out = new Map<string, [string, string]>();
  if (totals.deleteErrors.length > 0) {
    const msgs = [...totals.deleteErrors].sort();
    out.set('NamespaceDeletionContentFailure', ['ContentDeletionFailed', `Failed to delete all resource types, ${msgs.length} remaining: ${msgs.join(', ')}`]);
  }
  const resources = [...totals.remainingByResource]
    .filter(([, n]) => n > 0)
    .map(([r, n]) => `${r} has ${n} resource instances`)
    .sort();
  if (resources.length > 0) out.set('NamespaceContentRemaining', ['SomeResourcesRemain', `Some resources are remaining: ${resources.join(', ')}`]);
  const finalizers = [...totals.remainingByFinalizer]
    .filter(([, n]) => n > 0)
    .map(([f, n]) => `${f} in ${n} resource instances`)
    .sort();
  if (finalizers.length > 0) {
    out.set('NamespaceFinalizersRemaining', ['SomeFinalizersRemain', `Some content in the namespace has finalizers remaining: ${finalizers.join(', ')}`]);
  }
  return out;
}

/**
 * updateConditions: every maintained type is present; one whose status, reason or message
 * changes is rewritten (its transition time only when the status flips). Null when nothing changes.
 */
export function updatedConditions(existing: NamespaceCondition[], totals: ContentTotals): NamespaceCondition[] | null {
  const failed = failures(totals);
  const conditions = existing.map((c) => ({ ...c }));
  let changed = false;
  for (const [type, okReason, okMessage] of OK) {
    const failure = failed.get(type);
    const wanted = {
      status: failure ? ('True' as const) : ('False' as const),
      reason: failure ? failure[0] : okReason,
      message: failure ? failure[1] : okMessage,
    };
    const old = conditions.find((c) => c.type === type);
    if (!old) {
      conditions.push({ type, status: wanted.status, lastTransitionTime: nowTimestamp(), reason: wanted.reason, message: wanted.message });
      changed = true;
    } else if (old.status !== wanted.status || old.reason !== wanted.reason || old.message !== wanted.message) {
      if (old.status !== wanted.status) old.lastTransitionTime = nowTimestamp();
      Object.assign(old, wanted);
      changed = true;
    }
  }
  return changed ? conditions : null;
}
