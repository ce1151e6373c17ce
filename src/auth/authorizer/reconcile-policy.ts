import { isStatusError } from '../../api/errors';
import { jsonEqual } from '../../api/deep-equal';
import { isPlainObject, type KubeObject } from '../../api/types';
import type { GenericStore } from '../../registry/generic-store';
import { systemReadContext, systemContext, SERVER_OWN_WRITE, SYSTEM_READ_ALL } from '../../registry/request-context';
import { CreateBatch } from '../../storage/etcd/create-batch';
import { everything } from '../../storage/interfaces';
import { BOOTSTRAP_CLUSTER_ROLE_BINDINGS, BOOTSTRAP_CLUSTER_ROLES, BOOTSTRAP_ROLE_BINDINGS, BOOTSTRAP_ROLES } from './bootstrap-policy';
import { AUTO_UPDATE_ANNOTATION } from './policy-objects';
import { rulesOf, subjectsOf } from './rbac-objects';
import { breakdownRule, covers } from './rule-match';
import { jsonClone } from '../../api/json-clone';

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
  const next = jsonClone(existing);
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
  const next = jsonClone(existing);
  next.metadata.labels = merged(existing.metadata.labels, expected.metadata.labels);
  next.metadata.annotations = merged(existing.metadata.annotations, expected.metadata.annotations);
  const have = subjectsOf(existing);
  const wanted = Array.isArray(expected.subjects) ? expected.subjects.filter(isPlainObject) : [];
  const missing = wanted.filter((s) => !have.some((h) => h.kind === s.kind && h.name === s.name));
  if (missing.length > 0) next.subjects = [...(Array.isArray(existing.subjects) ? existing.subjects : []), ...missing];
  return next;
}

type Reconciled = (existing: KubeObject, expected: KubeObject) => KubeObject;

/** The stored objects of a kind by namespace and name, read in one consistent list. */
async function storedByName(store: GenericStore): Promise<Map<string, KubeObject>> {
  const { items } = await store.list(SYSTEM_READ_ALL, { resourceVersion: '', match: '', predicate: everything });
  return new Map(items.map((obj) => [`${obj.metadata.namespace ?? ''}/${obj.metadata.name}`, obj]));
}

/**
 * ReconcileRoleOptions.Run: the first attempt starts from the object the start's list found (a
 * get per object would be an etcd read each); one that lost a race (409) reads the object again.
 */
async function reconcile(
  store: GenericStore,
  listed: Map<string, KubeObject>,
  batch: CreateBatch,
  expected: KubeObject,
  reconciled: Reconciled,
): Promise<void> {
  const name = expected.metadata.name!;
  const namespace = expected.metadata.namespace ?? '';
  let existing = listed.get(`${namespace}/${name}`) ?? null;
  for (let attempt = 0; attempt < 3; attempt++) {
    if (attempt > 0) existing = await store.find(systemReadContext(namespace), name, { resourceVersion: '', match: '' });
    try {
      if (!existing) {
        await store.create(systemContext({ namespace }, SERVER_OWN_WRITE), jsonClone(expected), { dryRun: false, batch });
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

/** Every expected object of one kind reconciled against what is stored. */
async function reconcileAll(store: GenericStore, batch: CreateBatch, expected: readonly KubeObject[], reconciled: Reconciled): Promise<void> {
  const listed = await storedByName(store);
  await Promise.all(expected.map((obj) => reconcile(store, listed, batch, obj, reconciled)));
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
  // A fresh cluster's objects are created in a few etcd transactions (about 130 one each cost a
  // fifth of a start's CPU); updates stay one guarded write each.
  const batch = new CreateBatch();
  await Promise.all([
    reconcileAll(stores.clusterroles, batch, BOOTSTRAP_CLUSTER_ROLES, reconciledRole),
    reconcileAll(stores.clusterrolebindings, batch, BOOTSTRAP_CLUSTER_ROLE_BINDINGS, reconciledBinding),
    reconcileAll(stores.roles, batch, BOOTSTRAP_ROLES, reconciledRole),
    reconcileAll(stores.rolebindings, batch, BOOTSTRAP_ROLE_BINDINGS, reconciledBinding),
  ]);
}
