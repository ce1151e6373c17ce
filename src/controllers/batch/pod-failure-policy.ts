import type { PodFailurePolicy, PodFailurePolicyOnExitCodesRequirement } from '../../generated/types/batch/v1';
import type { ContainerStatus, Pod } from '../../generated/types/core/v1';

export type PodFailurePolicyAction = 'FailJob' | 'FailIndex' | 'Ignore' | 'Count';

/** What the first matching rule says of a failed pod: its action, and for FailJob the condition's message. */
export interface PolicyMatch {
  action: PodFailurePolicyAction;
  message: string;
}

/** getMatchingContainerFromList: a container terminated with a non-zero code the requirement picks. */
function matchingContainer(statuses: ContainerStatus[] | undefined, req: PodFailurePolicyOnExitCodesRequirement): ContainerStatus | undefined {
  return (statuses ?? []).find((status) => {
    if (req.containerName && req.containerName !== status.name) return false;
    const code = status.state?.terminated?.exitCode;
    if (code === undefined || code === 0) return false;
    const listed = (req.values ?? []).includes(code);
    return req.operator === 'In' ? listed : !listed;
  });
}

/** matchPodFailurePolicy: the rules in order; the first one a failed pod matches decides, none means Count. */
export function matchPodFailurePolicy(policy: PodFailurePolicy | undefined, pod: Pod): PolicyMatch | null {
  const podName = `${pod.metadata.namespace}/${pod.metadata.name}`;
  for (const [index, rule] of (policy?.rules ?? []).entries()) {
    const action = rule.action as PodFailurePolicyAction;
    if (rule.onExitCodes) {
      const container =
        matchingContainer(pod.status?.initContainerStatuses, rule.onExitCodes) ?? matchingContainer(pod.status?.containerStatuses, rule.onExitCodes);
      if (container) {
        const code = container.state?.terminated?.exitCode;
        return { action, message: `Container ${container.name} for pod ${podName} failed with exit code ${code} matching ${action} rule at index ${index}` };
      }
    } else if (rule.onPodConditions) {
      for (const pattern of rule.onPodConditions) {
        const condition = (pod.status?.conditions ?? []).find((c) => c.type === pattern.type && c.status === (pattern.status ?? 'True'));
        if (condition) return { action, message: `Pod ${podName} has condition ${condition.type} matching ${action} rule at index ${index}` };
      }
    }
  }
  return null;
}
