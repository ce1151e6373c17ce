import { isPlainObject, type KubeObject } from '../../api/types';
import { podQosClass } from '../../resources/pod-spec';
import { countAmount, parseAmount, resourceListOf, zeroAmount, compareAmounts, type ResourceList } from './amounts';
import { podTotals } from './pod-resources';

/** One term of a quota's scopes or scopeSelector (corev1.ScopedResourceSelectorRequirement). */
export interface ScopeRequirement {
  scopeName: string;
  operator: string;
  values: string[];
}

/**
 * What quota knows of one resource, as kube's quota.Evaluator: which writes change usage, which
 * quota resource names it accounts for, what an object uses, and which scopes it falls in.
 */
export interface QuotaEvaluator {
  handles(operation: string, subresource: string): boolean;
  matchingResources(names: Iterable<string>): string[];
  /** Whether an object is in a scope; object counts of other kinds are in none (MatchesNoScopeFunc). */
  matchesScope(scope: ScopeRequirement, obj: KubeObject): boolean;
  usage(obj: KubeObject, now: number): ResourceList;
  /** Why an object may not be admitted under a quota limiting `required` (Constraints), or null. */
  constraints(required: string[], obj: KubeObject): string | null;
}

type Obj = Record<string, unknown>;
const objects = (v: unknown): Obj[] => (Array.isArray(v) ? v.filter(isPlainObject) : []);
const specOf = (obj: KubeObject): Obj => (isPlainObject(obj.spec) ? obj.spec : {});

/** generic.ObjectCountQuotaResourceNameFor. */
const objectCountName = (group: string, resource: string): string => (group ? `count/${resource}.${group}` : `count/${resource}`);

/** The names quota gave object counts before count/<resource> existed (legacyObjectCountAliases). */
const LEGACY_COUNT_ALIASES: Record<string, string> = {
  configmaps: 'configmaps',
  resourcequotas: 'resourcequotas',
  replicationcontrollers: 'replicationcontrollers',
  secrets: 'secrets',
};

const intersect = (names: Iterable<string>, known: readonly string[]): string[] => [...names].filter((n) => known.includes(n));
const one = (): ReturnType<typeof countAmount> => countAmount(1);

/** generic.NewObjectCountEvaluator: creates are counted, nothing else. */
function objectCountEvaluator(group: string, resource: string): QuotaEvaluator {
  const names = [objectCountName(group, resource)];
  const alias = group === '' ? LEGACY_COUNT_ALIASES[resource] : undefined;
  if (alias) names.push(alias);
  return {
    handles: (operation) => operation === 'CREATE',
    matchingResources: (input) => intersect(input, names),
    matchesScope: () => false,
    usage: () => new Map(names.map((n) => [n, one()])),
    constraints: () => null,
  };
}

/** The resources kube's pod evaluator knows; hugepages and extended resources are matched by prefix. */
const POD_RESOURCES = [
  'count/pods',
  'cpu',
  'memory',
  'ephemeral-storage',
  'requests.cpu',
  'requests.memory',
  'requests.ephemeral-storage',
  'limits.cpu',
  'limits.memory',
  'limits.ephemeral-storage',
  'pods',
];
/** Resources a pod must name in every container when a quota limits them (validationSet: a mistake kube keeps). */
const REQUIRED_PER_CONTAINER = ['cpu', 'memory', 'requests.cpu', 'requests.memory', 'limits.cpu', 'limits.memory'];
const NATIVE_PREFIXES = ['kubernetes.io/', 'requests.kubernetes.io/'];

/** helper.IsNativeResource: no domain, or kubernetes.io's. */
const isNative = (name: string): boolean => !name.includes('/') || NATIVE_PREFIXES.some((p) => name.startsWith(p));
const isExtendedQuotaName = (name: string): boolean => !isNative(name) && name.startsWith('requests.');
const isExtendedResource = (name: string): boolean => !isNative(name) && !name.startsWith('requests.');

/** podComputeUsageHelper: what a set of requests and limits counts as. */
function computeUsage(requests: ResourceList, limits: ResourceList): ResourceList {
  const out: ResourceList = new Map([['pods', one()]]);
  for (const res of ['cpu', 'memory', 'ephemeral-storage']) {
    const request = requests.get(res);
    if (request) {
      out.set(res, request);
      out.set(`requests.${res}`, request);
    }
    const limit = limits.get(res);
    if (limit) out.set(`limits.${res}`, limit);
  }
  for (const [name, request] of requests) {
    if (name.startsWith('hugepages-')) {
      out.set(name, request);
      out.set(`requests.${name}`, request);
    }
    if (isExtendedResource(name)) out.set(`requests.${name}`, request);
  }
  return out;
}

/** QuotaV1Pod: a pod in a terminal phase, or past its deletion grace period, no longer uses compute resources. */
function podCounts(pod: KubeObject, now: number): boolean {
  const phase = isPlainObject(pod.status) ? pod.status.phase : undefined;
  if (phase === 'Succeeded' || phase === 'Failed') return false;
  const { deletionTimestamp, deletionGracePeriodSeconds } = pod.metadata;
  if (deletionTimestamp && deletionGracePeriodSeconds !== undefined) {
    return now <= Date.parse(deletionTimestamp) + deletionGracePeriodSeconds * 1000;
  }
  return true;
}

/** usesCrossNamespacePodAffinity: any affinity term naming namespaces or a namespace selector. */
function usesCrossNamespaceAffinity(spec: Obj): boolean {
  const affinity = isPlainObject(spec.affinity) ? spec.affinity : {};
  for (const kind of ['podAffinity', 'podAntiAffinity']) {
    const a = isPlainObject(affinity[kind]) ? affinity[kind] : {};
    const terms = [
      ...objects(a.requiredDuringSchedulingIgnoredDuringExecution),
      ...objects(a.preferredDuringSchedulingIgnoredDuringExecution).map((w) => (isPlainObject(w.podAffinityTerm) ? w.podAffinityTerm : {})),
    ];
    if (terms.some((t) => (Array.isArray(t.namespaces) && t.namespaces.length > 0) || isPlainObject(t.namespaceSelector))) return true;
  }
  return false;
}

/** podMatchesSelector: the PriorityClass scope as a label selector over {PriorityClass: <name>}. */
function matchesPriorityClass(scope: ScopeRequirement, priorityClassName: string): boolean {
  const present = priorityClassName !== '';
  switch (scope.operator) {
    case 'Exists':
      return present;
    case 'DoesNotExist':
      return !present;
    case 'In':
      return present && scope.values.includes(priorityClassName);
    case 'NotIn':
      return !present || !scope.values.includes(priorityClassName);
    default:
      return false;
  }
}

/** podMatchesScopeFunc. */
function podMatchesScope(scope: ScopeRequirement, pod: KubeObject): boolean {
  const spec = specOf(pod);
  const terminating = typeof spec.activeDeadlineSeconds === 'number' && spec.activeDeadlineSeconds >= 0;
  const bestEffort = podQosClass(spec) === 'BestEffort';
  switch (scope.scopeName) {
    case 'Terminating':
      return terminating;
    case 'NotTerminating':
      return !terminating;
    case 'BestEffort':
      return bestEffort;
    case 'NotBestEffort':
      return !bestEffort;
    case 'PriorityClass':
      return matchesPriorityClass(scope, typeof spec.priorityClassName === 'string' ? spec.priorityClassName : '');
    case 'CrossNamespacePodAffinity':
      return usesCrossNamespaceAffinity(spec);
    default:
      return false;
  }
}

/** kube's podEvaluator (pkg/quota/v1/evaluator/core/pods.go); pods are charged when created. */
const podEvaluator: QuotaEvaluator = {
  handles: (operation, subresource) => operation === 'CREATE' && subresource === '',
  matchingResources: (input) => {
    const names = [...input];
    return [
      ...intersect(names, POD_RESOURCES),
      ...names.filter((n) => n.startsWith('hugepages-') || n.startsWith('requests.hugepages-') || isExtendedQuotaName(n)),
    ];
  },
  matchesScope: podMatchesScope,
  usage: (pod, now) => {
    const out: ResourceList = new Map([['count/pods', one()]]);
    if (!podCounts(pod, now)) return out;
    for (const [name, amount] of computeUsage(podTotals(pod, 'requests'), podTotals(pod, 'limits'))) out.set(name, amount);
    return out;
  },
  constraints: (required, pod) => {
    const requiredSet = required.filter((r) => REQUIRED_PER_CONTAINER.includes(r));
    if (requiredSet.length === 0) return null;
    const missing = new Map<string, Set<string>>();
    const spec = specOf(pod);
    for (const c of [...objects(spec.containers), ...objects(spec.initContainers)]) {
      const resources = isPlainObject(c.resources) ? c.resources : {};
      const has = computeUsage(resourceListOf(resources.requests), resourceListOf(resources.limits));
      for (const r of requiredSet) if (!has.has(r)) missing.set(r, (missing.get(r) ?? new Set()).add(String(c.name ?? '')));
    }
    if (missing.size === 0) return null;
    const parts = [...missing.keys()].sort().map((r) => `${r} for: ${[...missing.get(r)!].sort().join(',')}`);
    return `must specify ${parts.join('; ')}`;
  },
};

const SERVICE_RESOURCES = ['count/services', 'services', 'services.loadbalancers', 'services.nodeports'];

/** kube's serviceEvaluator: creates and updates (a type change) are charged. */
const serviceEvaluator: QuotaEvaluator = {
  handles: (operation, subresource) => (operation === 'CREATE' || operation === 'UPDATE') && subresource === '',
  matchingResources: (input) => intersect(input, SERVICE_RESOURCES),
  matchesScope: () => false,
  usage: (svc) => {
    const spec = specOf(svc);
    const ports = countAmount(objects(spec.ports).length);
    const out: ResourceList = new Map([
      ['count/services', one()],
      ['services', one()],
      ['services.loadbalancers', zeroAmount()],
      ['services.nodeports', zeroAmount()],
    ]);
    if (spec.type === 'NodePort') out.set('services.nodeports', ports);
    if (spec.type === 'LoadBalancer') {
      out.set('services.loadbalancers', one());
      if (spec.allocateLoadBalancerNodePorts !== false) out.set('services.nodeports', ports);
    }
    return out;
  },
  constraints: () => null,
};

const PVC_RESOURCES = ['persistentvolumeclaims', 'count/persistentvolumeclaims', 'requests.storage'];
/** storageClassSuffix: per-class quota names are <class>.storageclass.storage.k8s.io/<resource>. */
const STORAGE_CLASS_SUFFIX = '.storageclass.storage.k8s.io/';
const BETA_STORAGE_CLASS_ANNOTATION = 'volume.beta.kubernetes.io/storage-class';

/** storagehelpers.GetPersistentVolumeClaimClass: the beta annotation first, then spec.storageClassName. */
function claimClass(pvc: KubeObject): string {
  const annotated = pvc.metadata.annotations?.[BETA_STORAGE_CLASS_ANNOTATION];
  if (annotated !== undefined) return annotated;
  const name = specOf(pvc).storageClassName;
  return typeof name === 'string' ? name : '';
}

/** kube's pvcEvaluator: creates and updates (expansion) are charged. */
const pvcEvaluator: QuotaEvaluator = {
  handles: (operation, subresource) => (operation === 'CREATE' || operation === 'UPDATE') && subresource === '',
  matchingResources: (input) =>
    [...input].filter(
      (n) =>
        PVC_RESOURCES.includes(n) ||
        (n.includes(STORAGE_CLASS_SUFFIX) &&
          ['persistentvolumeclaims', 'requests.storage'].includes(n.slice(n.indexOf(STORAGE_CLASS_SUFFIX) + STORAGE_CLASS_SUFFIX.length))),
    ),
  matchesScope: () => false,
  usage: (pvc) => {
    const out: ResourceList = new Map([
      ['persistentvolumeclaims', one()],
      ['count/persistentvolumeclaims', one()],
    ]);
    const cls = claimClass(pvc);
    if (cls) out.set(`${cls}${STORAGE_CLASS_SUFFIX}persistentvolumeclaims`, one());
    const resources = isPlainObject(specOf(pvc).resources) ? (specOf(pvc).resources as Obj) : {};
    let storage = parseAmount(isPlainObject(resources.requests) ? resources.requests.storage : undefined);
    // getStorageUsage: what is allocated counts when it is more than the request (RecoverVolumeExpansionFailure).
    const allocated = parseAmount(
      isPlainObject(pvc.status) && isPlainObject(pvc.status.allocatedResources) ? pvc.status.allocatedResources.storage : undefined,
    );
    if (allocated && (!storage || compareAmounts(allocated, storage) > 0)) storage = allocated;
    if (storage) {
      out.set('requests.storage', storage);
      if (cls) out.set(`${cls}${STORAGE_CLASS_SUFFIX}requests.storage`, storage);
    }
    return out;
  },
  constraints: () => null,
};

/** The evaluator of a resource: kube's own for pods, services and claims, an object count for any other. */
export function evaluatorFor(group: string, resource: string): QuotaEvaluator {
  if (group === '' && resource === 'pods') return podEvaluator;
  if (group === '' && resource === 'services') return serviceEvaluator;
  if (group === '' && resource === 'persistentvolumeclaims') return pvcEvaluator;
  return objectCountEvaluator(group, resource);
}

/** The resources named by quota names: count/<resource>[.<group>], legacy aliases and compute names. */
export function resourcesNamedBy(name: string): { group: string; resource: string } | null {
  if (name.startsWith('count/')) {
    const rest = name.slice('count/'.length);
    const dot = rest.indexOf('.');
    return dot < 0 ? { group: '', resource: rest } : { group: rest.slice(dot + 1), resource: rest.slice(0, dot) };
  }
  if (Object.values(LEGACY_COUNT_ALIASES).includes(name)) return { group: '', resource: name };
  if (SERVICE_RESOURCES.includes(name)) return { group: '', resource: 'services' };
  if (podEvaluator.matchingResources([name]).length > 0) return { group: '', resource: 'pods' };
  if (pvcEvaluator.matchingResources([name]).length > 0) return { group: '', resource: 'persistentvolumeclaims' };
  return null;
}

/** GetScopeSelectorsFromQuota: each scope as Exists, then the scopeSelector's expressions. */
export function quotaScopes(quota: KubeObject): ScopeRequirement[] {
  const spec = specOf(quota);
  const scopes: ScopeRequirement[] = (Array.isArray(spec.scopes) ? spec.scopes : []).map((s) => ({ scopeName: String(s), operator: 'Exists', values: [] }));
  const selector = isPlainObject(spec.scopeSelector) ? spec.scopeSelector : {};
  for (const e of objects(selector.matchExpressions)) {
    scopes.push({ scopeName: String(e.scopeName ?? ''), operator: String(e.operator ?? ''), values: Array.isArray(e.values) ? e.values.map(String) : [] });
  }
  return scopes;
}

/** generic.Matches: the quota limits something the evaluator counts, and the object is in every scope. */
export function quotaMatches(evaluator: QuotaEvaluator, hard: Iterable<string>, scopes: ScopeRequirement[], obj: KubeObject): boolean {
  return evaluator.matchingResources(hard).length > 0 && scopes.every((s) => evaluator.matchesScope(s, obj));
}
