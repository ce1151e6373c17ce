import { milliValue, parseAmount } from '../../admission/resource-quota/amounts';
import type { Pod } from '../../generated/types/core/v1';
import { podCondition } from '../pods/pod-conditions';

/** One pod's usage of a resource from the metrics API (metricsclient.PodMetric): milli-units. */
export interface PodMetric {
  timestampMs: number;
  windowMs: number;
  value: number;
}

/** Pod name → its metric, as metricsclient.PodMetricsInfo. */
export type PodMetricsInfo = Map<string, PodMetric>;

/** The knobs kube-controller-manager's --horizontal-pod-autoscaler-* flags set. */
export interface ReplicaCalculatorOptions {
  tolerance: number;
  cpuInitializationPeriodMs: number;
  initialReadinessDelayMs: number;
}

/** What GetResourceReplicas answers: the replica count proposed, the utilization (percent of request) and the raw average usage. */
export interface ResourceReplicas {
  replicas: number;
  utilization: number;
  rawUtilization: number;
}

/** An error with the text kube's replica calculator gives (it becomes the ScalingActive condition's message). */
export class MetricsError extends Error {}

/**
 * groupPods: ready pods (counted), unready ones (pending, or cpu samples taken too close to a
 * readiness change), pods without a metric, and ignored ones (deleted or failed).
 */
export function groupPods(pods: Pod[], metrics: PodMetricsInfo, resource: string, opts: ReplicaCalculatorOptions, nowMs: number) {
  let readyPodCount = 0;
  const unreadyPods = new Set<string>();
  const missingPods = new Set<string>();
  const ignoredPods = new Set<string>();
  for (const pod of pods) {
    const name = pod.metadata.name ?? '';
    if (pod.metadata.deletionTimestamp || pod.status?.phase === 'Failed') {
      ignoredPods.add(name);
      continue;
    }
    if (pod.status?.phase === 'Pending') {
      unreadyPods.add(name);
      continue;
    }
    const metric = metrics.get(name);
    if (!metric) {
      missingPods.add(name);
      continue;
    }
    if (resource === 'cpu' && cpuSampleUnready(pod, metric, opts, nowMs)) {
      unreadyPods.add(name);
      continue;
    }
    readyPodCount++;
  }
  return { readyPodCount, unreadyPods, missingPods, ignoredPods };
}

/** Whether a pod's cpu sample is left out: a pod never ready, or one measured across its start-up. */
function cpuSampleUnready(pod: Pod, metric: PodMetric, opts: ReplicaCalculatorOptions, nowMs: number): boolean {
  const ready = podCondition(pod, 'Ready');
  const startTime = pod.status?.startTime;
  if (!ready || !startTime) return true;
  const startMs = Date.parse(startTime);
  const transitionMs = ready.lastTransitionTime ? Date.parse(ready.lastTransitionTime) : 0;
  if (startMs + opts.cpuInitializationPeriodMs > nowMs) {
    return ready.status === 'False' || metric.timestampMs < transitionMs + metric.windowMs;
  }
  return ready.status === 'False' && startMs + opts.initialReadinessDelayMs > transitionMs;
}

/**
 * calculatePodRequests: each pod's summed request of the resource over its containers and sidecars
 * (restartable init containers), or the one container named, in milli-units.
 */
export function podRequests(pods: Pod[], container: string, resource: string): Map<string, number> {
  const requests = new Map<string, number>();
  for (const pod of pods) {
    let sum = 0;
    const sidecars = (pod.spec?.initContainers ?? []).filter((c) => c.restartPolicy === 'Always');
    for (const c of [...(pod.spec?.containers ?? []), ...sidecars]) {
      if (container && container !== c.name) continue;
      const request = parseAmount(c.resources?.requests?.[resource]);
      if (!request) throw new MetricsError(`missing request for ${resource} in container ${c.name ?? ''} of Pod ${pod.metadata.name ?? ''}`);
      sum += Number(milliValue(request));
    }
    requests.set(pod.metadata.name ?? '', sum);
  }
  return requests;
}

/** metricsclient.GetResourceUtilizationRatio: usage over request of the pods that have both, against the target percentage. */
export function utilizationRatio(metrics: PodMetricsInfo, requests: Map<string, number>, targetUtilization: number) {
  let metricsTotal = 0;
  let requestsTotal = 0;
  let entries = 0;
  for (const [name, metric] of metrics) {
    const request = requests.get(name);
    if (request === undefined) continue;
    metricsTotal += metric.value;
    requestsTotal += request;
    entries++;
  }
  // Go divides int64s: the utilization and the raw average are truncated.
  if (requestsTotal === 0) throw new MetricsError('no metrics returned matched known pods');
  const utilization = Math.trunc((metricsTotal * 100) / requestsTotal);
  return { ratio: utilization / targetUtilization, utilization, rawUtilization: Math.trunc(metricsTotal / entries) };
}

/**
 * ReplicaCalculator.GetResourceReplicas: the replicas a utilization target asks for. Missing pods
 * count as using their whole request when scaling down and nothing when scaling up, and unready
 * pods as nothing when scaling up, so neither makes the autoscaler overshoot; a proposal that this
 * dampening turns around, or brings within the tolerance, keeps the current count.
 */
export function resourceReplicas(
  currentReplicas: number,
  targetUtilization: number,
  resource: string,
  container: string,
  pods: Pod[],
  fetched: PodMetricsInfo,
  opts: ReplicaCalculatorOptions,
  nowMs: number,
): ResourceReplicas {
  if (pods.length === 0) throw new MetricsError('no pods returned by selector while calculating replica count');
  const metrics = new Map(fetched);
  const { readyPodCount, unreadyPods, missingPods, ignoredPods } = groupPods(pods, metrics, resource, opts, nowMs);
  for (const name of [...ignoredPods, ...unreadyPods]) metrics.delete(name);
  if (metrics.size === 0) throw new MetricsError('did not receive metrics for targeted pods (pods might be unready)');
  const requests = podRequests(pods, container, resource);
  const { ratio, utilization, rawUtilization } = utilizationRatio(metrics, requests, targetUtilization);
  const keep = { replicas: currentReplicas, utilization, rawUtilization };
  const scaleUpWithUnready = unreadyPods.size > 0 && ratio > 1.0;
  if (!scaleUpWithUnready && missingPods.size === 0) {
    if (Math.abs(1.0 - ratio) <= opts.tolerance) return keep;
    return { replicas: Math.ceil(ratio * readyPodCount), utilization, rawUtilization };
  }
  for (const name of missingPods) {
    if (ratio < 1.0) metrics.set(name, { timestampMs: 0, windowMs: 0, value: requests.get(name) ?? 0 });
    else if (ratio > 1.0) metrics.set(name, { timestampMs: 0, windowMs: 0, value: 0 });
  }
  if (scaleUpWithUnready) for (const name of unreadyPods) metrics.set(name, { timestampMs: 0, windowMs: 0, value: 0 });
  const rebalanced = utilizationRatio(metrics, requests, targetUtilization).ratio;
  if (Math.abs(1.0 - rebalanced) <= opts.tolerance || (ratio < 1.0 && rebalanced > 1.0) || (ratio > 1.0 && rebalanced < 1.0)) return keep;
  const replicas = Math.ceil(rebalanced * metrics.size);
  if ((rebalanced < 1.0 && replicas > currentReplicas) || (rebalanced > 1.0 && replicas < currentReplicas)) return keep;
  return { replicas, utilization, rawUtilization };
}

/** ReplicaCalculator.GetRawResourceReplicas (an averageValue target): usage per pod against the target, in milli-units. */
export function rawResourceReplicas(
  currentReplicas: number,
  targetAverageValue: number,
  resource: string,
  pods: Pod[],
  fetched: PodMetricsInfo,
  opts: ReplicaCalculatorOptions,
  nowMs: number,
): { replicas: number; rawUtilization: number } {
  if (pods.length === 0) throw new MetricsError('no pods returned by selector while calculating replica count');
  const metrics = new Map(fetched);
  const { readyPodCount, unreadyPods, missingPods, ignoredPods } = groupPods(pods, metrics, resource, opts, nowMs);
  for (const name of [...ignoredPods, ...unreadyPods]) metrics.delete(name);
  if (metrics.size === 0) throw new MetricsError('did not receive metrics for targeted pods (pods might be unready)');
  // GetMetricUsageRatio: the average over the pods measured, against the target.
  const usage = [...metrics.values()].reduce((sum, m) => sum + m.value, 0);
  const rawUtilization = Math.trunc(usage / metrics.size);
  const ratio = rawUtilization / targetAverageValue;
  const keep = { replicas: currentReplicas, rawUtilization };
  const scaleUpWithUnready = unreadyPods.size > 0 && ratio > 1.0;
  if (!scaleUpWithUnready && missingPods.size === 0) {
    if (Math.abs(1.0 - ratio) <= opts.tolerance) return keep;
    return { replicas: Math.ceil(ratio * readyPodCount), rawUtilization };
  }
  for (const name of missingPods) {
    if (ratio < 1.0) metrics.set(name, { timestampMs: 0, windowMs: 0, value: targetAverageValue });
    else metrics.set(name, { timestampMs: 0, windowMs: 0, value: 0 });
  }
  if (scaleUpWithUnready) for (const name of unreadyPods) metrics.set(name, { timestampMs: 0, windowMs: 0, value: 0 });
  const rebalancedUsage = [...metrics.values()].reduce((sum, m) => sum + m.value, 0);
  const rebalanced = Math.trunc(rebalancedUsage / metrics.size) / targetAverageValue;
  if (Math.abs(1.0 - rebalanced) <= opts.tolerance || (ratio < 1.0 && rebalanced > 1.0) || (ratio > 1.0 && rebalanced < 1.0)) return keep;
  const replicas = Math.ceil(rebalanced * metrics.size);
  if ((rebalanced < 1.0 && replicas > currentReplicas) || (rebalanced > 1.0 && replicas < currentReplicas)) return keep;
  return { replicas, rawUtilization };
}
