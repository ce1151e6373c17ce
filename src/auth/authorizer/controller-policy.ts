import type { KubeObject } from '../../api/types';
import type { PolicyRule } from './attributes';
import { clusterRole, clusterRoleBinding, EVENTS_WRITE, named, rule as r, serviceAccount } from './policy-objects';

/**
 * kube-controller-manager's per-controller roles (bootstrappolicy/controller_policy.go, as
 * testdata/controller-roles.yaml prints them with 1.36's default feature gates): each
 * `system:controller:<name>` ClusterRole is bound to the `<name>` ServiceAccount in kube-system,
 * the identity kube-controller-manager's --use-service-account-credentials gives that controller.
 */

const READ = ['get', 'list', 'watch'];
const LIST_WATCH = ['list', 'watch'];
const UPDATE = ['update'];
const PATCH_UPDATE = ['patch', 'update'];
const CORE = [''];
const APPS_EXTENSIONS = ['apps', 'extensions'];

const CONTROLLER_RULES: Record<string, PolicyRule[]> = {
  'attachdetach-controller': [
    r(CORE, ['persistentvolumeclaims', 'persistentvolumes'], LIST_WATCH),
    r(CORE, ['nodes'], READ),
    r(CORE, ['nodes/status'], PATCH_UPDATE),
    r(CORE, ['pods'], LIST_WATCH),
    EVENTS_WRITE,
    r(['storage.k8s.io'], ['volumeattachments'], ['create', 'delete', 'get', 'list', 'watch']),
    r(['storage.k8s.io'], ['csidrivers'], READ),
    r(['storage.k8s.io'], ['csinodes'], READ),
  ],
  'certificate-controller': [
    r(['certificates.k8s.io'], ['certificatesigningrequests'], ['delete', 'get', 'list', 'watch']),
    r(['certificates.k8s.io'], ['certificatesigningrequests/approval', 'certificatesigningrequests/status'], UPDATE),
    named(['certificates.k8s.io'], ['signers'], ['kubernetes.io/kube-apiserver-client-kubelet'], ['approve']),
    named(
      ['certificates.k8s.io'],
      ['signers'],
      ['kubernetes.io/kube-apiserver-client', 'kubernetes.io/kube-apiserver-client-kubelet', 'kubernetes.io/kubelet-serving', 'kubernetes.io/legacy-unknown'],
      ['sign'],
    ),
    r(['authorization.k8s.io'], ['subjectaccessreviews'], ['create']),
    EVENTS_WRITE,
  ],
  'clusterrole-aggregation-controller': [r(['rbac.authorization.k8s.io'], ['clusterroles'], ['escalate', 'get', 'list', 'patch', 'update', 'watch'])],
  'cronjob-controller': [
    r(['batch'], ['cronjobs'], ['get', 'list', 'update', 'watch']),
    r(['batch'], ['jobs'], ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch']),
    r(['batch'], ['cronjobs/status'], UPDATE),
    r(['batch'], ['cronjobs/finalizers'], UPDATE),
    r(CORE, ['pods'], ['delete', 'list', 'watch']),
    EVENTS_WRITE,
  ],
  'daemon-set-controller': [
    r(APPS_EXTENSIONS, ['daemonsets'], READ),
    r(APPS_EXTENSIONS, ['daemonsets/status'], UPDATE),
    r(APPS_EXTENSIONS, ['daemonsets/finalizers'], UPDATE),
    r(CORE, ['nodes'], LIST_WATCH),
    r(CORE, ['pods'], ['create', 'delete', 'list', 'patch', 'watch']),
    r(CORE, ['pods/binding'], ['create']),
    r(['apps'], ['controllerrevisions'], ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch']),
    EVENTS_WRITE,
  ],
  'deployment-controller': [
    r(APPS_EXTENSIONS, ['deployments'], ['get', 'list', 'update', 'watch']),
    r(APPS_EXTENSIONS, ['deployments/status'], UPDATE),
    r(APPS_EXTENSIONS, ['deployments/finalizers'], UPDATE),
    r(APPS_EXTENSIONS, ['replicasets'], ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch']),
    r(CORE, ['pods'], ['get', 'list', 'update', 'watch']),
    EVENTS_WRITE,
  ],
  // DRADeviceTaints (beta and on by default since 1.36); the devicetaintrules rules are DRADeviceTaintRules', off in 1.36.
  'device-taint-eviction-controller': [
    r(CORE, ['pods'], ['delete', 'get', 'list', 'watch']),
    r(CORE, ['pods/status'], PATCH_UPDATE),
    r(['resource.k8s.io'], ['resourceclaims'], READ),
    r(['resource.k8s.io'], ['resourceslices'], READ),
    r(['resource.k8s.io'], ['deviceclasses'], READ),
    EVENTS_WRITE,
  ],
  'disruption-controller': [
    r(APPS_EXTENSIONS, ['deployments'], READ),
    r(APPS_EXTENSIONS, ['replicasets'], READ),
    r(CORE, ['replicationcontrollers'], READ),
    r(['policy'], ['poddisruptionbudgets'], READ),
    r(['apps'], ['statefulsets'], READ),
    r(['policy'], ['poddisruptionbudgets/status'], UPDATE),
    r(CORE, ['pods/status'], PATCH_UPDATE),
    r(['*'], ['*/scale'], ['get']),
    EVENTS_WRITE,
  ],
  'endpoint-controller': [
    r(CORE, ['pods', 'services'], READ),
    r(CORE, ['endpoints'], ['create', 'delete', 'get', 'list', 'update', 'watch']),
    r(CORE, ['endpoints/restricted'], ['create']),
    EVENTS_WRITE,
  ],
  'endpointslice-controller': [
    r(CORE, ['nodes', 'pods', 'services'], READ),
    r(CORE, ['services/finalizers'], UPDATE),
    r(['discovery.k8s.io'], ['endpointslices'], ['create', 'delete', 'get', 'list', 'update', 'watch']),
    EVENTS_WRITE,
  ],
  'endpointslicemirroring-controller': [
    r(CORE, ['endpoints', 'services'], READ),
    r(CORE, ['services/finalizers'], UPDATE),
    r(CORE, ['endpoints/finalizers'], UPDATE),
    r(['discovery.k8s.io'], ['endpointslices'], ['create', 'delete', 'get', 'list', 'update', 'watch']),
    EVENTS_WRITE,
  ],
  'ephemeral-volume-controller': [
    r(CORE, ['pods'], READ),
    r(CORE, ['pods/finalizers'], UPDATE),
    r(CORE, ['persistentvolumeclaims'], ['create', 'get', 'list', 'watch']),
    EVENTS_WRITE,
  ],
  'expand-controller': [
    r(CORE, ['persistentvolumes'], ['get', 'list', 'patch', 'update', 'watch']),
    r(CORE, ['persistentvolumeclaims/status'], PATCH_UPDATE),
    r(CORE, ['persistentvolumeclaims'], READ),
    EVENTS_WRITE,
  ],
  'generic-garbage-collector': [r(['*'], ['*'], ['delete', 'get', 'list', 'patch', 'update', 'watch']), EVENTS_WRITE],
  'horizontal-pod-autoscaler': [
    r(['autoscaling'], ['horizontalpodautoscalers'], READ),
    r(['autoscaling'], ['horizontalpodautoscalers/status'], UPDATE),
    r(['*'], ['*/scale'], ['get', 'update']),
    r(CORE, ['pods'], LIST_WATCH),
    r(['metrics.k8s.io'], ['pods'], LIST_WATCH),
    r(['custom.metrics.k8s.io'], ['*'], READ),
    r(['external.metrics.k8s.io'], ['*'], READ),
    EVENTS_WRITE,
  ],
  'job-controller': [
    r(['batch'], ['jobs'], ['get', 'list', 'patch', 'update', 'watch']),
    r(['batch'], ['jobs/status'], UPDATE),
    r(['batch'], ['jobs/finalizers'], UPDATE),
    r(CORE, ['pods'], ['create', 'delete', 'list', 'patch', 'watch']),
    EVENTS_WRITE,
  ],
  'legacy-service-account-token-cleaner': [
    named(CORE, ['configmaps'], ['kube-apiserver-legacy-service-account-token-tracking'], ['get']),
    r(CORE, ['secrets'], ['delete', 'patch']),
  ],
  'namespace-controller': [
    r(CORE, ['namespaces'], ['delete', 'get', 'list', 'watch']),
    r(CORE, ['namespaces/finalize', 'namespaces/status'], UPDATE),
    r(['*'], ['*'], ['delete', 'deletecollection', 'get', 'list', 'watch']),
  ],
  'node-controller': [
    r(CORE, ['nodes'], ['delete', 'get', 'list', 'patch', 'update', 'watch']),
    r(CORE, ['nodes/status'], PATCH_UPDATE),
    r(CORE, ['pods/status'], PATCH_UPDATE),
    r(CORE, ['pods'], ['delete', 'get', 'list', 'watch']),
    EVENTS_WRITE,
  ],
  'persistent-volume-binder': [
    r(CORE, ['persistentvolumes'], ['create', 'delete', 'get', 'list', 'update', 'watch']),
    r(CORE, ['persistentvolumes/status'], UPDATE),
    r(CORE, ['persistentvolumeclaims'], ['get', 'list', 'update', 'watch']),
    r(CORE, ['persistentvolumeclaims/status'], UPDATE),
    r(CORE, ['pods'], ['create', 'delete', 'get', 'list', 'watch']),
    r(['storage.k8s.io'], ['storageclasses'], READ),
    r(CORE, ['nodes'], LIST_WATCH),
    EVENTS_WRITE,
    r(CORE, ['events'], ['watch']),
  ],
  'pod-garbage-collector': [r(CORE, ['pods'], ['delete', 'list', 'watch']), r(CORE, ['nodes'], READ), r(CORE, ['pods/status'], ['patch'])],
  'pv-protection-controller': [r(CORE, ['persistentvolumes'], ['get', 'list', 'update', 'watch']), EVENTS_WRITE],
  'pvc-protection-controller': [
    r(CORE, ['persistentvolumeclaims'], ['get', 'list', 'update', 'watch']),
    r(CORE, ['persistentvolumeclaims/status'], UPDATE),
    r(CORE, ['pods'], READ),
    EVENTS_WRITE,
  ],
  'replicaset-controller': [
    r(APPS_EXTENSIONS, ['replicasets'], ['get', 'list', 'update', 'watch']),
    r(APPS_EXTENSIONS, ['replicasets/status'], UPDATE),
    r(APPS_EXTENSIONS, ['replicasets/finalizers'], UPDATE),
    r(CORE, ['pods'], ['create', 'delete', 'list', 'patch', 'watch']),
    EVENTS_WRITE,
  ],
  'replication-controller': [
    r(CORE, ['replicationcontrollers'], ['get', 'list', 'update', 'watch']),
    r(CORE, ['replicationcontrollers/status'], UPDATE),
    r(CORE, ['replicationcontrollers/finalizers'], UPDATE),
    r(CORE, ['pods'], ['create', 'delete', 'list', 'patch', 'watch']),
    EVENTS_WRITE,
  ],
  // DynamicResourceAllocation (GA in 1.34); resourceclaims/binding is DRAResourceClaimGranularStatusAuthorization's (beta and on by default in 1.36).
  'resource-claim-controller': [
    r(CORE, ['pods'], READ),
    r(CORE, ['pods/finalizers'], UPDATE),
    r(['resource.k8s.io'], ['resourceclaims'], ['create', 'delete', 'get', 'list', 'watch']),
    r(['resource.k8s.io'], ['resourceclaims', 'resourceclaims/status'], PATCH_UPDATE),
    r(CORE, ['pods/status'], PATCH_UPDATE),
    EVENTS_WRITE,
    r(['resource.k8s.io'], ['resourceclaims/binding'], PATCH_UPDATE),
  ],
  'resourcequota-controller': [r(['*'], ['*'], LIST_WATCH), r(CORE, ['resourcequotas/status'], UPDATE), EVENTS_WRITE],
  'root-ca-cert-publisher': [r(CORE, ['configmaps'], ['create', 'update']), EVENTS_WRITE],
  'route-controller': [r(CORE, ['nodes'], LIST_WATCH), r(CORE, ['nodes/status'], ['patch']), EVENTS_WRITE],
  'selinux-warning-controller': [
    EVENTS_WRITE,
    r(CORE, ['persistentvolumes'], READ),
    r(CORE, ['persistentvolumeclaims'], READ),
    r(CORE, ['pods'], READ),
    r(['storage.k8s.io'], ['csidrivers'], READ),
  ],
  'service-account-controller': [r(CORE, ['serviceaccounts'], ['create']), EVENTS_WRITE],
  'service-cidrs-controller': [
    r(['networking.k8s.io'], ['servicecidrs'], ['get', 'list', 'patch', 'update', 'watch']),
    r(['networking.k8s.io'], ['servicecidrs/finalizers'], PATCH_UPDATE),
    r(['networking.k8s.io'], ['servicecidrs/status'], PATCH_UPDATE),
    r(['networking.k8s.io'], ['ipaddresses'], READ),
    EVENTS_WRITE,
  ],
  'service-controller': [r(CORE, ['services'], READ), r(CORE, ['services/status'], PATCH_UPDATE), r(CORE, ['nodes'], LIST_WATCH), EVENTS_WRITE],
  'statefulset-controller': [
    r(CORE, ['pods'], LIST_WATCH),
    r(['apps'], ['statefulsets'], READ),
    r(['apps'], ['statefulsets/status'], UPDATE),
    r(['apps'], ['statefulsets/finalizers'], UPDATE),
    r(CORE, ['pods'], ['create', 'delete', 'get', 'patch', 'update']),
    r(['apps'], ['controllerrevisions'], ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch']),
    r(CORE, ['persistentvolumeclaims'], ['create', 'get', 'list', 'watch']),
    r(CORE, ['persistentvolumeclaims'], ['delete', 'update']),
    r(CORE, ['pods/finalizers'], UPDATE),
    EVENTS_WRITE,
  ],
  'ttl-after-finished-controller': [r(['batch'], ['jobs'], ['delete', 'get', 'list', 'watch']), EVENTS_WRITE],
  'ttl-controller': [r(CORE, ['nodes'], ['list', 'patch', 'update', 'watch']), EVENTS_WRITE],
  'validatingadmissionpolicy-status-controller': [
    r(['admissionregistration.k8s.io'], ['validatingadmissionpolicies'], READ),
    r(['admissionregistration.k8s.io'], ['validatingadmissionpolicies/status'], ['get', 'patch', 'update']),
    EVENTS_WRITE,
  ],
  'volumeattributesclass-protection-controller': [
    r(CORE, ['persistentvolumeclaims'], READ),
    r(CORE, ['persistentvolumes'], READ),
    r(['storage.k8s.io'], ['volumeattributesclasses'], ['get', 'list', 'update', 'watch']),
    EVENTS_WRITE,
  ],
};

const CONTROLLER_PREFIX = 'system:controller:';

export const CONTROLLER_ROLES: KubeObject[] = Object.entries(CONTROLLER_RULES).map(([name, rules]) => clusterRole(CONTROLLER_PREFIX + name, rules));

export const CONTROLLER_ROLE_BINDINGS: KubeObject[] = Object.keys(CONTROLLER_RULES).map((name) =>
  clusterRoleBinding(CONTROLLER_PREFIX + name, [serviceAccount(name)]),
);
