import type { Deployment, DeploymentCondition, DeploymentStatus, ReplicaSet } from '../../generated/types/apps/v1';
import {
  actualReplicas,
  availableReplicas,
  condition,
  deploymentComplete,
  deploymentProgressing,
  deploymentTimedOut,
  desiredReplicas,
  hasProgressDeadline,
  maxUnavailable,
  newCondition,
  readyReplicas,
  REASON,
  removeCondition,
  setCondition,
  specReplicas,
} from './deployment-util';

export const rfc3339 = (ms: number): string => new Date(ms).toISOString().replace(/\.\d+Z$/, 'Z');

/** The counts kube leaves out when zero (DeploymentStatus' omitempty fields). */
function withoutZeros(status: DeploymentStatus): DeploymentStatus {
  const out: DeploymentStatus = {};
  for (const [key, value] of Object.entries(status) as [keyof DeploymentStatus, unknown][]) {
    if (value !== 0 && value !== undefined) (out as Record<string, unknown>)[key] = value;
  }
  return out;
}

/**
 * calculateStatus: the counts over all of the Deployment's ReplicaSets, and the Available
 * condition. `terminating` is their terminating pods, undefined while the
 * DeploymentReplicaSetTerminatingReplicas gate is off or a ReplicaSet has not counted them.
 */
export function calculateStatus(
  all: (ReplicaSet | undefined)[],
  newRs: ReplicaSet | undefined,
  d: Deployment,
  now: number,
  terminating: number | undefined,
): DeploymentStatus {
  const available = availableReplicas(all);
  const status: DeploymentStatus = {
    observedGeneration: d.metadata.generation ?? 0,
    replicas: actualReplicas(all),
    updatedReplicas: actualReplicas([newRs]),
    readyReplicas: readyReplicas(all),
    availableReplicas: available,
    unavailableReplicas: Math.max(0, specReplicas(all) - available),
    ...(d.status?.collisionCount !== undefined ? { collisionCount: d.status.collisionCount } : {}),
    ...(d.status?.conditions ? { conditions: d.status.conditions.map((c) => ({ ...c })) } : {}),
  };
  const stamp = rfc3339(now);
  if (available >= desiredReplicas(d) - maxUnavailable(d)) {
    setCondition(status, newCondition('Available', 'True', REASON.minimumAvailable, 'Deployment has minimum availability.', stamp));
  } else {
    setCondition(status, newCondition('Available', 'False', REASON.minimumUnavailable, 'Deployment does not have minimum availability.', stamp));
  }
  // terminatingReplicas is a pointer in kube's DeploymentStatus: 0 is written.
  return terminating === undefined ? withoutZeros(status) : { ...withoutZeros(status), terminatingReplicas: terminating };
}

/** ReplicaSetToDeploymentCondition. */
const fromReplicaSetCondition = (c: NonNullable<ReplicaSet['status']>['conditions'] & object): DeploymentCondition[] =>
  c
    .filter((x) => x.type === 'ReplicaFailure')
    .map((x) => ({
      type: x.type,
      status: x.status,
      lastUpdateTime: x.lastTransitionTime,
      lastTransitionTime: x.lastTransitionTime,
      reason: x.reason,
      message: x.message,
    }));

/**
 * syncRolloutStatus' new status: calculateStatus, then the Progressing condition (complete,
 * progressing, or timed out, unless the rollout already completed), and the new (else any)
 * ReplicaSet's ReplicaFailure.
 */
export function rolloutStatus(
  all: (ReplicaSet | undefined)[],
  newRs: ReplicaSet | undefined,
  d: Deployment,
  now: number,
  terminating: number | undefined,
): DeploymentStatus {
  const status = calculateStatus(all, newRs, d, now, terminating);
  if (!hasProgressDeadline(d)) removeCondition(status, 'Progressing');
  const current = condition(d.status, 'Progressing');
  const complete = (status.replicas ?? 0) === (status.updatedReplicas ?? 0) && current?.reason === REASON.newReplicaSetAvailable;
  const stamp = rfc3339(now);
  if (hasProgressDeadline(d) && !complete) {
    if (deploymentComplete(d, status)) {
      const message = newRs
        ? `ReplicaSet "${newRs.metadata.name}" has successfully progressed.`
        : `Deployment "${d.metadata.name}" has successfully progressed.`;
      setCondition(status, newCondition('Progressing', 'True', REASON.newReplicaSetAvailable, message, stamp));
    } else if (deploymentProgressing(d, status)) {
      const message = newRs ? `ReplicaSet "${newRs.metadata.name}" is progressing.` : `Deployment "${d.metadata.name}" is progressing.`;
      const next = newCondition('Progressing', 'True', REASON.replicaSetUpdated, message, stamp);
      // Progress moves lastUpdateTime even when the reason stays: the condition is replaced, not merged.
      if (current) {
        if (current.status === 'True') next.lastTransitionTime = current.lastTransitionTime;
        removeCondition(status, 'Progressing');
      }
      setCondition(status, next);
    } else if (deploymentTimedOut(d, status, now)) {
      const message = newRs ? `ReplicaSet "${newRs.metadata.name}" has timed out progressing.` : `Deployment "${d.metadata.name}" has timed out progressing.`;
      setCondition(status, newCondition('Progressing', 'False', REASON.timedOut, message, stamp));
    }
  }
  const failures = fromReplicaSetCondition(newRs?.status?.conditions ?? []);
  const anyFailures = failures.length > 0 ? failures : all.flatMap((rs) => fromReplicaSetCondition(rs?.status?.conditions ?? []));
  if (anyFailures.length > 0) setCondition(status, anyFailures[0]);
  else removeCondition(status, 'ReplicaFailure');
  return status;
}

/** requeueStuckDeployment: when to look again for a rollout that may run past its deadline, or null. */
export function stuckRecheckMs(d: Deployment, status: DeploymentStatus, now: number): number | null {
  const current = condition(d.status, 'Progressing');
  if (!hasProgressDeadline(d) || !current) return null;
  if (deploymentComplete(d, status) || current.reason === REASON.timedOut) return null;
  const after = Date.parse(current.lastUpdateTime ?? '') + (d.spec?.progressDeadlineSeconds ?? 0) * 1000 - now;
  return after < 1000 ? 1000 : after + 1000;
}
