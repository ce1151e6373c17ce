import { badRequest, conflict, forbidden, isStatusError, notAStatus, StatusError } from '../api/errors';
import { fromLabelSelectorStruct, matchesLabels, type LabelSelectorStruct } from '../api/label-selector';
import { isPlainObject, type KubeObject, type Status } from '../api/types';
import { nowTimestamp, type DeleteRequest } from '../registry/generic-store';
import type { PropagationPolicy } from '../registry/deletion-finalizers';
import { validateDeleteOptions, type DecodedDeleteOptions } from '../registry/delete-options-validation';
import type { ServedKind } from '../registry/resource-definition';
import { loopbackContext, UNADMITTED, withInfo, type RequestContext } from '../registry/request-context';
import type { CreateSubresource, CreateSubresourceRequest } from '../registry/subresources';
import { everything } from '../storage/interfaces';
import type { ObjectStore } from '../registry/types';

/**
 * pods/eviction (policy/v1 Eviction), as kube-apiserver's EvictionREST.Create
 * (pkg/registry/core/pod/storage/eviction.go): a pod that can ignore its disruption budget is
 * deleted at once; otherwise its one PodDisruptionBudget must allow a disruption, which the
 * eviction spends (disruptionsAllowed - 1, the pod recorded in status.disruptedPods) before the
 * pod is deleted with the Eviction's delete options.
 */

/** kube-apiserver 1.34 still decodes policy/v1beta1 Evictions here (the same fields), answering as for policy/v1. */
export const EVICTION_KIND: ServedKind = { group: 'policy', version: 'v1', kind: 'Eviction', printerColumns: [], alsoDecodes: ['policy/v1beta1'] };

type Obj = Record<string, unknown>;

/** EvictionsRetry: 20 steps. */
const EVICTION_ATTEMPTS = 20;
/** MaxDisruptedPodSize. */
const MAX_DISRUPTED_POD_SIZE = 2000;
const VIOLATION = "Cannot evict pod as it would violate the pod's disruption budget.";
const PDB_RESOURCE = { group: 'policy', resource: 'poddisruptionbudget' };
const SUCCESS: Status = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 };

const objectOf = (v: unknown): Obj => (isPlainObject(v) ? v : {});
const count = (v: unknown): number => (typeof v === 'number' ? v : 0);

/** errors.NewTooManyRequests with the DisruptionBudget cause; a Retry-After header only when there is a delay to suggest. */
function tooManyRequests(causeMessage: string, retryAfterSeconds: number): StatusError {
  const causes = [{ reason: 'DisruptionBudget', message: causeMessage }];
  if (retryAfterSeconds === 0) return new StatusError(429, 'TooManyRequests', VIOLATION, { causes });
  return new StatusError(429, 'TooManyRequests', VIOLATION, { causes, retryAfterSeconds }, { 'Retry-After': String(retryAfterSeconds) });
}

/** createTooManyRequestsError: suggests 10 seconds, the time a disruption controller needs to catch up. */
const stillProcessing = (pdbName: string): StatusError => tooManyRequests(`The disruption budget ${pdbName} is still being processed by the server.`, 10);

/** propagateDryRun: the create's dryRun fills the Eviction's delete options; both set, they must agree. */
function deleteOptionsOf(eviction: KubeObject, createDryRun: boolean): DeleteRequest {
  const raw = objectOf(eviction.deleteOptions);
  const own = Array.isArray(raw.dryRun) ? (raw.dryRun as string[]) : [];
  if (own.length > 0 && createDryRun && !(own.length === 1 && own[0] === 'All')) {
    // A plain error in kube-apiserver.
    throw notAStatus(`Non-matching dry-run options in request and content: [All] and [${own.join(' ')}]`);
  }
  const pre = objectOf(raw.preconditions);
  const preconditions = {
    ...(typeof pre.uid === 'string' && pre.uid ? { uid: pre.uid } : {}),
    ...(typeof pre.resourceVersion === 'string' && pre.resourceVersion ? { resourceVersion: pre.resourceVersion } : {}),
  };
  return {
    dryRun: createDryRun || own.length > 0,
    ...(typeof raw.gracePeriodSeconds === 'number' ? { gracePeriodSeconds: raw.gracePeriodSeconds < 0 ? 1 : raw.gracePeriodSeconds } : {}),
    ...(Object.keys(preconditions).length > 0 ? { preconditions } : {}),
    ...(typeof raw.propagationPolicy === 'string' ? { propagationPolicy: raw.propagationPolicy as PropagationPolicy } : {}),
    ...(typeof raw.orphanDependents === 'boolean' ? { orphanDependents: raw.orphanDependents } : {}),
  };
}

const phaseOf = (pod: KubeObject): unknown => objectOf(pod.status).phase;

/** canIgnorePDB: terminal, pending or already terminating pods are disrupted already. */
function canIgnorePdb(pod: KubeObject): boolean {
  const phase = phaseOf(pod);
  return phase === 'Succeeded' || phase === 'Failed' || phase === 'Pending' || !!pod.metadata.deletionTimestamp;
}

/** shouldEnforceResourceVersion: every pod that is not terminal or terminating. */
function shouldEnforceResourceVersion(pod: KubeObject): boolean {
  const phase = phaseOf(pod);
  return !(phase === 'Succeeded' || phase === 'Failed' || pod.metadata.deletionTimestamp);
}

/** podutil.IsPodReady. */
function isPodReady(pod: KubeObject): boolean {
  const conditions = objectOf(pod.status).conditions;
  return Array.isArray(conditions) && conditions.some((c) => isPlainObject(c) && c.type === 'Ready' && c.status === 'True');
}

const withResourceVersion = (opts: DeleteRequest, resourceVersion: string | undefined): DeleteRequest => ({
  ...opts,
  preconditions: { ...(opts.preconditions ?? {}), ...(resourceVersion ? { resourceVersion } : {}) },
});

/** podutil.UpdatePodCondition with DisruptionTarget True: a new transition time only when the status changes. */
function markDisruptionTarget(pod: KubeObject): void {
  const status = isPlainObject(pod.status) ? pod.status : (pod.status = {});
  const conditions = Array.isArray(status.conditions) ? status.conditions.filter(isPlainObject) : [];
  const old = conditions.find((c) => c.type === 'DisruptionTarget');
  const condition = {
    type: 'DisruptionTarget',
    status: 'True',
    lastProbeTime: null,
    lastTransitionTime: old?.status === 'True' ? old.lastTransitionTime : nowTimestamp(),
    reason: 'EvictionByEvictionAPI',
    message: 'Eviction API: evicting',
  };
  status.conditions = old ? conditions.map((c) => (c === old ? condition : c)) : [...conditions, condition];
}

/**
 * addConditionAndDeletePod: the DisruptionTarget condition goes on the pod (not in a dry run)
 * through the pod status strategy, checked against the delete preconditions; a resourceVersion
 * precondition then follows the pod's new version, and the pod is deleted with the options.
 * kube's EvictionREST updates its status store with rest.ValidateAllObjectFunc, so this write
 * runs the strategy but no admission.
 */
async function addConditionAndDeletePod(
  ctx: RequestContext,
  pods: ObjectStore,
  name: string,
  opts: DeleteRequest,
  decoded: DecodedDeleteOptions,
): Promise<void> {
  let options = opts;
  if (!opts.dryRun) {
    const { uid, resourceVersion } = opts.preconditions ?? {};
    const { object: updated } = await pods.update(
      { ...withInfo(ctx, { subresource: 'status' }), admission: UNADMITTED },
      name,
      (pod) => {
        if (uid && uid !== pod.metadata.uid) {
          throw conflict(
            { group: '', resource: 'Pod' },
            name,
            `the UID in the precondition (${uid}) does not match the UID in record (${pod.metadata.uid ?? ''}). The object might have been deleted and then recreated`,
          );
        }
        if (resourceVersion && resourceVersion !== pod.metadata.resourceVersion) {
          throw conflict(
            { group: '', resource: 'Pod' },
            name,
            `the ResourceVersion in the precondition (${resourceVersion}) does not match the ResourceVersion in record (${pod.metadata.resourceVersion ?? ''}). The object might have been modified`,
          );
        }
        markDisruptionTarget(pod);
        return pod;
      },
      { dryRun: false },
    );
    if (resourceVersion) options = withResourceVersion(opts, updated.metadata.resourceVersion);
  }
  // The pod store's Delete validates the options (rest.BeforeDelete), after the condition went on.
  validateDeleteOptions(decoded);
  await pods.delete(ctx, name, options);
}

const isConflict = (err: unknown): boolean => isStatusError(err) && err.code === 409;

/**
 * getPodDisruptionBudgets: those of the pod's namespace whose selector matches its labels, as
 * metav1.LabelSelectorAsSelector reads it: no selector matches nothing, an empty one every pod,
 * an invalid one nothing.
 */
async function budgetsOf(ctx: RequestContext, pdbs: ObjectStore, pod: KubeObject): Promise<KubeObject[]> {
  const list = await pdbs.list(ctx, { resourceVersion: '', match: '', predicate: everything, signal: ctx.signal });
  return list.items.filter((pdb) => {
    const selector = objectOf(pdb.spec).selector;
    if (!isPlainObject(selector)) return false;
    try {
      return matchesLabels(fromLabelSelectorStruct(selector as LabelSelectorStruct), pod.metadata.labels ?? {});
    } catch {
      return false;
    }
  });
}

/** pdbhelper.UpdateDisruptionAllowedCondition through apimeta.SetStatusCondition. */
function markDisruptionAllowed(status: Obj): void {
  const allowed = count(status.disruptionsAllowed) > 0;
  const next = {
    type: 'DisruptionAllowed',
    status: allowed ? 'True' : 'False',
    reason: allowed ? 'SufficientPods' : 'InsufficientPods',
    message: '',
    observedGeneration: count(status.observedGeneration),
  };
  const conditions = Array.isArray(status.conditions) ? status.conditions.filter(isPlainObject) : [];
  const old = conditions.find((c) => c.type === 'DisruptionAllowed');
  const lastTransitionTime = old && old.status === next.status ? old.lastTransitionTime : nowTimestamp();
  const condition = { ...next, lastTransitionTime };
  status.conditions = old ? conditions.map((c) => (c === old ? condition : c)) : [...conditions, condition];
}

/**
 * checkAndDecrement as one guarded write of the budget's status: the read, the checks and the
 * write happen against one resourceVersion, and a write that lost a race is retried on the new one.
 * kube writes it with its loopback client's UpdateStatus, so it is admitted as system:apiserver's.
 * A dry run checks without writing.
 */
async function checkAndDecrement(ctx: RequestContext, pdbs: ObjectStore, pdbName: string, podName: string, dryRun: boolean): Promise<void> {
  await pdbs.update(
    loopbackContext(ctx, {
      namespace: ctx.info.namespace,
      group: 'policy',
      version: 'v1',
      resource: 'poddisruptionbudgets',
      subresource: 'status',
      verb: 'update',
      name: pdbName,
    }),
    pdbName,
    (pdb) => {
      const status = isPlainObject(pdb.status) ? pdb.status : (pdb.status = {});
      if (count(status.observedGeneration) < (pdb.metadata.generation ?? 0)) throw stillProcessing(pdbName);
      const allowed = count(status.disruptionsAllowed);
      if (allowed < 0) throw forbidden(PDB_RESOURCE, pdbName, 'pdb disruptions allowed is negative');
      const disrupted = objectOf(status.disruptedPods);
      if (Object.keys(disrupted).length > MAX_DISRUPTED_POD_SIZE)
        throw forbidden(PDB_RESOURCE, pdbName, 'DisruptedPods map too big - too many evictions not confirmed by PDB controller');
      if (allowed === 0) {
        throw tooManyRequests(
          `The disruption budget ${pdbName} needs ${count(status.desiredHealthy)} healthy pods and has ${count(status.currentHealthy)} currently`,
          0,
        );
      }
      status.disruptionsAllowed = allowed - 1;
      if (allowed - 1 === 0) markDisruptionAllowed(status);
      status.disruptedPods = { ...disrupted, [podName]: nowTimestamp() };
      return pdb;
    },
    { dryRun },
  );
}

async function evict({ ctx, parent: pods, name, object, dryRun, services }: CreateSubresourceRequest): Promise<Status> {
  if (object.metadata.name !== name) throw badRequest('name in URL does not match name in Eviction object');
  const options = deleteOptionsOf(object, dryRun);
  const decoded = objectOf(object.deleteOptions) as DecodedDeleteOptions;
  const clientResourceVersion = options.preconditions?.resourceVersion;
  const latest = { resourceVersion: '', match: '' as const, signal: ctx.signal };

  // Pods already disrupted go at once; a conflict with the pod's own version is retried unless the client set one.
  let pod: KubeObject | undefined;
  for (let attempt = 1; ; attempt++) {
    pod = await pods.get(ctx, name, latest);
    if (!canIgnorePdb(pod)) break;
    const opts = shouldEnforceResourceVersion(pod) && !clientResourceVersion ? withResourceVersion(options, pod.metadata.resourceVersion) : options;
    try {
      await addConditionAndDeletePod(ctx, pods, name, opts, decoded);
      return SUCCESS;
    } catch (err) {
      if (!isConflict(err) || clientResourceVersion || attempt >= EVICTION_ATTEMPTS) throw err;
    }
  }

  const budgets = await budgetsOf(ctx, services.store('policy', 'poddisruptionbudgets'), pod);
  if (budgets.length > 1) {
    // A plain error in kube-apiserver.
    throw notAStatus('This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.');
  }
  let guardWithPodVersion = false;
  const pdb = budgets[0];
  if (pdb) {
    const pdbName = pdb.metadata.name ?? '';
    const status = objectOf(pdb.status);
    // An unready pod does not count as healthy: it may go without spending the budget.
    const unhealthyMayGo =
      !isPodReady(pod) &&
      (objectOf(pdb.spec).unhealthyPodEvictionPolicy === 'AlwaysAllow' ||
        (count(status.currentHealthy) >= count(status.desiredHealthy) && count(status.desiredHealthy) > 0));
    if (unhealthyMayGo) {
      guardWithPodVersion = true;
    } else {
      await checkAndDecrement(ctx, services.store('policy', 'poddisruptionbudgets'), pdbName, name, options.dryRun);
    }
  }
  // The pod must not have become ready since it was judged unhealthy.
  const opts = guardWithPodVersion ? withResourceVersion(options, pod.metadata.resourceVersion) : options;
  try {
    await addConditionAndDeletePod(ctx, pods, name, opts, decoded);
  } catch (err) {
    if (isConflict(err) && guardWithPodVersion && !clientResourceVersion) throw stillProcessing(pdb?.metadata.name ?? '');
    throw err;
  }
  return SUCCESS;
}

export const podEviction: CreateSubresource = { name: 'eviction', kind: EVICTION_KIND, create: evict };
