import type { ReplicaSetCondition, ReplicaSetStatus } from '../../generated/types/apps/v1';
import type { Pod } from '../../generated/types/core/v1';
import { factsAvailable, podFacts } from '../pods/pod-facts';
import { messageOf } from '../pods/pod-control';
import type { Replicated } from './replicated-kind';
import { jsonClone } from '../../api/json-clone';

const rfc3339 = (ms: number): string => new Date(ms).toISOString().replace(/\.\d+Z$/, 'Z');

const templateMatches = (template: [string, string][], labels: Record<string, string> | undefined): boolean => template.every(([k, v]) => labels?.[k] === v);

/**
 * replicaset.calculateStatus: the counts of the active pods it owns (those with all of the
 * template's labels, the ready, the available after minReadySeconds), the pods it owns still
 * terminating (undefined where the kind or the DeploymentReplicaSetTerminatingReplicas gate has
 * no such count), and the ReplicaFailure condition while creating or deleting pods fails.
 */
export function calculateStatus(set: Replicated, pods: Pod[], terminating: number | undefined, manageError: unknown, nowMs: number): ReplicaSetStatus {
  const status: ReplicaSetStatus = jsonClone(set.status ?? {});
  const templateLabels = Object.entries(set.spec?.template?.metadata?.labels ?? {});
  const minReadySeconds = set.spec?.minReadySeconds ?? 0;
  const failure = status.conditions?.find((c) => c.type === 'ReplicaFailure');
  if (manageError !== null && !failure) {
    const diff = pods.length - (set.spec?.replicas ?? 1);
    const reason = diff < 0 ? 'FailedCreate' : diff > 0 ? 'FailedDelete' : '';
    const condition: ReplicaSetCondition = {
      type: 'ReplicaFailure',
      status: 'True',
      lastTransitionTime: rfc3339(nowMs),
      reason,
      message: messageOf(manageError),
    };
    status.conditions = [...(status.conditions ?? []), condition];
  } else if (manageError === null && failure) {
    status.conditions = status.conditions!.filter((c) => c !== failure);
    if (status.conditions.length === 0) delete status.conditions;
  }
  status.replicas = pods.length;
  let fullyLabeled = 0;
  let ready = 0;
  let available = 0;
  for (const pod of pods) {
    const facts = podFacts(pod);
    if (templateMatches(templateLabels, facts.labels)) fullyLabeled++;
    if (facts.ready) ready++;
    if (factsAvailable(facts, minReadySeconds, nowMs)) available++;
  }
  status.fullyLabeledReplicas = fullyLabeled;
  status.readyReplicas = ready;
  status.availableReplicas = available;
  // A pointer in kube's ReplicaSetStatus: 0 is written, nil leaves the field out.
  if (terminating === undefined) delete status.terminatingReplicas;
  else status.terminatingReplicas = terminating;
  // Zero counts are left out, as Go's omitempty leaves them (replicas always shows).
  for (const key of ['fullyLabeledReplicas', 'readyReplicas', 'availableReplicas'] as const) if (status[key] === 0) delete status[key];
  return status;
}
