import type { KubeObject } from '../api/types';

/**
 * kube-apiserver's API Priority and Fairness configuration objects
 * (k8s.io/apiserver/pkg/apis/flowcontrol/bootstrap, v1.34): the mandatory ones are kept exactly
 * so, the suggested ones are created when missing and kept while their owner lets them be
 * (`apf.kubernetes.io/autoupdate-spec`). Written as the v1 objects, defaults included.
 */

export const AUTO_UPDATE_ANNOTATION = 'apf.kubernetes.io/autoupdate-spec';
const API_VERSION = 'flowcontrol.apiserver.k8s.io/v1';

type Obj = Record<string, unknown>;

const meta = (name: string) => ({ name, annotations: { [AUTO_UPDATE_ANNOTATION]: 'true' } });

function priorityLevel(name: string, spec: Obj): KubeObject {
  return { apiVersion: API_VERSION, kind: 'PriorityLevelConfiguration', metadata: meta(name), spec };
}

function limited(nominalConcurrencyShares: number, lendablePercent: number, queues: number, handSize: number): Obj {
  return {
    type: 'Limited',
    limited: { nominalConcurrencyShares, lendablePercent, limitResponse: { type: 'Queue', queuing: { queues, handSize, queueLengthLimit: 50 } } },
  };
}

const groups = (...names: string[]) => names.map((name) => ({ kind: 'Group', group: { name } }));
const users = (...names: string[]) => names.map((name) => ({ kind: 'User', user: { name } }));
const KUBE_SYSTEM_SERVICE_ACCOUNTS = [{ kind: 'ServiceAccount', serviceAccount: { name: '*', namespace: 'kube-system' } }];

/** clusterScope is omitempty: false is left out, as kube's JSON leaves it. */
const resourceRule = (verbs: string[], apiGroups: string[], resources: string[], clusterScope: boolean): Obj => ({
  verbs,
  apiGroups,
  resources,
  ...(clusterScope ? { clusterScope } : {}),
  namespaces: ['*'],
});
const EVERY_RESOURCE = [resourceRule(['*'], ['*'], ['*'], true)];
const EVERY_NON_RESOURCE = [{ verbs: ['*'], nonResourceURLs: ['*'] }];

function flowSchema(name: string, priorityLevelName: string, matchingPrecedence: number, distinguisher: string, rule: Obj): KubeObject {
  return {
    apiVersion: API_VERSION,
    kind: 'FlowSchema',
    metadata: meta(name),
    spec: {
      priorityLevelConfiguration: { name: priorityLevelName },
      matchingPrecedence,
      ...(distinguisher ? { distinguisherMethod: { type: distinguisher } } : {}),
      rules: [rule],
    },
  };
}

/** A schema matching the subjects' every request (the bootstrap's many "all verbs, all targets" rules). */
const everything = (name: string, pl: string, precedence: number, distinguisher: string, subjects: Obj[]): KubeObject =>
  flowSchema(name, pl, precedence, distinguisher, { subjects, resourceRules: EVERY_RESOURCE, nonResourceRules: EVERY_NON_RESOURCE });

export const MANDATORY_PRIORITY_LEVELS: KubeObject[] = [
  priorityLevel('catch-all', { type: 'Limited', limited: { nominalConcurrencyShares: 5, lendablePercent: 0, limitResponse: { type: 'Reject' } } }),
  priorityLevel('exempt', { type: 'Exempt', exempt: { nominalConcurrencyShares: 0, lendablePercent: 0 } }),
];

export const MANDATORY_FLOW_SCHEMAS: KubeObject[] = [
  everything('exempt', 'exempt', 1, '', groups('system:masters')),
  everything('catch-all', 'catch-all', 10000, 'ByUser', groups('system:unauthenticated', 'system:authenticated')),
];

export const SUGGESTED_PRIORITY_LEVELS: KubeObject[] = [
  priorityLevel('system', limited(30, 33, 64, 6)),
  priorityLevel('node-high', limited(40, 25, 64, 6)),
  priorityLevel('leader-election', limited(10, 0, 16, 4)),
  priorityLevel('workload-high', limited(40, 50, 128, 6)),
  priorityLevel('workload-low', limited(100, 90, 128, 6)),
  priorityLevel('global-default', limited(20, 50, 128, 6)),
];

export const SUGGESTED_FLOW_SCHEMAS: KubeObject[] = [
  everything('system-nodes', 'system', 500, 'ByUser', groups('system:nodes')),
  flowSchema('system-node-high', 'node-high', 400, 'ByUser', {
    subjects: groups('system:nodes'),
    resourceRules: [resourceRule(['*'], [''], ['nodes', 'nodes/status'], true), resourceRule(['*'], ['coordination.k8s.io'], ['leases'], false)],
  }),
  flowSchema('probes', 'exempt', 2, '', {
    subjects: groups('system:unauthenticated', 'system:authenticated'),
    nonResourceRules: [{ verbs: ['get'], nonResourceURLs: ['/healthz', '/readyz', '/livez'] }],
  }),
  flowSchema('system-leader-election', 'leader-election', 100, 'ByUser', {
    subjects: [...users('system:kube-controller-manager', 'system:kube-scheduler'), ...KUBE_SYSTEM_SERVICE_ACCOUNTS],
    resourceRules: [resourceRule(['get', 'create', 'update'], ['coordination.k8s.io'], ['leases'], false)],
  }),
  everything('kube-controller-manager', 'workload-high', 800, 'ByNamespace', users('system:kube-controller-manager')),
  everything('kube-scheduler', 'workload-high', 800, 'ByNamespace', users('system:kube-scheduler')),
  everything('kube-system-service-accounts', 'workload-high', 900, 'ByNamespace', KUBE_SYSTEM_SERVICE_ACCOUNTS),
  everything('service-accounts', 'workload-low', 9000, 'ByUser', groups('system:serviceaccounts')),
  everything('global-default', 'global-default', 9900, 'ByUser', groups('system:unauthenticated', 'system:authenticated')),
];
