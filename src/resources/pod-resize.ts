import { jsonEqual } from '../api/deep-equal';
import { field, type FieldErrorList } from '../api/field-errors';
import { compareQuantities, parseQuantity } from '../api/quantity';
import { isPlainObject, type KubeObject } from '../api/types';
import type { SubresourceStrategy } from '../registry/types';
import { MIRROR_POD_ANNOTATION } from './pod-ephemeral-containers';
import { podQosClass, validatePodSpec } from './pod-spec';
import { jsonClone } from '../api/json-clone';

/** pods/resize (podResizeStrategy): the containers' resources and resize policies, within kube's limits. */

type Obj = Record<string, unknown>;

const CONTAINER_LISTS = ['containers', 'initContainers'] as const;
const RESIZABLE = ['cpu', 'memory'];

const specOf = (pod: KubeObject): Obj => (isPlainObject(pod.spec) ? pod.spec : {});
const list = (v: unknown): Obj[] => (Array.isArray(v) ? v.filter(isPlainObject) : []);
const resourcesOf = (c: Obj | undefined): Obj => (c && isPlainObject(c.resources) ? c.resources : {});
const resourceList = (r: Obj, key: 'requests' | 'limits'): Obj => (isPlainObject(r[key]) ? r[key] : {});
const isSidecar = (c: Obj): boolean => c.restartPolicy === 'Always';

/** The lists line up: same length, same names in the same order (otherwise the request goes to validation as it came). */
function sameContainers(a: Obj[], b: Obj[]): boolean {
  return a.length === b.length && a.every((c, i) => c.name === b[i].name);
}

/** dropNonResizeUpdates: the stored pod with each container's resources and resizePolicy from the request. */
function takeResize(result: KubeObject, requested: KubeObject): void {
  const stored = specOf(result);
  const wanted = specOf(requested);
  if (!CONTAINER_LISTS.every((key) => sameContainers(list(wanted[key]), list(stored[key])))) {
    result.spec = jsonClone(wanted);
    return;
  }
  for (const key of CONTAINER_LISTS) {
    list(stored[key]).forEach((c, i) => {
      const from = list(wanted[key])[i];
      for (const part of ['resources', 'resizePolicy']) {
        if (from[part] === undefined) delete c[part];
        else c[part] = jsonClone(from[part]);
      }
    });
  }
}

/** Semantic equality of resource lists: an empty list is no list, and quantities compare by value. */
function sameQuantities(a: Obj, b: Obj): boolean {
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  return keys.every((k) => {
    if (!(k in b)) return false;
    const qa = parseQuantity(a[k]);
    const qb = parseQuantity(b[k]);
    return qa && qb ? compareQuantities(qa, qb) === 0 : jsonEqual(a[k], b[k]);
  });
}

/** apiequality.Semantic.DeepEqual of two containers. */
function sameContainer(a: Obj, b: Obj): boolean {
  const { resources: ra, ...restA } = a;
  const { resources: rb, ...restB } = b;
  const r1 = isPlainObject(ra) ? ra : {};
  const r2 = isPlainObject(rb) ? rb : {};
  const { requests: _q1, limits: _l1, ...otherA } = r1;
  const { requests: _q2, limits: _l2, ...otherB } = r2;
  return (
    jsonEqual(restA, restB) &&
    jsonEqual(otherA, otherB) &&
    sameQuantities(resourceList(r1, 'requests'), resourceList(r2, 'requests')) &&
    sameQuantities(resourceList(r1, 'limits'), resourceList(r2, 'limits'))
  );
}

/** dropCPUMemoryResourcesFromContainer: the container with cpu and memory as they were (lists the old one lacked dropped). */
function withOldCpuMemory(c: Obj, old: Obj): Obj {
  const munged = jsonClone(c);
  const now = resourcesOf(c);
  const before = resourcesOf(old);
  const resources: Obj = {};
  for (const key of ['limits', 'requests'] as const) {
    if (!isPlainObject(before[key])) continue;
    const kept: Obj = { ...resourceList(now, key) };
    for (const r of RESIZABLE) {
      delete kept[r];
      if (resourceList(before, key)[r] !== undefined) kept[r] = resourceList(before, key)[r];
    }
    resources[key] = kept;
  }
  munged.resources = resources;
  return munged;
}

/** validateContainerResize: requests and limits stay, and memory limits shrink or appear only with a restart. */
function validateContainerResize(now: Obj, before: Obj, path: string): FieldErrorList {
  const errs: FieldErrorList = [];
  const n = resourcesOf(now);
  const o = resourcesOf(before);
  const removed = (key: 'requests' | 'limits'): boolean => Object.keys(resourceList(o, key)).some((r) => !(r in resourceList(n, key)));
  if (removed('requests')) errs.push(field.forbidden(`${path}.requests`, 'resource requests cannot be removed'));
  if (removed('limits')) errs.push(field.forbidden(`${path}.limits`, 'resource limits cannot be removed'));
  const memoryPolicy = list(now.resizePolicy).find((p) => p.resourceName === 'memory')?.restartPolicy ?? '';
  if (memoryPolicy !== 'NotRequired' && memoryPolicy !== '') return errs;
  const newLimit = parseQuantity(resourceList(n, 'limits').memory);
  const oldLimit = parseQuantity(resourceList(o, 'limits').memory);
  if (newLimit && oldLimit && compareQuantities(newLimit, oldLimit) < 0) {
    errs.push(field.forbidden(`${path}.limits[memory]`, 'memory limits cannot be decreased unless resizePolicy is RestartContainer'));
  } else if (newLimit && !oldLimit) {
    errs.push(field.forbidden(`${path}.limits[memory]`, 'memory limits cannot be added unless resizePolicy is RestartContainer'));
  }
  return errs;
}

/** isPodResizeRequestSupported: a running container's status carries resources on nodes that can resize. */
function resizeSupported(pod: KubeObject): boolean {
  const status = isPlainObject(pod.status) ? pod.status : {};
  const running = list(status.containerStatuses).find((cs) => isPlainObject(cs.state) && cs.state.running !== undefined);
  return running ? running.resources !== undefined : true;
}

const hasPodLevelResources = (pod: KubeObject): boolean => {
  const r = specOf(pod).resources;
  return isPlainObject(r) && (Object.keys(resourceList(r, 'requests')).length > 0 || Object.keys(resourceList(r, 'limits')).length > 0);
};

/** ValidatePodResize beyond metadata, with kube's messages. */
export function validatePodResize(next: KubeObject, prev: KubeObject): FieldErrorList {
  const errs = validatePodSpec(next.spec, 'spec');
  if (hasPodLevelResources(prev) || hasPodLevelResources(next)) return [field.forbidden('', 'pods with pod-level resources cannot be resized')];
  if (prev.metadata.annotations?.[MIRROR_POD_ANNOTATION] !== undefined) return [field.forbidden('', 'static pods cannot be resized')];
  const os = specOf(prev).os;
  if (isPlainObject(os) && os.name === 'windows') return [field.forbidden('', 'windows pods cannot be resized')];
  const status = isPlainObject(prev.status) ? prev.status : {};
  const oldQos = typeof status.qosClass === 'string' && status.qosClass ? status.qosClass : podQosClass(prev.spec);
  if (oldQos !== podQosClass(next.spec)) {
    const shown = isPlainObject(next.status) ? next.status.qosClass : undefined;
    errs.push(field.invalid('spec', shown ?? '', 'Pod QOS Class may not change as a result of resizing'));
  }
  if (!resizeSupported(prev)) errs.push(field.forbidden('spec', 'Pod running on node without support for resize'));
  const munged = jsonClone(specOf(next));
  const [oldInit, newInit] = [list(specOf(prev).initContainers), list(specOf(next).initContainers)];
  const [oldMain, newMain] = [list(specOf(prev).containers), list(specOf(next).containers)];
  oldInit.forEach((c, i) => {
    if (isSidecar(c) && newInit[i]) errs.push(...validateContainerResize(newInit[i], c, `spec.initContainers[${i}].resources`));
  });
  oldMain.forEach((c, i) => {
    if (newMain[i]) errs.push(...validateContainerResize(newMain[i], c, `spec.containers[${i}].resources`));
  });
  const mungedMain = newMain.map((c, i) => (oldMain[i] ? withOldCpuMemory(c, oldMain[i]) : c));
  mungedMain.forEach((c, i) => {
    if (!oldMain[i] || !sameContainer(c, oldMain[i])) errs.push(field.forbidden('spec', 'only cpu and memory resources are mutable'));
  });
  munged.containers = mungedMain;
  if (Array.isArray(munged.initContainers)) {
    munged.initContainers = newInit.map((c, i) => {
      const old = oldInit[i];
      if (old && isSidecar(c)) {
        const m = withOldCpuMemory(c, old);
        if (!sameContainer(m, old)) errs.push(field.forbidden('spec', 'only cpu and memory resources for sidecar containers are mutable'));
        return m;
      }
      if (!old || !sameContainer(c, old)) errs.push(field.forbidden('spec', 'resources for non-sidecar init containers are immutable'));
      return c;
    });
  }
  if (errs.length > 0) return errs;
  const sameSpec = (a: Obj, b: Obj): boolean => {
    const { containers: ca, initContainers: ia, ...restA } = a;
    const { containers: cb, initContainers: ib, ...restB } = b;
    const lists = (x: unknown, y: unknown): boolean => list(x).length === list(y).length && list(x).every((c, i) => sameContainer(c, list(y)[i]));
    return jsonEqual(restA, restB) && lists(ca, cb) && lists(ia, ib);
  };
  return sameSpec(munged, specOf(prev)) ? [] : [field.forbidden('spec', 'only cpu and memory resources are mutable')];
}

export const resizeStrategy: SubresourceStrategy = { take: takeResize, validate: validatePodResize };
