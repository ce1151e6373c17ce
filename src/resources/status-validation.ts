import { field, type FieldErrorList } from '../api/field-errors';
import { objectsIn, stringOf } from '../api/json-read';
import { isDns1035Label, isDns1123Subdomain } from '../api/name-validation';
import { compareQuantities, parseQuantity, ZERO_QUANTITY, type Quantity } from '../api/quantity';
import { isPlainObject, type KubeObject } from '../api/types';
import { legacyIpErrors, parseIpSloppy } from './network-validation';
import { hostIpErrors, podIpErrors } from './pod-ips';

/**
 * What each kind's status strategy validates beyond metadata (kube's ValidateXStatusUpdate), and
 * the checks they share: counters, load balancer addresses, quantities.
 */

type Obj = Record<string, unknown>;

const NEGATIVE = 'must be greater than or equal to 0';

export function statusOf(obj: KubeObject): Obj {
  return isPlainObject(obj.status) ? obj.status : {};
}

/** A counter the client left out is Go's zero value. */
function count(status: Obj, key: string): number {
  const v = status[key];
  return typeof v === 'number' ? v : 0;
}

/** ValidateNonnegativeField on each of `keys` under status (absent counts are 0 and pass). */
export function nonNegativeCounts(status: Obj, keys: string[], path = 'status'): FieldErrorList {
  const errs: FieldErrorList = [];
  for (const key of keys) {
    const v = status[key];
    if (typeof v === 'number' && v < 0) errs.push(field.invalid(`${path}.${key}`, v, NEGATIVE));
  }
  return errs;
}

/** `key` may not exceed `limit` (both status counters): Invalid with `message`. */
export function notAbove(status: Obj, key: string, limit: string, message: string, path = 'status'): FieldErrorList {
  return count(status, key) > count(status, limit) ? [field.invalid(`${path}.${key}`, count(status, key), message)] : [];
}

/** apivalidation.IsDecremented on status.collisionCount: once set it never goes down. */
export function collisionCountNotDecremented(next: KubeObject, prev: KubeObject): FieldErrorList {
  const now = statusOf(next).collisionCount;
  const before = statusOf(prev).collisionCount;
  if (typeof before !== 'number') return [];
  if (typeof now === 'number' && now >= before) return [];
  return [field.invalid('status.collisionCount', typeof now === 'number' ? now : 0, 'cannot be decremented')];
}

/** ValidateResourceQuantityValue over a resource list (node capacity, a claim's capacity): no negative amounts. */
export function nonNegativeQuantities(list: unknown, path: string): FieldErrorList {
  if (!isPlainObject(list)) return [];
  const errs: FieldErrorList = [];
  for (const [name, value] of Object.entries(list)) {
    const q = parseQuantity(value);
    if (q && compareQuantities(q, ZERO_QUANTITY) < 0) errs.push(field.invalid(`${path}[${name}]`, value, NEGATIVE));
  }
  return errs;
}

/**
 * ValidateIngressLoadBalancerStatus: each ingress point has a valid IP or a DNS name that is not
 * an IP (a Service's status is service-validation.ts's validateServiceStatus).
 */
export function validateLoadBalancerStatus(status: Obj, old: Obj, path: string): FieldErrorList {
  const points = (s: Obj): unknown[] => (isPlainObject(s.loadBalancer) && Array.isArray(s.loadBalancer.ingress) ? s.loadBalancer.ingress : []);
  // IPs the old status already had are taken as they are (StrictIPCIDRValidation's legacy fields).
  const oldIps = points(old).flatMap((p) => (isPlainObject(p) && typeof p.ip === 'string' && p.ip !== '' ? [p.ip] : []));
  const errs: FieldErrorList = [];
  points(status).forEach((point: unknown, i) => {
    if (!isPlainObject(point)) return;
    const at = `${path}.loadBalancer.ingress[${i}]`;
    const { ip, hostname } = point;
    if (typeof ip === 'string' && ip !== '') errs.push(...legacyIpErrors(`${at}.ip`, ip, oldIps));
    if (typeof hostname === 'string' && hostname !== '') {
      for (const msg of isDns1123Subdomain(hostname)) errs.push(field.invalid(`${at}.hostname`, hostname, msg));
      if (parseIpSloppy(hostname)) errs.push(field.invalid(`${at}.hostname`, hostname, 'must be a DNS name, not an IP address'));
    }
  });
  return errs;
}

/** ValidateCustomResourceDefinitionStatus: the accepted names, where set, are names a CRD could ask for. */
export function validateAcceptedNames(status: Obj): FieldErrorList {
  const names = isPlainObject(status.acceptedNames) ? status.acceptedNames : {};
  const errs: FieldErrorList = [];
  const path = 'status.acceptedNames';
  for (const key of ['plural', 'singular'] as const) {
    const v = names[key];
    if (typeof v === 'string' && v !== '') for (const msg of isDns1035Label(v)) errs.push(field.invalid(`${path}.${key}`, v, msg));
  }
  for (const key of ['kind', 'listKind'] as const) {
    const v = names[key];
    if (typeof v === 'string' && v !== '') {
      for (const msg of isDns1035Label(v.toLowerCase()))
        errs.push(field.invalid(`${path}.${key}`, v, `may have mixed case, but should otherwise match: ${msg}`));
    }
  }
  return errs;
}

const ABOVE_REPLICAS = 'cannot be greater than status.replicas';

/** ValidateDeploymentStatusUpdate. */
export function validateDeploymentStatusUpdate(next: KubeObject, prev: KubeObject): FieldErrorList {
  const s = statusOf(next);
  return [
    ...nonNegativeCounts(s, [
      'observedGeneration',
      'replicas',
      'updatedReplicas',
      'readyReplicas',
      'availableReplicas',
      'unavailableReplicas',
      'terminatingReplicas',
      'collisionCount',
    ]),
    ...notAbove(s, 'updatedReplicas', 'replicas', ABOVE_REPLICAS),
    ...notAbove(s, 'readyReplicas', 'replicas', ABOVE_REPLICAS),
    ...notAbove(s, 'availableReplicas', 'replicas', ABOVE_REPLICAS),
    ...notAbove(s, 'availableReplicas', 'readyReplicas', 'cannot be greater than readyReplicas'),
    ...collisionCountNotDecremented(next, prev),
  ];
}

/** ValidateReplicaSetStatusUpdate (and the ReplicationController's, which has the same counters). */
export function validateReplicaSetStatusUpdate(next: KubeObject): FieldErrorList {
  const s = statusOf(next);
  return [
    ...nonNegativeCounts(s, ['replicas', 'fullyLabeledReplicas', 'readyReplicas', 'availableReplicas', 'terminatingReplicas', 'observedGeneration']),
    ...notAbove(s, 'fullyLabeledReplicas', 'replicas', ABOVE_REPLICAS),
    ...notAbove(s, 'readyReplicas', 'replicas', ABOVE_REPLICAS),
    ...notAbove(s, 'availableReplicas', 'replicas', ABOVE_REPLICAS),
    ...notAbove(s, 'availableReplicas', 'readyReplicas', 'cannot be greater than readyReplicas'),
  ];
}

/** ValidateStatefulSetStatusUpdate. */
export function validateStatefulSetStatusUpdate(next: KubeObject, prev: KubeObject): FieldErrorList {
  const s = statusOf(next);
  return [
    ...nonNegativeCounts(s, ['replicas', 'readyReplicas', 'currentReplicas', 'updatedReplicas', 'availableReplicas', 'observedGeneration', 'collisionCount']),
    ...notAbove(s, 'readyReplicas', 'replicas', ABOVE_REPLICAS),
    ...notAbove(s, 'currentReplicas', 'replicas', ABOVE_REPLICAS),
    ...notAbove(s, 'updatedReplicas', 'replicas', ABOVE_REPLICAS),
    ...notAbove(s, 'availableReplicas', 'replicas', ABOVE_REPLICAS),
    ...notAbove(s, 'availableReplicas', 'readyReplicas', 'cannot be greater than status.readyReplicas'),
    ...collisionCountNotDecremented(next, prev),
  ];
}

/** ValidateDaemonSetStatusUpdate. */
export function validateDaemonSetStatusUpdate(next: KubeObject, prev: KubeObject): FieldErrorList {
  const s = statusOf(next);
  return [
    ...nonNegativeCounts(s, [
      'currentNumberScheduled',
      'numberMisscheduled',
      'desiredNumberScheduled',
      'numberReady',
      'observedGeneration',
      'updatedNumberScheduled',
      'numberAvailable',
      'numberUnavailable',
      'collisionCount',
    ]),
    ...collisionCountNotDecremented(next, prev),
  ];
}

/** ValidateJobStatusUpdate's counters. */
export function validateJobStatusUpdate(next: KubeObject): FieldErrorList {
  return nonNegativeCounts(statusOf(next), ['active', 'succeeded', 'failed', 'ready', 'terminating']);
}

/** ValidatePodDisruptionBudgetStatusAndConditions' counters. */
export function validatePodDisruptionBudgetStatusUpdate(next: KubeObject): FieldErrorList {
  return nonNegativeCounts(statusOf(next), ['disruptionsAllowed', 'currentHealthy', 'desiredHealthy', 'expectedPods']);
}

/** ValidateHorizontalPodAutoscalerStatusUpdate. */
export function validateHorizontalPodAutoscalerStatusUpdate(next: KubeObject): FieldErrorList {
  return nonNegativeCounts(statusOf(next), ['currentReplicas', 'desiredReplicas']);
}

/** ValidateNamespaceStatusUpdate: the phase follows deletionTimestamp (an empty phase defaults to Active). */
export function validateNamespaceStatusUpdate(next: KubeObject): FieldErrorList {
  const phase = statusOf(next).phase || 'Active';
  if (!next.metadata.deletionTimestamp) {
    return phase === 'Active' ? [] : [field.invalid('status.Phase', phase, "may only be 'Active' if `deletionTimestamp` is empty")];
  }
  return phase === 'Terminating' ? [] : [field.invalid('status.Phase', phase, "may only be 'Terminating' if `deletionTimestamp` is not empty")];
}

/**
 * ValidatePodStatusUpdate's own checks: a nominated node's name where it changed, then the pod's
 * and the host's IPs.
 */
export function validatePodStatusUpdate(next: KubeObject, prev: KubeObject): FieldErrorList {
  const s = statusOf(next);
  const old = statusOf(prev);
  const errs: FieldErrorList = [];
  const nominated = s.nominatedNodeName;
  if (typeof nominated === 'string' && nominated !== '' && nominated !== old.nominatedNodeName) {
    for (const msg of isDns1123Subdomain(nominated)) errs.push(field.invalid('status.nominatedNodeName', nominated, msg));
  }
  return [...errs, ...podIpErrors(s, old), ...hostIpErrors(s, old)];
}

/** ValidateNodeUpdate on status: no negative capacity or allocatable, no duplicate address. */
export function validateNodeStatusUpdate(next: KubeObject): FieldErrorList {
  const s = statusOf(next);
  return [...nonNegativeQuantities(s.capacity, 'status.capacity'), ...nonNegativeQuantities(s.allocatable, 'status.allocatable'), ...duplicateNodeAddresses(s)];
}

/**
 * ValidateNodeUpdate's only check of status.addresses: no address twice (the internal NodeAddress
 * struct is the value). Their IPs are not validated, in 1.36 either.
 */
function duplicateNodeAddresses(status: Obj): FieldErrorList {
  const seen = new Set<string>();
  return objectsIn(status.addresses).flatMap((a, i) => {
    const address = { Type: stringOf(a.type), Address: stringOf(a.address) };
    const key = JSON.stringify(address);
    const dup = seen.has(key);
    seen.add(key);
    return dup ? [field.duplicate(`status.addresses[${i}]`, address)] : [];
  });
}

/** Quantity.Value(): the amount as an integer, rounded away from zero. */
function quantityValue(q: Quantity): number {
  let n = q.digits * 2n ** BigInt(q.pow2);
  if (q.pow10 >= 0) return Number(n * 10n ** BigInt(q.pow10));
  const d = 10n ** BigInt(-q.pow10);
  const whole = n / d;
  n = n % d === 0n ? whole : whole + (n < 0n ? -1n : 1n);
  return Number(n);
}

/** ValidatePersistentVolumeClaimStatusUpdate's capacity: validateBasicResource on each amount. */
export function validateClaimStatusUpdate(next: KubeObject): FieldErrorList {
  const capacity = statusOf(next).capacity;
  if (!isPlainObject(capacity)) return [];
  const errs: FieldErrorList = [];
  for (const [name, value] of Object.entries(capacity)) {
    const q = parseQuantity(value);
    if (q && compareQuantities(q, ZERO_QUANTITY) < 0)
      errs.push(field.invalid(`status.capacity[${name}]`, quantityValue(q), 'must be a valid resource quantity'));
  }
  return errs;
}
