import { isStatusError } from '../../api/errors';
import { jsonEqual } from '../../api/deep-equal';
import { isPlainObject, type KubeObject } from '../../api/types';
import type { GenericStore } from '../../registry/generic-store';
import { systemReadContext, systemContext, SERVER_OWN_WRITE } from '../../registry/request-context';
import { BOOTSTRAP_CLUSTER_ROLE_BINDINGS, BOOTSTRAP_CLUSTER_ROLES, BOOTSTRAP_ROLE_BINDINGS, BOOTSTRAP_ROLES } from './bootstrap-policy';
import { AUTO_UPDATE_ANNOTATION } from './policy-objects';
import { rulesOf, subjectsOf } from './rbac-objects';
import { breakdownRule, covers } from './rule-match';

/** Existing keys win, missing ones are added (reconciliation never takes a label away). */
function merged(existing: Record<string, string> | undefined, expected: Record<string, string> | undefined): Record<string, string> {
  return { ...expected, ...existing };
}

/**
 * computeReconciledRole (pkg/registry/rbac/reconciliation) with kube-apiserver's settings
 * (confirm, never remove extra permissions): missing labels, annotations, aggregation
 * selectors and rules are added; an aggregated role's rules belong to the aggregation controller.
 */
function reconciledRole(existing: KubeObject, expected: KubeObject): KubeObject {
  const next = structuredClone(existing);
  next.metadata.labels = merged(existing.metadata.labels, expected.metadata.labels);
  next.metadata.annotations = merged(existing.metadata.annotations, expected.metadata.annotations);
  if (isPlainObject(expected.aggregationRule)) {
    const have =
      isPlainObject(existing.aggregationRule) && Array.isArray(existing.aggregationRule.clusterRoleSelectors)
        ? existing.aggregationRule.clusterRoleSelectors
        : [];
    const want = expected.aggregationRule.clusterRoleSelectors as unknown[];
    next.aggregationRule = { clusterRoleSelectors: [...have, ...want.filter((w) => !have.some((h) => jsonEqual(h, w)))] };
  }
  const { missing } = covers(rulesOf(existing), rulesOf(expected));
  if (missing.length > 0) next.rules = [...rulesOf(existing), ...missing.flatMap(breakdownRule)];
  return next;
}

/** reconcileRoleBinding: missing subjects are added; labels and annotations as for roles. */
function reconciledBinding(existing: KubeObject, expected: KubeObject): KubeObject {
  const next = structuredClone(existing);
  next.metadata.labels = merged(existing.metadata.labels, expected.metadata.labels);
  next.metadata.annotations = merged(existing.metadata.annotations, expected.metadata.annotations);
  const have = subjectsOf(existing);
  const wanted = Array.isArray(expected.subjects) ? expected.subjects.filter(isPlainObject) : [];
  const missing = wanted.filter((s) => !have.some((h) => h.kind === s.kind && h.name === s.name));
  if (missing.length > 0) next.subjects = [...(Array.isArray(existing.subjects) ? existing.subjects : []), ...missing];
  return next;
}

async function reconcile(store: GenericStore, expected: KubeObject, reconciled: (existing: KubeObject, expected: KubeObject) => KubeObject): Promise<void> {
  const name = expected.metadata.name!;
  const namespace = expected.metadata.namespace ?? '';
  for (let attempt = 0; attempt < 3; attempt++) {
    let existing: KubeObject | null = null;
    try {
      existing = await store.get(systemReadContext(namespace), name, { resourceVersion: '', match: '' });
    } catch (err) {
      if (!(isStatusError(err) && err.code === 404)) throw err;
    }
    try {
      if (!existing) {
        await store.create(systemContext({ namespace }, SERVER_OWN_WRITE), structuredClone(expected), { dryRun: false });
        return;
      }
      // A role its owner marked autoupdate=false is left as it is.
      if (existing.metadata.annotations?.[AUTO_UPDATE_ANNOTATION] === 'false') return;
      const next = reconciled(existing, expected);
      if (jsonEqual(next, existing)) return;
      await store.update(systemContext({ namespace }, SERVER_OWN_WRITE), name, next, { dryRun: false });
      return;
    } catch (err) {
      // Another kapi reconciled it at the same moment: read again.
      if (!(isStatusError(err) && err.code === 409)) throw err;
    }
  }
}

/**
 * The bootstrap policy at every start (kube-apiserver's storage_rbac PostStartHook): roles and
 * bindings that are missing are created, existing ones get what they lack.
 */
export async function reconcileBootstrapPolicy(stores: {
  roles: GenericStore;
  clusterroles: GenericStore;
  rolebindings: GenericStore;
  clusterrolebindings: GenericStore;
}): Promise<void> {
  // Each object is its own read and guarded write; sent together, etcd commits them in a few batches.
  await Promise.all([
    ...BOOTSTRAP_CLUSTER_ROLES.map((role) => reconcile(stores.clusterroles, role, reconciledRole)),
    ...BOOTSTRAP_CLUSTER_ROLE_BINDINGS.map((binding) => reconcile(stores.clusterrolebindings, binding, reconciledBinding)),
    ...BOOTSTRAP_ROLES.map((role) => reconcile(stores.roles, role, reconciledRole)),
    ...BOOTSTRAP_ROLE_BINDINGS.map((binding) => reconcile(stores.rolebindings, binding, reconciledBinding)),
  ]);
}
