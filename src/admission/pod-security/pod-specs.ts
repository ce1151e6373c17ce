import { isPlainObject, type KubeObject } from '../../api/types';
import type { Obj } from './check-helpers';

/** A pod's or pod template's metadata and spec, as PodSpecExtractor gives them. */
export interface PodParts {
  meta: Obj;
  spec: Obj;
}

const template = (t: unknown): PodParts | null =>
  isPlainObject(t) ? { meta: isPlainObject(t.metadata) ? t.metadata : {}, spec: isPlainObject(t.spec) ? t.spec : {} } : null;
const specOf = (o: KubeObject): Obj => (isPlainObject(o.spec) ? o.spec : {});
const objectSpec = (o: unknown): Obj => (isPlainObject(o) && isPlainObject(o.spec) ? o.spec : {});

/** The kinds with a pod template (defaultPodSpecResources), by group/resource, and where their template is. */
const TEMPLATES: Record<string, (o: KubeObject) => PodParts | null> = {
  '/podtemplates': (o) => template(o.template),
  '/replicationcontrollers': (o) => template(specOf(o).template),
  'apps/replicasets': (o) => template(specOf(o).template),
  'apps/deployments': (o) => template(specOf(o).template),
  'apps/statefulsets': (o) => template(specOf(o).template),
  'apps/daemonsets': (o) => template(specOf(o).template),
  'batch/jobs': (o) => template(specOf(o).template),
  'batch/cronjobs': (o) => template(objectSpec(specOf(o).jobTemplate).template),
};

/** The extractor of a workload kind's pod template, or undefined for kinds without one. */
export function templateExtractor(group: string, resource: string): ((o: KubeObject) => PodParts | null) | undefined {
  return TEMPLATES[`${group}/${resource}`];
}

export function podParts(pod: KubeObject): PodParts {
  return { meta: pod.metadata as unknown as Obj, spec: specOf(pod) };
}
