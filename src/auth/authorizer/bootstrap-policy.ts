import type { KubeObject } from '../../api/types';
import type { PolicyRule } from './attributes';
import { CONTROLLER_ROLE_BINDINGS, CONTROLLER_ROLES } from './controller-policy';
import { clusterRole, clusterRoleBinding, EVENTS_WRITE, group, named, role, roleBinding, rule as r, serviceAccount, urls, user } from './policy-objects';

/**
 * kube-apiserver's bootstrap policy (plugin/pkg/auth/authorizer/rbac/bootstrappolicy, as its
 * testdata/cluster-roles.yaml and cluster-role-bindings.yaml print it): the roles every cluster
 * has and who is bound to them, reconciled at every start.
 */

const READ = ['get', 'list', 'watch'];
const WRITE = ['create', 'delete', 'deletecollection', 'patch', 'update'];
const READ_WRITE = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];
const READ_UPDATE = ['get', 'list', 'patch', 'update', 'watch'];
/** The right to approve requests for one signer (certauthorization's `signers` resource), as the unbound approver roles grant it. */
const approve = (signer: string): PolicyRule => ({ apiGroups: ['certificates.k8s.io'], resources: ['signers'], resourceNames: [signer], verbs: ['approve'] });

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
  clusterRole('system:certificates.k8s.io:certificatesigningrequests:nodeclient', [
    r(['certificates.k8s.io'], ['certificatesigningrequests/nodeclient'], ['create']),
  ]),
  clusterRole('system:certificates.k8s.io:certificatesigningrequests:selfnodeclient', [
    r(['certificates.k8s.io'], ['certificatesigningrequests/selfnodeclient'], ['create']),
  ]),
  clusterRole('system:certificates.k8s.io:kube-apiserver-client-approver', [approve('kubernetes.io/kube-apiserver-client')]),
  clusterRole('system:certificates.k8s.io:kube-apiserver-client-kubelet-approver', [approve('kubernetes.io/kube-apiserver-client-kubelet')]),
  clusterRole('system:certificates.k8s.io:kubelet-serving-approver', [approve('kubernetes.io/kubelet-serving')]),
  clusterRole('system:certificates.k8s.io:legacy-unknown-approver', [approve('kubernetes.io/legacy-unknown')]),
  clusterRole('system:discovery', [
    urls(['/api', '/api/*', '/apis', '/apis/*', '/healthz', '/livez', '/openapi', '/openapi/*', '/readyz', '/version', '/version/'], ['get']),
  ]),
  clusterRole('system:heapster', [r([''], ['events', 'namespaces', 'nodes', 'pods'], READ), r(['extensions'], ['deployments'], READ)]),
  clusterRole('system:kube-aggregator', [r([''], ['endpoints', 'services'], READ)]),
  clusterRole('system:kube-controller-manager', [
    EVENTS_WRITE,
    r(['coordination.k8s.io'], ['leases'], ['create']),
    named(['coordination.k8s.io'], ['leases'], ['kube-controller-manager'], ['get', 'update']),
    r([''], ['secrets', 'serviceaccounts'], ['create']),
    r([''], ['secrets'], ['delete']),
    r([''], ['configmaps', 'namespaces', 'secrets', 'serviceaccounts'], ['get']),
    r([''], ['secrets', 'serviceaccounts'], ['update']),
    r(['authentication.k8s.io'], ['tokenreviews'], ['create']),
    r(['authorization.k8s.io'], ['subjectaccessreviews'], ['create']),
    r(['*'], ['*'], ['list', 'watch']),
    r([''], ['serviceaccounts/token'], ['create']),
  ]),
  clusterRole('system:kube-dns', [r([''], ['endpoints', 'services'], ['list', 'watch'])]),
  clusterRole('system:kube-scheduler', [
    EVENTS_WRITE,
    r(['coordination.k8s.io'], ['leases'], ['create']),
    named(['coordination.k8s.io'], ['leases'], ['kube-scheduler'], ['get', 'update']),
    r([''], ['nodes'], READ),
    r([''], ['pods'], ['delete', 'get', 'list', 'watch']),
    r([''], ['bindings', 'pods/binding'], ['create']),
    r([''], ['pods/status'], ['patch', 'update']),
    r([''], ['replicationcontrollers', 'services'], READ),
    r(['apps', 'extensions'], ['replicasets'], READ),
    r(['apps'], ['statefulsets'], READ),
    r(['policy'], ['poddisruptionbudgets'], READ),
    r([''], ['persistentvolumeclaims', 'persistentvolumes'], READ),
    r(['authentication.k8s.io'], ['tokenreviews'], ['create']),
    r(['authorization.k8s.io'], ['subjectaccessreviews'], ['create']),
    r(['storage.k8s.io'], ['csinodes'], READ),
    r(['storage.k8s.io'], ['volumeattachments'], READ),
    r([''], ['namespaces'], READ),
    r(['storage.k8s.io'], ['csidrivers'], READ),
    r(['storage.k8s.io'], ['csistoragecapacities'], READ),
    // DynamicResourceAllocation (on by default since 1.34).
    r(['resource.k8s.io'], ['deviceclasses'], READ),
    r(['resource.k8s.io'], ['resourceclaims'], READ_UPDATE),
    r(['resource.k8s.io'], ['resourceclaims/status'], READ_UPDATE),
    r([''], ['pods/finalizers'], READ_UPDATE),
    r(['resource.k8s.io'], ['resourceslices'], READ),
  ]),
  clusterRole('system:kubelet-api-admin', [
    r([''], ['nodes'], READ),
    r([''], ['nodes'], ['proxy']),
    r([''], ['nodes/log', 'nodes/metrics', 'nodes/proxy', 'nodes/stats'], ['*']),
    // KubeletFineGrainedAuthz (on by default since 1.33).
    r([''], ['nodes/configz', 'nodes/healthz', 'nodes/pods'], ['*']),
  ]),
  clusterRole('system:monitoring', [
    urls(['/healthz', '/healthz/*', '/livez', '/livez/*', '/metrics', '/metrics/slis', '/readyz', '/readyz/*'], ['get']),
    // ComponentFlagz and ComponentStatusz (beta, on by default since 1.36).
    urls(['/flagz'], ['get']),
    urls(['/statusz'], ['get']),
  ]),
  clusterRole('system:node', [
    r(['authentication.k8s.io'], ['tokenreviews'], ['create']),
    r(['authorization.k8s.io'], ['localsubjectaccessreviews', 'subjectaccessreviews'], ['create']),
    r([''], ['services'], READ),
    r([''], ['nodes'], ['create', 'get', 'list', 'watch']),
    r([''], ['nodes/status'], ['patch', 'update']),
    r([''], ['nodes'], ['patch', 'update']),
    r([''], ['events'], ['create', 'patch', 'update']),
    r([''], ['pods'], READ),
    r([''], ['pods'], ['create', 'delete']),
    r([''], ['pods/status'], ['patch', 'update']),
    r([''], ['pods/eviction'], ['create']),
    r([''], ['configmaps', 'secrets'], READ),
    r([''], ['persistentvolumeclaims', 'persistentvolumes'], ['get']),
    r([''], ['endpoints'], ['get']),
    r(['certificates.k8s.io'], ['certificatesigningrequests'], ['create', 'get', 'list', 'watch']),
    r(['coordination.k8s.io'], ['leases'], ['create', 'delete', 'get', 'patch', 'update']),
    r(['storage.k8s.io'], ['volumeattachments'], ['get']),
    r([''], ['serviceaccounts/token'], ['create']),
    r([''], ['persistentvolumeclaims/status'], ['get', 'patch', 'update']),
    r(['storage.k8s.io'], ['csidrivers'], READ),
    r(['storage.k8s.io'], ['csinodes'], ['create', 'delete', 'get', 'patch', 'update']),
    r(['node.k8s.io'], ['runtimeclasses'], READ),
    // DynamicResourceAllocation (on by default since 1.34).
    r(['resource.k8s.io'], ['resourceclaims'], ['get']),
    r(['resource.k8s.io'], ['resourceslices'], ['deletecollection']),
  ]),
  clusterRole('system:node-bootstrapper', [r(['certificates.k8s.io'], ['certificatesigningrequests'], ['create', 'get', 'list', 'watch'])]),
  clusterRole('system:node-problem-detector', [r([''], ['nodes'], ['get']), r([''], ['nodes/status'], ['patch']), EVENTS_WRITE]),
  clusterRole('system:node-proxier', [
    r([''], ['endpoints', 'services'], ['list', 'watch']),
    r([''], ['nodes'], READ),
    EVENTS_WRITE,
    // MultiCIDRServiceAllocator (GA since 1.33).
    r(['networking.k8s.io'], ['servicecidrs'], ['list', 'watch']),
    r(['discovery.k8s.io'], ['endpointslices'], ['list', 'watch']),
  ]),
  clusterRole('system:persistent-volume-provisioner', [
    r([''], ['persistentvolumes'], ['create', 'delete', 'get', 'list', 'watch']),
    r([''], ['persistentvolumeclaims'], ['get', 'list', 'update', 'watch']),
    r(['storage.k8s.io'], ['storageclasses'], READ),
    r([''], ['events'], ['watch']),
    EVENTS_WRITE,
  ]),
  clusterRole('system:public-info-viewer', [urls(['/healthz', '/livez', '/readyz', '/version', '/version/'], ['get'])]),
  clusterRole('system:service-account-issuer-discovery', [urls(['/.well-known/openid-configuration', '/openid/v1/jwks'], ['get'])]),
  clusterRole('system:volume-scheduler', [
    r([''], ['persistentvolumes'], ['get', 'list', 'patch', 'update', 'watch']),
    r(['storage.k8s.io'], ['storageclasses'], READ),
    r([''], ['persistentvolumeclaims'], ['get', 'list', 'patch', 'update', 'watch']),
  ]),
  clusterRole('view', null, { aggregateFrom: TO_VIEW, labels: { [TO_EDIT]: 'true' } }),
  ...CONTROLLER_ROLES,
];

export const BOOTSTRAP_CLUSTER_ROLE_BINDINGS: KubeObject[] = [
  clusterRoleBinding('cluster-admin', [group('system:masters')]),
  clusterRoleBinding('system:basic-user', [group('system:authenticated')]),
  clusterRoleBinding('system:discovery', [group('system:authenticated')]),
  clusterRoleBinding('system:kube-controller-manager', [user('system:kube-controller-manager')]),
  clusterRoleBinding('system:kube-dns', [serviceAccount('kube-dns')]),
  clusterRoleBinding('system:kube-scheduler', [user('system:kube-scheduler')]),
  clusterRoleBinding('system:monitoring', [group('system:monitoring')]),
  clusterRoleBinding('system:node', null),
  clusterRoleBinding('system:node-proxier', [user('system:kube-proxy')]),
  clusterRoleBinding('system:public-info-viewer', [group('system:authenticated'), group('system:unauthenticated')]),
  clusterRoleBinding('system:service-account-issuer-discovery', [group('system:serviceaccounts')]),
  clusterRoleBinding('system:volume-scheduler', [user('system:kube-scheduler')]),
  ...CONTROLLER_ROLE_BINDINGS,
];

const LEADER_LOCKING = [
  r(['coordination.k8s.io'], ['leases'], ['create', 'get', 'list', 'update', 'watch']),
  r(['coordination.k8s.io'], ['leasecandidates'], ['create', 'get', 'list', 'update', 'watch']),
];

export const BOOTSTRAP_ROLES: KubeObject[] = [
  role('kube-public', 'system:controller:bootstrap-signer', [
    r([''], ['configmaps'], READ),
    named([''], ['configmaps'], ['cluster-info'], ['update']),
    EVENTS_WRITE,
  ]),
  role('kube-system', 'extension-apiserver-authentication-reader', [named([''], ['configmaps'], ['extension-apiserver-authentication'], READ)]),
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
