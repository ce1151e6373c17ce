import { field, type FieldErrorList } from '../api/field-errors';
import { objectOf as obj, stringOf as str } from '../api/json-read';
import { isDns1123Label, nameIsPathSegment } from '../api/name-validation';
import { isPositiveQuantity } from '../api/quantity';
import { isPlainObject, type KubeObject } from '../api/types';

/** autoscaling/v2 HorizontalPodAutoscaler spec: kube's defaults (pkg/apis/autoscaling/v2) and validation (pkg/apis/autoscaling/validation). */

type Obj = Record<string, unknown>;

const DEFAULT_CPU_UTILIZATION = 80;
const MAX_PERIOD_SECONDS = 1800;
const MAX_STABILIZATION_WINDOW_SECONDS = 3600;
const METRIC_SOURCE_TYPES = ['ContainerResource', 'External', 'Object', 'Pods', 'Resource'];
const SELECT_POLICIES = ['Disabled', 'Max', 'Min'];
const POLICY_TYPES = ['Percent', 'Pods'];
const TARGET_TYPES = ['Utilization', 'Value', 'AverageValue'];
/** The field of a MetricSpec each source type fills. */
const SOURCE_FIELDS: Record<string, string> = {
  Object: 'object',
  Pods: 'pods',
  Resource: 'resource',
  ContainerResource: 'containerResource',
  External: 'external',
};

const num = (value: unknown): number => (typeof value === 'number' ? value : 0);

export const hpaSpec = (hpa: KubeObject): Obj => (isPlainObject(hpa.spec) ? hpa.spec : ((hpa.spec = {}) as Obj));

const scaleUpRules = (): Obj => ({
  stabilizationWindowSeconds: 0,
  selectPolicy: 'Max',
  policies: [
    { type: 'Pods', value: 4, periodSeconds: 15 },
    { type: 'Percent', value: 100, periodSeconds: 15 },
  ],
});

// No stabilization window: the controller's --horizontal-pod-autoscaler-downscale-stabilization applies.
const scaleDownRules = (): Obj => ({ selectPolicy: 'Max', policies: [{ type: 'Percent', value: 100, periodSeconds: 15 }] });

/** copyHPAScalingRules: what the client set wins over the direction's defaults. */
function withDefaults(rules: unknown, defaults: Obj): Obj {
  if (!isPlainObject(rules)) return defaults;
  for (const key of ['selectPolicy', 'stabilizationWindowSeconds', 'policies', 'tolerance']) {
    if (rules[key] === undefined || rules[key] === null) continue;
    defaults[key] = rules[key];
  }
  return defaults;
}

/** SetDefaults_HorizontalPodAutoscaler: one replica at least, 80% CPU when no metric is given, full rules for a behavior given. */
export function defaultHpa(hpa: KubeObject): void {
  const spec = hpaSpec(hpa);
  if (typeof spec.minReplicas !== 'number') spec.minReplicas = 1;
  if (!Array.isArray(spec.metrics) || spec.metrics.length === 0) {
    spec.metrics = [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: DEFAULT_CPU_UTILIZATION } } }];
  }
  if (isPlainObject(spec.behavior)) {
    spec.behavior.scaleUp = withDefaults(spec.behavior.scaleUp, scaleUpRules());
    spec.behavior.scaleDown = withDefaults(spec.behavior.scaleDown, scaleDownRules());
  }
}

export function validateCrossVersionObjectReference(ref: Obj, path: string): FieldErrorList {
  const errs: FieldErrorList = [];
  for (const key of ['kind', 'name']) {
    const value = str(ref[key]);
    if (!value) errs.push(field.required(`${path}.${key}`));
    else for (const msg of nameIsPathSegment(value, false)) errs.push(field.invalid(`${path}.${key}`, value, msg));
  }
  return errs;
}

function validateMetricIdentifier(id: Obj, path: string): FieldErrorList {
  const name = str(id.name);
  if (!name) return [field.required(`${path}.name`, 'must specify a metric name')];
  return nameIsPathSegment(name, false).map((msg) => field.invalid(`${path}.name`, name, msg));
}

function validateMetricTarget(target: Obj, path: string): FieldErrorList {
  const errs: FieldErrorList = [];
  const type = str(target.type);
  if (!type) errs.push(field.required(`${path}.type`, 'must specify a metric target type'));
  if (!TARGET_TYPES.includes(type)) errs.push(field.invalid(`${path}.type`, type, 'must be either Utilization, Value, or AverageValue'));
  for (const key of ['value', 'averageValue']) {
    if (target[key] !== undefined && !isPositiveQuantity(target[key])) errs.push(field.invalid(`${path}.${key}`, target[key], 'must be positive'));
  }
  if (typeof target.averageUtilization === 'number' && target.averageUtilization < 1) {
    errs.push(field.invalid(`${path}.averageUtilization`, target.averageUtilization, 'must be greater than 0'));
  }
  return errs;
}

/** Resource and ContainerResource sources: a utilization or an average value, not both. */
function validateResourceTarget(target: Obj, path: string): FieldErrorList {
  const errs = validateMetricTarget(target, path);
  const hasUtilization = target.averageUtilization !== undefined;
  const hasAverage = target.averageValue !== undefined;
  if (!hasUtilization && !hasAverage) errs.push(field.required(`${path}.averageUtilization`, 'must set either a target raw value or a target utilization'));
  if (hasUtilization && hasAverage) errs.push(field.forbidden(`${path}.averageValue`, 'may not set both a target raw value and a target utilization'));
  return errs;
}

function validateSource(key: string, src: Obj, path: string): FieldErrorList {
  const target = obj(src.target);
  const targetPath = `${path}.target`;
  switch (key) {
    case 'object': {
      const errs = [
        ...validateCrossVersionObjectReference(obj(src.describedObject), `${path}.describedObject`),
        ...validateMetricIdentifier(obj(src.metric), `${path}.metric`),
        ...validateMetricTarget(target, targetPath),
      ];
      if (target.value === undefined && target.averageValue === undefined)
        errs.push(field.required(`${targetPath}.averageValue`, 'must set either a target value or averageValue'));
      return errs;
    }
    case 'external': {
      const errs = [...validateMetricIdentifier(obj(src.metric), `${path}.metric`), ...validateMetricTarget(target, targetPath)];
      if (target.value === undefined && target.averageValue === undefined) {
        errs.push(field.required(`${targetPath}.averageValue`, 'must set either a target value for metric or a per-pod target'));
      }
      if (target.value !== undefined && target.averageValue !== undefined) {
        errs.push(field.forbidden(`${targetPath}.value`, 'may not set both a target value for metric and a per-pod target'));
      }
      return errs;
    }
    case 'pods': {
      const errs = [...validateMetricIdentifier(obj(src.metric), `${path}.metric`), ...validateMetricTarget(target, targetPath)];
      if (target.averageValue === undefined) errs.push(field.required(`${targetPath}.averageValue`, 'must specify a positive target averageValue'));
      return errs;
    }
    case 'resource':
      return [...(str(src.name) ? [] : [field.required(`${path}.name`, 'must specify a resource name')]), ...validateResourceTarget(target, targetPath)];
    default: {
      const errs: FieldErrorList = [];
      const name = str(src.name);
      if (!name) errs.push(field.required(`${path}.name`, 'must specify a resource name'));
      const container = str(src.container);
      if (!container) errs.push(field.required(`${path}.container`, 'must specify a container'));
      else for (const msg of isDns1123Label(container)) errs.push(field.invalid(`${path}.container`, container, msg));
      return [...errs, ...validateResourceTarget(target, targetPath)];
    }
  }
}

/** validateMetricSpec: a known type and exactly the source it names; only the first source present is checked further. */
function validateMetricSpec(metric: Obj, path: string): FieldErrorList {
  const errs: FieldErrorList = [];
  const type = str(metric.type);
  if (!type) errs.push(field.required(`${path}.type`, 'must specify a metric source type'));
  if (!METRIC_SOURCE_TYPES.includes(type)) errs.push(field.notSupported(`${path}.type`, type, METRIC_SOURCE_TYPES));
  const present = ['object', 'external', 'pods', 'resource', 'containerResource'].filter((key) => isPlainObject(metric[key]));
  if (present.length > 0) errs.push(...validateSource(present[0], metric[present[0]] as Obj, `${path}.${present[0]}`));
  const expected = SOURCE_FIELDS[type];
  if (expected && !present.includes(expected)) errs.push(field.required(`${path}.${expected}`, 'must populate information for the given metric source'));
  if (present.length > 1) {
    for (const key of present) if (key !== expected) errs.push(field.forbidden(`${path}.${key}`, 'must populate the given metric source only'));
  }
  return errs;
}

function validateScalingRules(rules: unknown, path: string): FieldErrorList {
  if (!isPlainObject(rules)) return [];
  const errs: FieldErrorList = [];
  const window = rules.stabilizationWindowSeconds;
  if (typeof window === 'number' && window < 0) errs.push(field.invalid(`${path}.stabilizationWindowSeconds`, window, 'must be greater than or equal to zero'));
  if (typeof window === 'number' && window > MAX_STABILIZATION_WINDOW_SECONDS) {
    errs.push(field.invalid(`${path}.stabilizationWindowSeconds`, window, `must be less than or equal to ${MAX_STABILIZATION_WINDOW_SECONDS}`));
  }
  if (rules.selectPolicy !== undefined && !SELECT_POLICIES.includes(str(rules.selectPolicy))) {
    errs.push(field.notSupported(`${path}.selectPolicy`, rules.selectPolicy, SELECT_POLICIES));
  }
  const policies = Array.isArray(rules.policies) ? rules.policies : [];
  if (policies.length === 0) errs.push(field.required(`${path}.policies`, 'must specify at least one Policy'));
  policies.forEach((policy: unknown, i) => {
    const p = obj(policy);
    const at = `${path}.policies[${i}]`;
    if (!POLICY_TYPES.includes(str(p.type))) errs.push(field.notSupported(`${at}.type`, str(p.type), POLICY_TYPES));
    if (num(p.value) <= 0) errs.push(field.invalid(`${at}.value`, num(p.value), 'must be greater than zero'));
    if (num(p.periodSeconds) <= 0) errs.push(field.invalid(`${at}.periodSeconds`, num(p.periodSeconds), 'must be greater than zero'));
    if (num(p.periodSeconds) > MAX_PERIOD_SECONDS) {
      errs.push(field.invalid(`${at}.periodSeconds`, num(p.periodSeconds), `must be less than or equal to ${MAX_PERIOD_SECONDS}`));
    }
  });
  return errs;
}

/** validateHorizontalPodAutoscalerSpec with the HPAScaleToZero gate off: minReplicas at least 1. */
export function validateHpaSpec(hpa: KubeObject): FieldErrorList {
  const spec = hpaSpec(hpa);
  const errs: FieldErrorList = [];
  const min = spec.minReplicas;
  const max = num(spec.maxReplicas);
  if (typeof min === 'number' && min < 1) errs.push(field.invalid('spec.minReplicas', min, 'must be greater than or equal to 1'));
  if (max < 1) errs.push(field.invalid('spec.maxReplicas', max, 'must be greater than 0'));
  if (typeof min === 'number' && max < min) errs.push(field.invalid('spec.maxReplicas', max, 'must be greater than or equal to `minReplicas`'));
  errs.push(...validateCrossVersionObjectReference(obj(spec.scaleTargetRef), 'spec.scaleTargetRef'));
  (Array.isArray(spec.metrics) ? spec.metrics : []).forEach((metric: unknown, i) => errs.push(...validateMetricSpec(obj(metric), `spec.metrics[${i}]`)));
  if (isPlainObject(spec.behavior)) {
    errs.push(
      ...validateScalingRules(spec.behavior.scaleUp, 'spec.behavior.scaleUp'),
      ...validateScalingRules(spec.behavior.scaleDown, 'spec.behavior.scaleDown'),
    );
  }
  return errs;
}
