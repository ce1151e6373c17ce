import { isPlainObject, type KubeObject, type ObjectMeta } from '../api/types';
import { defaultHpa } from './hpa-spec';

/**
 * autoscaling/v1 HorizontalPodAutoscalers as views of the stored autoscaling/v2 objects, converted
 * as kube-apiserver converts them: v1 knows one target (average CPU utilization); every other
 * metric, the current metrics, the conditions and the behavior travel in annotations so that a
 * v1 round trip loses nothing. kube writes those annotations in autoscaling/v1's metric shapes;
 * kapi writes autoscaling/v2's, which it reads back the same way.
 */

type Obj = Record<string, unknown>;

const METRICS = 'autoscaling.alpha.kubernetes.io/metrics';
const CURRENT_METRICS = 'autoscaling.alpha.kubernetes.io/current-metrics';
const CONDITIONS = 'autoscaling.alpha.kubernetes.io/conditions';
const BEHAVIOR = 'autoscaling.alpha.kubernetes.io/behavior';
const ROUND_TRIP = [METRICS, CURRENT_METRICS, CONDITIONS, BEHAVIOR];

const objectAt = (obj: Obj, key: string): Obj => (isPlainObject(obj[key]) ? (obj[key] as Obj) : {});
const listAt = (obj: Obj, key: string): Obj[] => (Array.isArray(obj[key]) ? (obj[key] as unknown[]).filter(isPlainObject) : []);

function isCpuUtilization(metric: Obj, side: 'target' | 'current'): boolean {
  const resource = objectAt(metric, 'resource');
  return metric.type === 'Resource' && resource.name === 'cpu' && typeof objectAt(resource, side).averageUtilization === 'number';
}

function cpuMetric(averageUtilization: unknown, side: 'target' | 'current'): Obj {
  const value = side === 'target' ? { type: 'Utilization', averageUtilization } : { averageUtilization };
  return { type: 'Resource', resource: { name: 'cpu', [side]: value } };
}

function readAnnotation(annotations: Record<string, string>, key: string): unknown {
  const text = annotations[key];
  delete annotations[key];
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** An autoscaling/v1 object (as a client sent it) as the autoscaling/v2 object kapi stores. */
export function hpaV2FromV1(hpa: KubeObject): KubeObject {
  const annotations = { ...hpa.metadata.annotations };
  const spec = { ...objectAt(hpa as Obj, 'spec') };
  const status = { ...objectAt(hpa as Obj, 'status') };
  const otherMetrics = readAnnotation(annotations, METRICS);
  const metrics = Array.isArray(otherMetrics) ? [...otherMetrics] : [];
  if (spec.targetCPUUtilizationPercentage !== undefined) metrics.push(cpuMetric(spec.targetCPUUtilizationPercentage, 'target'));
  delete spec.targetCPUUtilizationPercentage;
  if (metrics.length > 0) spec.metrics = metrics;
  const behavior = readAnnotation(annotations, BEHAVIOR);
  if (behavior !== undefined) spec.behavior = behavior;
  const currentMetrics = readAnnotation(annotations, CURRENT_METRICS);
  if (Array.isArray(currentMetrics)) status.currentMetrics = currentMetrics;
  else if (status.currentCPUUtilizationPercentage !== undefined) status.currentMetrics = [cpuMetric(status.currentCPUUtilizationPercentage, 'current')];
  delete status.currentCPUUtilizationPercentage;
  const conditions = readAnnotation(annotations, CONDITIONS);
  if (conditions !== undefined) status.conditions = conditions;
  const metadata: ObjectMeta = { ...hpa.metadata, annotations };
  if (Object.keys(annotations).length === 0) delete metadata.annotations;
  const converted: KubeObject = { ...hpa, metadata, spec };
  if (hpa.status !== undefined) converted.status = status;
  // Objects are decoded from storage with their version's defaults: v2's apply to what v1 wrote.
  defaultHpa(converted);
  return converted;
}

/** A stored autoscaling/v2 object as autoscaling/v1 shows it. */
export function hpaV1FromV2(hpa: KubeObject): KubeObject {
  const annotations: Record<string, string> = { ...hpa.metadata.annotations };
  for (const key of ROUND_TRIP) delete annotations[key];
  const spec = { ...objectAt(hpa as Obj, 'spec') };
  const status = { ...objectAt(hpa as Obj, 'status') };
  const metrics = listAt(spec, 'metrics');
  const cpu = metrics.find((m) => isCpuUtilization(m, 'target'));
  const others = metrics.filter((m) => m !== cpu);
  if (cpu) spec.targetCPUUtilizationPercentage = objectAt(objectAt(cpu, 'resource'), 'target').averageUtilization;
  if (others.length > 0) annotations[METRICS] = JSON.stringify(others);
  delete spec.metrics;
  if (spec.behavior !== undefined) annotations[BEHAVIOR] = JSON.stringify(spec.behavior);
  delete spec.behavior;
  const currentMetrics = listAt(status, 'currentMetrics');
  const currentCpu = currentMetrics.find((m) => isCpuUtilization(m, 'current'));
  if (currentCpu) status.currentCPUUtilizationPercentage = objectAt(objectAt(currentCpu, 'resource'), 'current').averageUtilization;
  if (currentMetrics.length > 0) annotations[CURRENT_METRICS] = JSON.stringify(currentMetrics);
  delete status.currentMetrics;
  if (listAt(status, 'conditions').length > 0) annotations[CONDITIONS] = JSON.stringify(status.conditions);
  delete status.conditions;
  status.currentReplicas ??= 0;
  const metadata: ObjectMeta = { ...hpa.metadata, annotations };
  if (Object.keys(annotations).length === 0) delete metadata.annotations;
  const converted: KubeObject = { ...hpa, metadata, spec };
  if (hpa.status !== undefined) converted.status = status;
  return converted;
}
