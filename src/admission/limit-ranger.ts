import { forbidden } from '../api/errors';
import { isPlainObject, type KubeObject } from '../api/types';
import type { AdmissionAttributes, AdmissionPlugin } from './admission';
import { amountText, milliValue, resourceListOf, type Amount, type ResourceList } from './resource-quota/amounts';
import { LiveLookup, type NamespaceList } from './resource-quota/live-lookup';
import { podTotals } from './resource-quota/pod-resources';
import { compareGoStrings } from '../api/go-string-order';

type Obj = Record<string, unknown>;

const ANNOTATION = 'kubernetes.io/limit-ranger';
/** resource.MaxMilliValue: past it, values are compared whole rather than in thousandths. */
const MAX_MILLI_VALUE = 9_223_372_036_854_775n;

const objects = (v: unknown): Obj[] => (Array.isArray(v) ? v.filter(isPlainObject) : []);
const limitsOf = (range: KubeObject): Obj[] => objects(isPlainObject(range.spec) ? range.spec.limits : undefined);
const sortedEntries = (v: unknown): [string, Amount][] => [...resourceListOf(v)].sort(([a], [b]) => compareGoStrings(a, b));
const podContainers = (pod: KubeObject): { containers: Obj[]; initContainers: Obj[] } => {
  const spec = isPlainObject(pod.spec) ? pod.spec : {};
  return { containers: objects(spec.containers), initContainers: objects(spec.initContainers) };
};
const resourcesOf = (c: Obj): Obj => (isPlainObject(c.resources) ? c.resources : (c.resources = {}));

/** Quantity.Value (rounded up). */
const wholeValue = (a: Amount): bigint => {
  const q = a.nanos / 10n ** 9n;
  return a.nanos > q * 10n ** 9n ? q + 1n : q;
};

/** requestLimitEnforcedValues: thousandths where every value allows, whole units otherwise. */
function comparable(...amounts: (Amount | undefined)[]): bigint[] {
  const present = amounts.map((a) => a ?? { nanos: 0n, format: 'DecimalSI' as const });
  const milli = present.every((a) => wholeValue(a) <= MAX_MILLI_VALUE);
  return present.map((a) => (milli ? milliValue(a) : wholeValue(a)));
}

function minConstraint(type: string, name: string, enforced: Amount, requests: ResourceList, limits: ResourceList): string | null {
  const req = requests.get(name);
  const lim = limits.get(name);
  const [r, l, e] = comparable(req, lim, enforced);
  if (!req) return `minimum ${name} usage per ${type} is ${amountText(enforced)}.  No request is specified`;
  if (r < e) return `minimum ${name} usage per ${type} is ${amountText(enforced)}, but request is ${amountText(req)}`;
  if (lim && l < e) return `minimum ${name} usage per ${type} is ${amountText(enforced)}, but limit is ${amountText(lim)}`;
  return null;
}

function maxConstraint(type: string, name: string, enforced: Amount, requests: ResourceList, limits: ResourceList): string | null {
  const req = requests.get(name);
  const lim = limits.get(name);
  const [r, l, e] = comparable(req, lim, enforced);
  if (!lim) return `maximum ${name} usage per ${type} is ${amountText(enforced)}.  No limit is specified`;
  if (l > e) return `maximum ${name} usage per ${type} is ${amountText(enforced)}, but limit is ${amountText(lim)}`;
  if (req && r > e) return `maximum ${name} usage per ${type} is ${amountText(enforced)}, but request is ${amountText(req)}`;
  return null;
}

/** maxRequestConstraint: for claims, whose limits LimitRanger does not read. */
function maxRequestConstraint(type: string, name: string, enforced: Amount, requests: ResourceList): string | null {
  const req = requests.get(name);
  const [r, , e] = comparable(req, undefined, enforced);
  if (!req) return `maximum ${name} usage per ${type} is ${amountText(enforced)}.  No request is specified`;
  if (r > e) return `maximum ${name} usage per ${type} is ${amountText(enforced)}, but request is ${amountText(req)}`;
  return null;
}

/** Go's %f: six decimals. */
const goFloat = (n: number): string => n.toFixed(6);

function ratioConstraint(type: string, name: string, enforced: Amount, requests: ResourceList, limits: ResourceList): string | null {
  const req = requests.get(name);
  const lim = limits.get(name);
  const [r, l] = comparable(req, lim, enforced);
  const max = amountText(enforced);
  if (!req || r === 0n) return `${name} max limit to request ratio per ${type} is ${max}, but no request is specified or request is 0`;
  if (!lim || l === 0n) return `${name} max limit to request ratio per ${type} is ${max}, but no limit is specified or limit is 0`;
  const ratio = Number(l) / Number(r);
  const whole = wholeValue(enforced);
  const exceeded = whole <= MAX_MILLI_VALUE ? ratio * 1000 > Number(milliValue(enforced)) : ratio > Number(whole);
  return exceeded ? `${name} max limit to request ratio per ${type} is ${max}, but provided ratio is ${goFloat(ratio)}` : null;
}

/** The min, max and ratio checks of one LimitRange item against requests and limits. */
function checkItem(item: Obj, type: string, requests: ResourceList, limits: ResourceList): string[] {
  const errs: string[] = [];
  for (const [name, v] of sortedEntries(item.min)) errs.push(minConstraint(type, name, v, requests, limits) ?? '');
  for (const [name, v] of sortedEntries(item.max)) errs.push(maxConstraint(type, name, v, requests, limits) ?? '');
  for (const [name, v] of sortedEntries(item.maxLimitRequestRatio)) errs.push(ratioConstraint(type, name, v, requests, limits) ?? '');
  return errs.filter(Boolean);
}

/** PodValidateLimitFunc. */
function validatePod(range: KubeObject, pod: KubeObject): string[] {
  const errs: string[] = [];
  const { containers, initContainers } = podContainers(pod);
  for (const item of limitsOf(range)) {
    if (item.type === 'Container') {
      for (const c of [...containers, ...initContainers]) {
        const r = isPlainObject(c.resources) ? c.resources : {};
        errs.push(...checkItem(item, 'Container', resourceListOf(r.requests), resourceListOf(r.limits)));
      }
    }
    if (item.type === 'Pod') errs.push(...checkItem(item, 'Pod', podTotals(pod, 'requests', false), podTotals(pod, 'limits', false)));
  }
  return errs;
}

/** PersistentVolumeClaimValidateLimitFunc: min and max of what a claim requests. */
function validateClaim(range: KubeObject, pvc: KubeObject): string[] {
  const errs: string[] = [];
  const spec = isPlainObject(pvc.spec) ? pvc.spec : {};
  const requests = resourceListOf(isPlainObject(spec.resources) ? spec.resources.requests : undefined);
  for (const item of limitsOf(range)) {
    if (item.type !== 'PersistentVolumeClaim') continue;
    for (const [name, v] of sortedEntries(item.min)) errs.push(minConstraint('PersistentVolumeClaim', name, v, requests, new Map()) ?? '');
    for (const [name, v] of sortedEntries(item.max)) errs.push(maxRequestConstraint('PersistentVolumeClaim', name, v, requests) ?? '');
  }
  return errs.filter(Boolean);
}

/** utilerrors.NewAggregate(...).Error(): one message alone, several deduplicated in brackets. */
function aggregate(messages: string[]): string {
  const unique = [...new Set(messages)];
  return unique.length === 1 ? unique[0] : `[${unique.join(', ')}]`;
}

/** SetDefaults_Pod's part that decoding does before admission in kube: a container's limits stand in for its missing requests. */
function requestsFromLimits(c: Obj): void {
  const r = c.resources;
  if (!isPlainObject(r) || !isPlainObject(r.limits)) return;
  const requests = isPlainObject(r.requests) ? r.requests : {};
  for (const [k, v] of Object.entries(r.limits)) requests[k] ??= v;
  r.requests = requests;
}

/** mergeContainerResources: fills what the container leaves unset; says what it set. */
function mergeDefaults(c: Obj, defaults: { requests: Obj; limits: Obj }, label: string): string[] {
  const r = resourcesOf(c);
  const limits = isPlainObject(r.limits) ? r.limits : {};
  const requests = isPlainObject(r.requests) ? r.requests : {};
  const setLimits = Object.keys(defaults.limits).filter((k) => limits[k] === undefined);
  const setRequests = Object.keys(defaults.requests).filter((k) => requests[k] === undefined);
  for (const k of setLimits) limits[k] = defaults.limits[k];
  for (const k of setRequests) requests[k] = defaults.requests[k];
  if (Object.keys(limits).length > 0) r.limits = limits;
  if (Object.keys(requests).length > 0) r.requests = requests;
  const notes: string[] = [];
  if (setRequests.length > 0) notes.push(`${setRequests.sort().join(', ')} request for ${label} ${String(c.name ?? '')}`);
  if (setLimits.length > 0) notes.push(`${setLimits.sort().join(', ')} limit for ${label} ${String(c.name ?? '')}`);
  return notes;
}

/** PodMutateLimitFunc: the Container item's default and defaultRequest, noted in the kubernetes.io/limit-ranger annotation. */
function defaultPod(range: KubeObject, pod: KubeObject): void {
  const defaults = { requests: {} as Obj, limits: {} as Obj };
  for (const item of limitsOf(range)) {
    if (item.type !== 'Container') continue;
    Object.assign(defaults.requests, isPlainObject(item.defaultRequest) ? item.defaultRequest : {});
    Object.assign(defaults.limits, isPlainObject(item.default) ? item.default : {});
  }
  const { containers, initContainers } = podContainers(pod);
  const notes = [
    ...containers.flatMap((c) => mergeDefaults(c, defaults, 'container')),
    ...initContainers.flatMap((c) => mergeDefaults(c, defaults, 'init container')),
  ];
  if (notes.length > 0) pod.metadata.annotations = { ...pod.metadata.annotations, [ANNOTATION]: `LimitRanger plugin set: ${notes.join('; ')}` };
}

/**
 * The LimitRanger admission plugin (plugin/pkg/admission/limitranger): a pod being created gets
 * its namespace's Container defaults; pods and claims are held to each LimitRange's min, max and
 * limit/request ratio.
 */
export class LimitRanger implements AdmissionPlugin {
  readonly name = 'LimitRanger';
  private readonly ranges: LiveLookup;

  constructor(list: NamespaceList, now: () => number = Date.now) {
    this.ranges = new LiveLookup(list, now);
  }

  admit(attrs: AdmissionAttributes): Promise<void> | void {
    if (this.kind(attrs) !== 'pod') return;
    return this.admitPod(attrs);
  }

  private async admitPod(attrs: AdmissionAttributes): Promise<void> {
    const ranges = await this.ranges.get(attrs.namespace);
    if (ranges.length === 0) return;
    const { containers, initContainers } = podContainers(attrs.object!);
    for (const c of [...containers, ...initContainers]) requestsFromLimits(c);
    for (const range of ranges) defaultPod(range, attrs.object!);
  }

  validate(attrs: AdmissionAttributes): Promise<void> | void {
    const kind = this.kind(attrs);
    if (!kind) return;
    return this.validateKind(attrs, kind);
  }

  private async validateKind(attrs: AdmissionAttributes, kind: 'pod' | 'claim'): Promise<void> {
    for (const range of await this.ranges.get(attrs.namespace)) {
      const errs = kind === 'pod' ? validatePod(range, attrs.object!) : validateClaim(range, attrs.object!);
      if (errs.length > 0) {
        const meta = attrs.object!.metadata;
        throw forbidden({ group: '', resource: attrs.def.resource }, meta.name || meta.generateName || 'Unknown', aggregate(errs));
      }
    }
  }

  /** SupportsAttributes: pods being created and claims being created or updated, not their subresources nor what is being deleted. */
  private kind(attrs: AdmissionAttributes): 'pod' | 'claim' | null {
    if (attrs.subresource !== '' || attrs.def.group !== '' || !attrs.object || attrs.operation === 'DELETE') return null;
    if (attrs.oldObject?.metadata.deletionTimestamp) return null;
    if (attrs.def.resource === 'pods') return attrs.operation === 'CREATE' ? 'pod' : null;
    return attrs.def.resource === 'persistentvolumeclaims' ? 'claim' : null;
  }
}
