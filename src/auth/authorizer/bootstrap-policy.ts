import type { KubeObject } from '../../api/types';
import type { PolicyRule } from './attributes';

/**
 * kube-apiserver's bootstrap policy (plugin/pkg/auth/authorizer/rbac/bootstrappolicy, as its
 * testdata/cluster-roles.yaml and cluster-role-bindings.yaml print it): the roles every cluster
 * has and who is bound to them, reconciled at every start.
 */

export const AUTO_UPDATE_ANNOTATION = 'rbac.authorization.kubernetes.io/autoupdate';
const BOOTSTRAP_LABELS = { 'kubernetes.io/bootstrapping': 'rbac-defaults' };
const RBAC_API_VERSION = 'rbac.authorization.k8s.io/v1';

const READ = ['get', 'list', 'watch'];
const WRITE = ['create', 'delete', 'deletecollection', 'patch', 'update'];
const READ_WRITE = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];

function clusterRole(name: string, rules: PolicyRule[] | null, extra: { labels?: Record<string, string>; aggregateFrom?: string } = {}): KubeObject {
  const role: KubeObject = {
    apiVersion: RBAC_API_VERSION,
    kind: 'ClusterRole',
    metadata: { name, labels: { ...BOOTSTRAP_LABELS, ...extra.labels }, annotations: { [AUTO_UPDATE_ANNOTATION]: 'true' } },
  };
  if (extra.aggregateFrom) role.aggregationRule = { clusterRoleSelectors: [{ matchLabels: { [extra.aggregateFrom]: 'true' } }] };
  role.rules = rules ?? [];
  return role;
}

const r = (apiGroups: string[], resources: string[], verbs: string[]): PolicyRule => ({ apiGroups, resources, verbs });
/** The right to approve requests for one signer (certauthorization's `signers` resource), as the unbound approver roles grant it. */
const approve = (signer: string): PolicyRule => ({ apiGroups: ['certificates.k8s.io'], resources: ['signers'], resourceNames: [signer], verbs: ['approve'] });
const urls = (nonResourceURLs: string[], verbs: string[]): PolicyRule => ({ nonResourceURLs, verbs });

const TO_ADMIN = 'rbac.authorization.k8s.io/aggregate-to-admin';
const TO_EDIT = 'rbac.authorization.k8s.io/aggregate-to-edit';
const TO_VIEW = 'rbac.authorization.k8s.io/aggregate-to-view';

export const BOOTSTRAP_CLUSTER_ROLES: KubeObject[] = [
  clusterRole('admin', null, { aggregateFrom: TO_ADMIN }),
  clusterRole('cluster-admin', [r(['*'], ['*'], ['*']), urls(['*'], ['*'])]),
  clusterRole('edit', null, { aggregateFrom: TO_EDIT, labels: { [TO_ADMIN]: 'true' } }),
  clusterRole(
    'system:aggregate-to-admin',
    [r(['authorization.k8s.io'], ['localsubjectaccessreviews'], ['create']), r(['rbac.authorization.k8s.io'], ['rolebindings', 'roles'], READ_WRITE)],
    { labels: { [TO_ADMIN]: 'true' } },
  ),
  clusterRole(
    'system:aggregate-to-edit',
    [
      r([''], ['pods/attach', 'pods/exec', 'pods/portforward', 'pods/proxy', 'secrets', 'services/proxy'], READ),
      r([''], ['serviceaccounts'], ['impersonate']),
      r([''], ['pods', 'pods/attach', 'pods/exec', 'pods/portforward', 'pods/proxy'], WRITE),
      r([''], ['pods/eviction'], ['create']),
      r(
        [''],
        [
          'configmaps',
          'events',
          'persistentvolumeclaims',
          'replicationcontrollers',
          'replicationcontrollers/scale',
          'secrets',
          'serviceaccounts',
          'services',
          'services/proxy',
        ],
        WRITE,
      ),
      r([''], ['serviceaccounts/token'], ['create']),
      r(
        ['apps'],
        ['daemonsets', 'deployments', 'deployments/rollback', 'deployments/scale', 'replicasets', 'replicasets/scale', 'statefulsets', 'statefulsets/scale'],
        WRITE,
      ),
      r(['autoscaling'], ['horizontalpodautoscalers'], WRITE),
      r(['batch'], ['cronjobs', 'jobs'], WRITE),
      r(
        ['extensions'],
        [
          'daemonsets',
          'deployments',
          'deployments/rollback',
          'deployments/scale',
          'ingresses',
          'networkpolicies',
          'replicasets',
          'replicasets/scale',
          'replicationcontrollers/scale',
        ],
        WRITE,
      ),
      r(['policy'], ['poddisruptionbudgets'], WRITE),
      r(['networking.k8s.io'], ['ingresses', 'networkpolicies'], WRITE),
      r(['coordination.k8s.io'], ['leases'], READ_WRITE),
      // DynamicResourceAllocation (on by default since 1.34).
      r(['resource.k8s.io'], ['resourceclaims', 'resourceclaimtemplates'], WRITE),
    ],
    { labels: { [TO_EDIT]: 'true' } },
  ),
  clusterRole(
    'system:aggregate-to-view',
    [
      r(
        [''],
        [
          'configmaps',
          'endpoints',
          'persistentvolumeclaims',
          'persistentvolumeclaims/status',
          'pods',
          'replicationcontrollers',
          'replicationcontrollers/scale',
          'serviceaccounts',
          'services',
          'services/status',
        ],
        READ,
      ),
      r(
        [''],
        [
          'bindings',
          'events',
          'limitranges',
          'namespaces/status',
          'pods/log',
          'pods/status',
          'replicationcontrollers/status',
          'resourcequotas',
          'resourcequotas/status',
        ],
        READ,
      ),
      r([''], ['namespaces'], READ),
      r(['discovery.k8s.io'], ['endpointslices'], READ),
      r(
        ['apps'],
        [
          'controllerrevisions',
          'daemonsets',
          'daemonsets/status',
          'deployments',
          'deployments/scale',
          'deployments/status',
          'replicasets',
          'replicasets/scale',
          'replicasets/status',
          'statefulsets',
          'statefulsets/scale',
          'statefulsets/status',
        ],
        READ,
      ),
      r(['autoscaling'], ['horizontalpodautoscalers', 'horizontalpodautoscalers/status'], READ),
      r(['batch'], ['cronjobs', 'cronjobs/status', 'jobs', 'jobs/status'], READ),
      r(
        ['extensions'],
        [
          'daemonsets',
          'daemonsets/status',
          'deployments',
          'deployments/scale',
          'deployments/status',
          'ingresses',
          'ingresses/status',
          'networkpolicies',
          'replicasets',
          'replicasets/scale',
          'replicasets/status',
          'replicationcontrollers/scale',
        ],
        READ,
      ),
      r(['policy'], ['poddisruptionbudgets', 'poddisruptionbudgets/status'], READ),
      r(['networking.k8s.io'], ['ingresses', 'ingresses/status', 'networkpolicies'], READ),
      r(['resource.k8s.io'], ['resourceclaims', 'resourceclaims/status', 'resourceclaimtemplates'], READ),
    ],
    { labels: { [TO_VIEW]: 'true' } },
  ),
  clusterRole('system:auth-delegator', [
    r(['authentication.k8s.io'], ['tokenreviews'], ['create']),
    r(['authorization.k8s.io'], ['subjectaccessreviews'], ['create']),
  ]),
  clusterRole('system:basic-user', [
    r(['authorization.k8s.io'], ['selfsubjectaccessreviews', 'selfsubjectrulesreviews'], ['create']),
    r(['authentication.k8s.io'], ['selfsubjectreviews'], ['create']),
  ]),
  clusterRole('system:certificates.k8s.io:kube-apiserver-client-approver', [approve('kubernetes.io/kube-apiserver-client')]),
  clusterRole('system:certificates.k8s.io:kube-apiserver-client-kubelet-approver', [approve('kubernetes.io/kube-apiserver-client-kubelet')]),
  clusterRole('system:certificates.k8s.io:kubelet-serving-approver', [approve('kubernetes.io/kubelet-serving')]),
  clusterRole('system:certificates.k8s.io:legacy-unknown-approver', [approve('kubernetes.io/legacy-unknown')]),
  clusterRole('system:discovery', [
    urls(['/api', '/api/*', '/apis', '/apis/*', '/healthz', '/livez', '/openapi', '/openapi/*', '/readyz', '/version', '/version/'], ['get']),
  ]),
  clusterRole('system:monitoring', [urls(['/healthz', '/healthz/*', '/livez', '/livez/*', '/metrics', '/metrics/slis', '/readyz', '/readyz/*'], ['get'])]),
  clusterRole('system:public-info-viewer', [urls(['/healthz', '/livez', '/readyz', '/version', '/version/'], ['get'])]),
  clusterRole('system:service-account-issuer-discovery', [urls(['/.well-known/openid-configuration', '/openid/v1/jwks'], ['get'])]),
  clusterRole('view', null, { aggregateFrom: TO_VIEW, labels: { [TO_EDIT]: 'true' } }),
];

function clusterRoleBinding(role: string, groups: string[]): KubeObject {
  return {
    apiVersion: RBAC_API_VERSION,
    kind: 'ClusterRoleBinding',
    metadata: { name: role, labels: { ...BOOTSTRAP_LABELS }, annotations: { [AUTO_UPDATE_ANNOTATION]: 'true' } },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role },
    subjects: groups.map((name) => ({ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name })),
  };
}

export const BOOTSTRAP_CLUSTER_ROLE_BINDINGS: KubeObject[] = [
  clusterRoleBinding('cluster-admin', ['system:masters']),
  clusterRoleBinding('system:basic-user', ['system:authenticated']),
  clusterRoleBinding('system:discovery', ['system:authenticated']),
  clusterRoleBinding('system:monitoring', ['system:monitoring']),
  clusterRoleBinding('system:public-info-viewer', ['system:authenticated', 'system:unauthenticated']),
  clusterRoleBinding('system:service-account-issuer-discovery', ['system:serviceaccounts']),
];

/** A Role of the bootstrap policy (kube's testdata/namespace-roles.yaml). */
function role(namespace: string, name: string, rules: PolicyRule[]): KubeObject {
  return {
    apiVersion: RBAC_API_VERSION,
    kind: 'Role',
    metadata: { name, namespace, labels: { ...BOOTSTRAP_LABELS }, annotations: { [AUTO_UPDATE_ANNOTATION]: 'true' } },
    rules,
  };
}

type Subject = { kind: 'User'; apiGroup: string; name: string } | { kind: 'ServiceAccount'; name: string; namespace: string };
const user = (name: string): Subject => ({ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name });
const serviceAccount = (name: string): Subject => ({ kind: 'ServiceAccount', name, namespace: 'kube-system' });

function roleBinding(namespace: string, name: string, roleName: string, subjects: Subject[]): KubeObject {
  return {
    apiVersion: RBAC_API_VERSION,
    kind: 'RoleBinding',
    metadata: { name, namespace, labels: { ...BOOTSTRAP_LABELS }, annotations: { [AUTO_UPDATE_ANNOTATION]: 'true' } },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: roleName },
    subjects,
  };
}

const EVENTS_WRITE = r(['', 'events.k8s.io'], ['events'], ['create', 'patch', 'update']);
const LEADER_LOCKING = [
  r(['coordination.k8s.io'], ['leases'], ['create', 'get', 'list', 'update', 'watch']),
  r(['coordination.k8s.io'], ['leasecandidates'], ['create', 'get', 'list', 'update', 'watch']),
];

export const BOOTSTRAP_ROLES: KubeObject[] = [
  role('kube-public', 'system:controller:bootstrap-signer', [
    r([''], ['configmaps'], READ),
    { apiGroups: [''], resources: ['configmaps'], resourceNames: ['cluster-info'], verbs: ['update'] },
    EVENTS_WRITE,
  ]),
  role('kube-system', 'extension-apiserver-authentication-reader', [
    { apiGroups: [''], resources: ['configmaps'], resourceNames: ['extension-apiserver-authentication'], verbs: READ },
  ]),
  role('kube-system', 'system::leader-locking-kube-controller-manager', LEADER_LOCKING),
  role('kube-system', 'system::leader-locking-kube-scheduler', LEADER_LOCKING),
  role('kube-system', 'system:controller:bootstrap-signer', [r([''], ['secrets'], READ)]),
  role('kube-system', 'system:controller:cloud-provider', [r([''], ['configmaps'], ['create', 'get', 'list', 'watch'])]),
  role('kube-system', 'system:controller:token-cleaner', [r([''], ['secrets'], ['delete', 'get', 'list', 'watch']), EVENTS_WRITE]),
];

export const BOOTSTRAP_ROLE_BINDINGS: KubeObject[] = [
  roleBinding('kube-public', 'system:controller:bootstrap-signer', 'system:controller:bootstrap-signer', [serviceAccount('bootstrap-signer')]),
  roleBinding('kube-system', 'system::extension-apiserver-authentication-reader', 'extension-apiserver-authentication-reader', [
    user('system:kube-controller-manager'),
    user('system:kube-scheduler'),
  ]),
  roleBinding('kube-system', 'system::leader-locking-kube-controller-manager', 'system::leader-locking-kube-controller-manager', [
    user('system:kube-controller-manager'),
    serviceAccount('kube-controller-manager'),
    serviceAccount('leader-election-controller'),
  ]),
  roleBinding('kube-system', 'system::leader-locking-kube-scheduler', 'system::leader-locking-kube-scheduler', [
    user('system:kube-scheduler'),
    serviceAccount('kube-scheduler'),
  ]),
  roleBinding('kube-system', 'system:controller:bootstrap-signer', 'system:controller:bootstrap-signer', [serviceAccount('bootstrap-signer')]),
  roleBinding('kube-system', 'system:controller:cloud-provider', 'system:controller:cloud-provider', [serviceAccount('cloud-provider')]),
  roleBinding('kube-system', 'system:controller:token-cleaner', 'system:controller:token-cleaner', [serviceAccount('token-cleaner')]),
];
