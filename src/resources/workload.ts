import { field, type FieldErrorList } from '../api/field-errors';
import { fromLabelSelectorStruct, matchesLabels } from '../api/label-selector';
import { validateLabelSelector, validateLabels } from '../api/meta-validation';
import { isPlainObject, type KubeObject } from '../api/types';
import type { PrinterColumn } from '../registry/resource-definition';
import type { ScaleFacts } from '../registry/scale';
import { defaultPodSpec, validatePodSpec } from './pod-spec';
import { compareGoStrings } from '../api/go-string-order';

/** What apps/v1 workloads (deployments, replicasets, statefulsets, daemonsets) share. */

type Obj = Record<string, unknown>;

export function specObject(obj: KubeObject): Obj {
  if (!isPlainObject(obj.spec)) obj.spec = {};
  return obj.spec as Obj;
}

/** Deployments, replica sets and stateful sets scale spec.replicas and select with spec.selector. */
export const WORKLOAD_SCALE: ScaleFacts = {
  specReplicasPath: ['spec', 'replicas'],
  statusReplicasPath: ['status', 'replicas'],
  labelSelectorPath: ['spec', 'selector'],
};

export function defaultTemplate(spec: Obj): void {
  const template = spec.template;
  if (isPlainObject(template)) defaultPodSpec(template.spec);
}

/**
 * metav1.FormatLabelSelector: the selector's requirements, matchLabels and matchExpressions
 * together, sorted by key (internalSelector.Add), each In and NotIn listing its values sorted
 * (Requirement.String's safeSort), all in Go's byte order.
 */
export function formatLabelSelector(selector: unknown): string {
  if (!isPlainObject(selector)) return '<none>';
  const requirements: [key: string, text: string][] = [];
  for (const [k, v] of Object.entries((selector.matchLabels as Obj | undefined) ?? {})) requirements.push([k, `${k}=${String(v)}`]);
  for (const e of (selector.matchExpressions as Obj[] | undefined) ?? []) {
    const key = String(e.key);
    const values = () => [...((e.values as string[] | undefined) ?? [])].sort(compareGoStrings).join(',');
    switch (e.operator) {
      case 'In':
        requirements.push([key, `${key} in (${values()})`]);
        break;
      case 'NotIn':
        requirements.push([key, `${key} notin (${values()})`]);
        break;
      case 'Exists':
        requirements.push([key, key]);
        break;
      case 'DoesNotExist':
        requirements.push([key, `!${key}`]);
        break;
    }
  }
  requirements.sort(([a], [b]) => compareGoStrings(a, b));
  return requirements.length > 0 ? requirements.map(([, text]) => text).join(',') : '<none>';
}

/** Selector present, valid, non-empty, and matching the template's labels. */
export function validateSelectorAndTemplate(spec: Obj, path: string, restartPolicies: string[], kindWord: string): FieldErrorList {
  const errs: FieldErrorList = [];
  const selector = spec.selector;
  let selectorValid = false;
  if (!isPlainObject(selector)) {
    errs.push(field.required(`${path}.selector`));
  } else {
    const selectorErrs = validateLabelSelector(selector, `${path}.selector`);
    selectorValid = selectorErrs.length === 0;
    errs.push(...selectorErrs);
    if (
      Object.keys((selector.matchLabels as Obj | undefined) ?? {}).length === 0 &&
      ((selector.matchExpressions as unknown[] | undefined) ?? []).length === 0
    ) {
      errs.push(field.invalid(`${path}.selector`, selector, `empty selector is invalid for ${kindWord}`));
    }
  }
  const template = spec.template;
  if (!isPlainObject(template)) {
    errs.push(field.required(`${path}.template`));
    return errs;
  }
  const labels = (isPlainObject(template.metadata) ? (template.metadata.labels as Record<string, string> | undefined) : undefined) ?? {};
  errs.push(...validateLabels(labels, `${path}.template.metadata.labels`));
  // As in kube-apiserver, an invalid selector is reported once, not also as a mismatch.
  if (isPlainObject(selector) && selectorValid && !matchesLabels(fromLabelSelectorStruct(selector), labels)) {
    errs.push(field.invalid(`${path}.template.metadata.labels`, labels, '`selector` does not match template `labels`'));
  }
  errs.push(...validatePodSpec(template.spec, `${path}.template.spec`));
  const restart = isPlainObject(template.spec) ? template.spec.restartPolicy : undefined;
  if (restart !== undefined && !restartPolicies.includes(restart as string)) {
    errs.push(field.notSupported(`${path}.template.spec.restartPolicy`, restart, restartPolicies));
  }
  return errs;
}

export function validateReplicas(spec: Obj, path: string): FieldErrorList {
  const r = spec.replicas;
  if (r === undefined) return [];
  if (typeof r !== 'number' || !Number.isInteger(r) || r < 0) return [field.invalid(`${path}.replicas`, r, 'must be greater than or equal to 0')];
  return [];
}

/** apps/v1 selectors are immutable. */
export function validateSelectorUnchanged(next: KubeObject, prev: KubeObject): FieldErrorList {
  const a = (next.spec as Obj | undefined)?.selector;
  const b = (prev.spec as Obj | undefined)?.selector;
  return JSON.stringify(a) === JSON.stringify(b) ? [] : [field.invalid('spec.selector', a ?? null, 'field is immutable')];
}

function templateContainers(obj: KubeObject): Obj[] {
  const template = (obj.spec as Obj | undefined)?.template;
  const podSpec = isPlainObject(template) ? template.spec : undefined;
  return isPlainObject(podSpec) && Array.isArray(podSpec.containers) ? (podSpec.containers as Obj[]) : [];
}

export const CONTAINERS_COLUMN: PrinterColumn = {
  name: 'Containers',
  type: 'string',
  priority: 1,
  description: 'Names of each container in the template.',
  cell: (obj) =>
    templateContainers(obj)
      .map((c) => String(c.name ?? ''))
      .join(','),
};

export const IMAGES_COLUMN: PrinterColumn = {
  name: 'Images',
  type: 'string',
  priority: 1,
  description: 'Images referenced by each container in the template.',
  cell: (obj) =>
    templateContainers(obj)
      .map((c) => String(c.image ?? ''))
      .join(','),
};

export const SELECTOR_COLUMN: PrinterColumn = {
  name: 'Selector',
  type: 'string',
  priority: 1,
  description: 'Label selector for pods. Existing ReplicaSets whose pods are selected by this will be the ones affected by this deployment.',
  cell: (obj) => formatLabelSelector((obj.spec as Obj | undefined)?.selector),
};

export function num(obj: KubeObject, section: 'spec' | 'status', key: string): number {
  const part = obj[section];
  const v = isPlainObject(part) ? part[key] : undefined;
  return typeof v === 'number' ? v : 0;
}
