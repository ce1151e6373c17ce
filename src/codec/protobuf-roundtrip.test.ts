import { BUILT_IN_RESOURCES } from '../resources';

/**
 * Kinds with a .proto message (CRDs are served in JSON and YAML only), one version each: versions
 * converted from another (autoscaling/v1 HPAs, events.k8s.io/v1 Events) have their own tests.
 */
// One object per kind: a version served over another's storage (a conversion, or v1beta1 MutatingAdmissionPolicies stored as v1) is that kind again.
const PROTO_KINDS = BUILT_IN_RESOURCES.filter((d) => !d.ownSchema && !d.conversion && !d.storageApiVersion);
import { decodeProtobuf } from './protobuf';
import { encodeProtobuf, messageTypeOf } from './protobuf-write';

/** Objects of every built-in kind, as kube-apiserver would print them in JSON. */
const meta = (name: string, namespaced = true) => ({
  name,
  ...(namespaced ? { namespace: 'default' } : {}),
  uid: '0b1c2d3e-0000-4000-8000-000000000001',
  resourceVersion: '42',
  generation: 3,
  creationTimestamp: '2024-05-06T07:08:09Z',
  labels: { app: 'web', tier: 'front' },
  annotations: { note: 'x' },
  ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web-1', uid: 'owner-uid', controller: true, blockOwnerDeletion: true }],
  finalizers: ['example.com/f'],
  managedFields: [
    {
      manager: 'kubectl',
      operation: 'Update',
      apiVersion: 'v1',
      time: '2024-05-06T07:08:09Z',
      fieldsType: 'FieldsV1',
      fieldsV1: { 'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } } },
    },
  ],
});

const podSpec = {
  volumes: [
    { name: 'cfg', configMap: { name: 'cfg', defaultMode: 420 } },
    { name: 'tmp', emptyDir: { sizeLimit: '1Gi' } },
  ],
  initContainers: [
    {
      name: 'init',
      image: 'busybox',
      command: ['sh', '-c', 'true'],
      resources: {},
      terminationMessagePath: '/dev/termination-log',
      terminationMessagePolicy: 'File',
      imagePullPolicy: 'Always',
    },
  ],
  containers: [
    {
      name: 'nginx',
      image: 'nginx:1.27',
      args: ['-g', 'daemon off;'],
      ports: [{ name: 'http', containerPort: 80, protocol: 'TCP' }],
      env: [
        { name: 'A', value: '1' },
        { name: 'POD', valueFrom: { fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.name' } } },
      ],
      resources: { limits: { cpu: '500m', memory: '128Mi' }, requests: { cpu: '250m' } },
      volumeMounts: [{ name: 'cfg', readOnly: true, mountPath: '/etc/cfg' }],
      livenessProbe: { httpGet: { path: '/', port: 'http', scheme: 'HTTP' }, timeoutSeconds: 1, periodSeconds: 10, successThreshold: 1, failureThreshold: 3 },
      readinessProbe: { tcpSocket: { port: 80 }, timeoutSeconds: 1, periodSeconds: 10, successThreshold: 1, failureThreshold: 3 },
      terminationMessagePath: '/dev/termination-log',
      terminationMessagePolicy: 'File',
      imagePullPolicy: 'IfNotPresent',
      securityContext: { runAsNonRoot: true, runAsUser: 1000, allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } },
    },
  ],
  restartPolicy: 'Always',
  terminationGracePeriodSeconds: 30,
  dnsPolicy: 'ClusterFirst',
  nodeSelector: { 'kubernetes.io/os': 'linux' },
  serviceAccountName: 'default',
  serviceAccount: 'default',
  securityContext: { fsGroup: 2000 },
  affinity: {
    nodeAffinity: {
      requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'zone', operator: 'In', values: ['a', 'b'] }] }] },
    },
  },
  schedulerName: 'default-scheduler',
  tolerations: [{ key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 }],
  priority: 0,
  enableServiceLinks: true,
  preemptionPolicy: 'PreemptLowerPriority',
  topologySpreadConstraints: [{ maxSkew: 1, topologyKey: 'zone', whenUnsatisfiable: 'DoNotSchedule', labelSelector: { matchLabels: { app: 'web' } } }],
};

const template = { metadata: { labels: { app: 'web' } }, spec: podSpec };
const selector = { matchLabels: { app: 'web' }, matchExpressions: [{ key: 'tier', operator: 'In', values: ['front'] }] };

const OBJECTS: Record<string, Record<string, unknown>> = {
  Namespace: { apiVersion: 'v1', kind: 'Namespace', metadata: meta('team', false), spec: { finalizers: ['kubernetes'] }, status: { phase: 'Active' } },
  Node: {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: meta('node-1', false),
    spec: { podCIDR: '10.0.0.0/24', podCIDRs: ['10.0.0.0/24'], taints: [{ key: 'k', value: 'v', effect: 'NoSchedule' }], unschedulable: true },
    status: {
      capacity: { cpu: '4', memory: '16Gi', pods: '110' },
      allocatable: { cpu: '3800m', memory: '15Gi', pods: '110' },
      conditions: [
        {
          type: 'Ready',
          status: 'True',
          lastHeartbeatTime: '2024-05-06T07:08:09Z',
          lastTransitionTime: '2024-05-06T07:00:00Z',
          reason: 'KubeletReady',
          message: 'ok',
        },
      ],
      addresses: [{ type: 'InternalIP', address: '10.1.2.3' }],
      daemonEndpoints: { kubeletEndpoint: { Port: 10250 } },
      nodeInfo: {
        machineID: 'm',
        systemUUID: 's',
        bootID: 'b',
        kernelVersion: '6.1',
        osImage: 'Debian',
        containerRuntimeVersion: 'containerd://1.7',
        kubeletVersion: 'v1.34.0',
        kubeProxyVersion: '',
        operatingSystem: 'linux',
        architecture: 'amd64',
      },
      images: [{ names: ['nginx:1.27'], sizeBytes: 70000000 }],
    },
  },
  Pod: {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { ...meta('web-1'), deletionTimestamp: '2024-05-06T08:00:00Z', deletionGracePeriodSeconds: 0 },
    spec: { ...podSpec, nodeName: 'node-1' },
    status: {
      phase: 'Running',
      conditions: [{ type: 'Ready', status: 'True', lastProbeTime: null, lastTransitionTime: '2024-05-06T07:08:10Z' }],
      hostIP: '10.1.2.3',
      hostIPs: [{ ip: '10.1.2.3' }],
      podIP: '10.0.0.5',
      podIPs: [{ ip: '10.0.0.5' }],
      startTime: '2024-05-06T07:08:09Z',
      containerStatuses: [
        {
          name: 'nginx',
          state: { running: { startedAt: '2024-05-06T07:08:10Z' } },
          lastState: { terminated: { exitCode: 137, reason: 'OOMKilled', startedAt: '2024-05-06T07:00:00Z', finishedAt: '2024-05-06T07:05:00Z' } },
          ready: true,
          restartCount: 2,
          image: 'nginx:1.27',
          imageID: 'docker.io/library/nginx@sha256:abc',
          containerID: 'containerd://123',
          started: true,
        },
      ],
      qosClass: 'Burstable',
    },
  },
  Service: {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: meta('svc'),
    spec: {
      ports: [
        { name: 'http', protocol: 'TCP', port: 80, targetPort: 'http', nodePort: 30080 },
        { name: 'alt', protocol: 'TCP', port: 8080, targetPort: 8080 },
      ],
      selector: { app: 'web' },
      clusterIP: '10.96.0.10',
      clusterIPs: ['10.96.0.10'],
      type: 'NodePort',
      sessionAffinity: 'None',
      externalTrafficPolicy: 'Cluster',
      ipFamilies: ['IPv4'],
      ipFamilyPolicy: 'SingleStack',
      internalTrafficPolicy: 'Cluster',
    },
    status: { loadBalancer: {} },
  },
  ConfigMap: { apiVersion: 'v1', kind: 'ConfigMap', metadata: meta('cfg'), data: { 'a.txt': 'hello\n', b: '' }, binaryData: { bin: 'AAEC' }, immutable: true },
  Secret: { apiVersion: 'v1', kind: 'Secret', metadata: meta('sec'), data: { password: 'aHVudGVyMg==' }, type: 'Opaque' },
  ServiceAccount: {
    apiVersion: 'v1',
    kind: 'ServiceAccount',
    metadata: meta('sa'),
    secrets: [{ name: 'sa-token' }],
    imagePullSecrets: [{ name: 'reg' }],
    automountServiceAccountToken: false,
  },
  Event: {
    apiVersion: 'v1',
    kind: 'Event',
    metadata: meta('web-1.17'),
    involvedObject: { kind: 'Pod', namespace: 'default', name: 'web-1', uid: 'u', apiVersion: 'v1', resourceVersion: '41' },
    reason: 'Scheduled',
    message: 'Successfully assigned',
    source: { component: 'default-scheduler' },
    firstTimestamp: '2024-05-06T07:08:09Z',
    lastTimestamp: '2024-05-06T07:08:09Z',
    count: 1,
    type: 'Normal',
    eventTime: '2024-05-06T07:08:09.123456Z',
    reportingComponent: 'default-scheduler',
    reportingInstance: 'sched-1',
  },
  Endpoints: {
    apiVersion: 'v1',
    kind: 'Endpoints',
    metadata: meta('svc'),
    subsets: [
      {
        addresses: [{ ip: '10.0.0.5', nodeName: 'node-1', targetRef: { kind: 'Pod', namespace: 'default', name: 'web-1', uid: 'u' } }],
        ports: [{ name: 'http', port: 80, protocol: 'TCP' }],
      },
    ],
  },
  Deployment: {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: meta('web'),
    spec: {
      replicas: 3,
      selector,
      template,
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '25%', maxSurge: 1 } },
      revisionHistoryLimit: 10,
      progressDeadlineSeconds: 600,
    },
    status: {
      observedGeneration: 3,
      replicas: 3,
      updatedReplicas: 3,
      readyReplicas: 2,
      availableReplicas: 2,
      unavailableReplicas: 1,
      conditions: [
        {
          type: 'Available',
          status: 'True',
          lastUpdateTime: '2024-05-06T07:08:09Z',
          lastTransitionTime: '2024-05-06T07:08:09Z',
          reason: 'MinimumReplicasAvailable',
          message: 'ok',
        },
      ],
    },
  },
  ReplicaSet: {
    apiVersion: 'apps/v1',
    kind: 'ReplicaSet',
    metadata: meta('web-1'),
    spec: { replicas: 0, selector, template },
    status: { replicas: 0, observedGeneration: 1 },
  },
  StatefulSet: {
    apiVersion: 'apps/v1',
    kind: 'StatefulSet',
    metadata: meta('db'),
    spec: {
      replicas: 1,
      selector,
      template,
      volumeClaimTemplates: [
        // TypeMeta of an embedded object has no protobuf field.
        {
          metadata: { name: 'data' },
          spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } }, volumeMode: 'Filesystem' },
          status: { phase: 'Pending' },
        },
      ],
      serviceName: 'db',
      podManagementPolicy: 'OrderedReady',
      updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: 0 } },
      revisionHistoryLimit: 10,
      persistentVolumeClaimRetentionPolicy: { whenDeleted: 'Retain', whenScaled: 'Retain' },
    },
    status: {
      replicas: 1,
      readyReplicas: 1,
      currentReplicas: 1,
      updatedReplicas: 1,
      currentRevision: 'db-1',
      updateRevision: 'db-1',
      collisionCount: 0,
      availableReplicas: 1,
    },
  },
  DaemonSet: {
    apiVersion: 'apps/v1',
    kind: 'DaemonSet',
    metadata: meta('agent'),
    spec: { selector, template, updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1, maxSurge: 0 } }, revisionHistoryLimit: 10 },
    status: { currentNumberScheduled: 1, numberMisscheduled: 0, desiredNumberScheduled: 1, numberReady: 1 },
  },
  Job: {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: meta('pi'),
    spec: {
      parallelism: 2,
      completions: 4,
      activeDeadlineSeconds: 600,
      selector,
      manualSelector: true,
      template: { ...template, spec: { ...template.spec, restartPolicy: 'Never' } },
      backoffLimit: 0,
      completionMode: 'Indexed',
      suspend: false,
      podFailurePolicy: {
        rules: [
          { action: 'FailJob', onExitCodes: { containerName: 'web', operator: 'In', values: [1, 42] } },
          { action: 'Ignore', onPodConditions: [{ type: 'DisruptionTarget', status: 'True' }] },
        ],
      },
      backoffLimitPerIndex: 1,
      maxFailedIndexes: 0,
      podReplacementPolicy: 'Failed',
      managedBy: 'kubernetes.io/job-controller',
      successPolicy: { rules: [{ succeededIndexes: '0-2', succeededCount: 1 }] },
    },
    status: {
      conditions: [
        {
          type: 'Complete',
          status: 'True',
          lastProbeTime: '2024-05-06T07:08:09Z',
          lastTransitionTime: '2024-05-06T07:08:09Z',
          reason: 'CompletionsReached',
          message: 'done',
        },
      ],
      startTime: '2024-05-06T07:08:00Z',
      completionTime: '2024-05-06T07:08:09Z',
      succeeded: 4,
      terminating: 0,
      completedIndexes: '0-3',
      failedIndexes: '',
      uncountedTerminatedPods: { succeeded: ['u1'], failed: ['u2'] },
      ready: 0,
    },
  },
  CronJob: {
    apiVersion: 'batch/v1',
    kind: 'CronJob',
    metadata: meta('nightly'),
    spec: {
      schedule: '0 3 * * *',
      timeZone: 'Etc/UTC',
      startingDeadlineSeconds: 0,
      concurrencyPolicy: 'Forbid',
      suspend: true,
      jobTemplate: {
        metadata: { labels: { app: 'web' } },
        spec: { backoffLimit: 2, template: { ...template, spec: { ...template.spec, restartPolicy: 'OnFailure' } } },
      },
      successfulJobsHistoryLimit: 3,
      failedJobsHistoryLimit: 0,
    },
    status: {
      active: [{ kind: 'Job', namespace: 'default', name: 'nightly-28000000', uid: 'u3', apiVersion: 'batch/v1', resourceVersion: '7' }],
      lastScheduleTime: '2024-05-06T03:00:00Z',
      lastSuccessfulTime: '2024-05-06T03:00:09Z',
    },
  },
  Role: {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'Role',
    metadata: meta('pod-reader'),
    rules: [{ verbs: ['get', 'list'], apiGroups: [''], resources: ['pods', 'pods/log'], resourceNames: ['web'] }],
  },
  ClusterRole: {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRole',
    metadata: meta('system:metrics', false),
    rules: [{ verbs: ['get'], nonResourceURLs: ['/metrics', '/healthz/*'] }],
    aggregationRule: { clusterRoleSelectors: [selector] },
  },
  RoleBinding: {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'RoleBinding',
    metadata: meta('read-pods'),
    subjects: [
      { kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'jane' },
      { kind: 'ServiceAccount', name: 'builder', namespace: 'ci' },
    ],
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'pod-reader' },
  },
  ClusterRoleBinding: {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRoleBinding',
    metadata: meta('metrics', false),
    subjects: [{ kind: 'Group', apiGroup: 'rbac.authorization.k8s.io', name: 'system:monitoring' }],
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'system:metrics' },
  },
  Ingress: {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'Ingress',
    metadata: meta('web'),
    spec: {
      ingressClassName: 'nginx',
      defaultBackend: { resource: { apiGroup: 'k8s.example.com', kind: 'StorageBucket', name: 'static' } },
      tls: [{ hosts: ['example.com'], secretName: 'web-tls' }],
      rules: [
        {
          host: 'example.com',
          http: {
            paths: [
              { path: '/', pathType: 'Prefix', backend: { service: { name: 'web', port: { number: 80 } } } },
              { path: '/api', pathType: 'Exact', backend: { service: { name: 'api', port: { name: 'http' } } } },
            ],
          },
        },
        { host: '*.example.com' },
      ],
    },
    status: { loadBalancer: { ingress: [{ ip: '10.0.0.1', ports: [{ port: 443, protocol: 'TCP', error: 'Pending' }] }, { hostname: 'lb.example.com' }] } },
  },
  IngressClass: {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'IngressClass',
    metadata: meta('nginx', false),
    spec: {
      controller: 'k8s.io/ingress-nginx',
      parameters: { apiGroup: 'k8s.example.com', kind: 'IngressParameters', name: 'external', scope: 'Namespace', namespace: 'ingress' },
    },
  },
  IPAddress: {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'IPAddress',
    metadata: meta('10.96.0.10', false),
    spec: { parentRef: { resource: 'services', namespace: 'default', name: 'web' } },
  },
  ServiceCIDR: {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'ServiceCIDR',
    metadata: meta('kubernetes', false),
    spec: { cidrs: ['10.96.0.0/12', 'fd00::/108'] },
    status: {
      conditions: [
        { type: 'Ready', status: 'True', lastTransitionTime: '2024-05-06T07:08:09Z', reason: '', message: 'Kubernetes default Service CIDR is ready' },
      ],
    },
  },
  NetworkPolicy: {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'NetworkPolicy',
    metadata: meta('db'),
    spec: {
      podSelector: { matchLabels: { app: 'db' } },
      ingress: [
        {
          ports: [
            { protocol: 'TCP', port: 5432 },
            { protocol: 'TCP', port: 'metrics' },
            { protocol: 'UDP', port: 30000, endPort: 30100 },
          ],
          from: [{ podSelector: selector, namespaceSelector: {} }, { ipBlock: { cidr: '10.0.0.0/8', except: ['10.1.0.0/16'] } }],
        },
      ],
      egress: [{ to: [{ namespaceSelector: { matchLabels: { team: 'ops' } } }] }],
      policyTypes: ['Ingress', 'Egress'],
    },
  },
  PodDisruptionBudget: {
    apiVersion: 'policy/v1',
    kind: 'PodDisruptionBudget',
    metadata: meta('web'),
    spec: { minAvailable: '50%', selector, unhealthyPodEvictionPolicy: 'AlwaysAllow' },
    status: {
      observedGeneration: 3,
      disruptedPods: { 'web-1': '2024-05-06T07:08:09Z' },
      disruptionsAllowed: 0,
      currentHealthy: 2,
      desiredHealthy: 2,
      expectedPods: 3,
      conditions: [
        {
          type: 'DisruptionAllowed',
          status: 'False',
          observedGeneration: 3,
          lastTransitionTime: '2024-05-06T07:08:09Z',
          reason: 'InsufficientPods',
          message: '',
        },
      ],
    },
  },
  PersistentVolumeClaim: {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: meta('data'),
    spec: {
      accessModes: ['ReadWriteOnce'],
      selector,
      resources: { requests: { storage: '10Gi' }, limits: { storage: '1.5Ti' } },
      volumeName: 'pv-data',
      storageClassName: '',
      volumeMode: 'Filesystem',
      dataSource: { apiGroup: 'snapshot.storage.k8s.io', kind: 'VolumeSnapshot', name: 'snap' },
      dataSourceRef: { apiGroup: 'snapshot.storage.k8s.io', kind: 'VolumeSnapshot', name: 'snap', namespace: 'backups' },
    },
    status: {
      phase: 'Bound',
      accessModes: ['ReadWriteOnce'],
      capacity: { storage: '10Gi' },
      conditions: [{ type: 'Resizing', status: 'True', lastProbeTime: null, lastTransitionTime: '2024-05-06T07:08:09Z' }],
      allocatedResources: { storage: '20Gi' },
      allocatedResourceStatuses: { storage: 'ControllerResizeInProgress' },
    },
  },
  PersistentVolume: {
    apiVersion: 'v1',
    kind: 'PersistentVolume',
    metadata: meta('pv-data', false),
    spec: {
      capacity: { storage: '500m' },
      csi: {
        driver: 'ebs.csi.aws.com',
        volumeHandle: 'vol-1',
        fsType: 'ext4',
        volumeAttributes: { zone: 'a' },
        nodeStageSecretRef: { name: 's', namespace: 'kube-system' },
      },
      accessModes: ['ReadWriteOnce', 'ReadOnlyMany'],
      claimRef: { kind: 'PersistentVolumeClaim', namespace: 'default', name: 'data', uid: 'claim-uid', apiVersion: 'v1', resourceVersion: '7' },
      persistentVolumeReclaimPolicy: 'Retain',
      storageClassName: 'fast',
      mountOptions: ['noatime'],
      volumeMode: 'Block',
      nodeAffinity: { required: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'zone', operator: 'In', values: ['a'] }] }] } },
    },
    status: { phase: 'Bound', lastPhaseTransitionTime: '2024-05-06T07:08:09Z' },
  },
  StorageClass: {
    apiVersion: 'storage.k8s.io/v1',
    kind: 'StorageClass',
    metadata: meta('fast', false),
    provisioner: 'ebs.csi.aws.com',
    parameters: { type: 'gp3', iops: '3000' },
    reclaimPolicy: 'Delete',
    mountOptions: ['debug'],
    allowVolumeExpansion: false,
    volumeBindingMode: 'WaitForFirstConsumer',
    allowedTopologies: [{ matchLabelExpressions: [{ key: 'topology.kubernetes.io/zone', values: ['us-east-1a'] }] }],
  },
  HorizontalPodAutoscaler: {
    apiVersion: 'autoscaling/v2',
    kind: 'HorizontalPodAutoscaler',
    metadata: meta('web'),
    spec: {
      scaleTargetRef: { kind: 'Deployment', name: 'web', apiVersion: 'apps/v1' },
      minReplicas: 0,
      maxReplicas: 10,
      metrics: [
        { type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 80 } } },
        { type: 'Pods', pods: { metric: { name: 'rps', selector }, target: { type: 'AverageValue', averageValue: '1k' } } },
        {
          type: 'Object',
          object: {
            describedObject: { kind: 'Ingress', name: 'main', apiVersion: 'networking.k8s.io/v1' },
            metric: { name: 'hits' },
            target: { type: 'Value', value: '10' },
          },
        },
        { type: 'ContainerResource', containerResource: { name: 'memory', container: 'app', target: { type: 'AverageValue', averageValue: '500Mi' } } },
        { type: 'External', external: { metric: { name: 'queue' }, target: { type: 'Value', value: '30' } } },
      ],
      behavior: {
        scaleUp: { stabilizationWindowSeconds: 0, selectPolicy: 'Max', policies: [{ type: 'Pods', value: 4, periodSeconds: 15 }], tolerance: '50m' },
        scaleDown: { selectPolicy: 'Disabled', policies: [{ type: 'Percent', value: 100, periodSeconds: 15 }] },
      },
    },
    status: {
      observedGeneration: 3,
      lastScaleTime: '2024-05-06T07:08:09Z',
      currentReplicas: 2,
      desiredReplicas: 0,
      currentMetrics: [
        { type: 'Resource', resource: { name: 'cpu', current: { averageValue: '100m', averageUtilization: 0 } } },
        { type: 'Object', object: { metric: { name: 'hits' }, current: { value: '7' }, describedObject: { kind: 'Ingress', name: 'main' } } },
      ],
      conditions: [{ type: 'AbleToScale', status: 'True', lastTransitionTime: '2024-05-06T07:08:09Z', reason: 'SucceededGetScale', message: 'ok' }],
    },
  },
  PriorityClass: {
    apiVersion: 'scheduling.k8s.io/v1',
    kind: 'PriorityClass',
    metadata: meta('high', false),
    value: 0,
    globalDefault: true,
    description: 'important',
    preemptionPolicy: 'Never',
  },
  EndpointSlice: {
    apiVersion: 'discovery.k8s.io/v1',
    kind: 'EndpointSlice',
    metadata: meta('web-abc'),
    addressType: 'IPv4',
    endpoints: [
      {
        addresses: ['10.0.0.1'],
        conditions: { ready: true, serving: false, terminating: false },
        hostname: 'web-0',
        targetRef: { kind: 'Pod', namespace: 'default', name: 'web-0', uid: 'pod-uid' },
        nodeName: 'node-1',
        zone: 'a',
        hints: { forZones: [{ name: 'a' }], forNodes: [{ name: 'node-1' }] },
      },
      { addresses: ['10.0.0.2', '10.0.0.3'], conditions: {}, deprecatedTopology: { 'kubernetes.io/hostname': 'node-2' } },
    ],
    ports: [
      { name: '', protocol: 'TCP', port: 0 },
      { name: 'http', protocol: 'TCP', port: 80, appProtocol: 'kubernetes.io/h2c' },
    ],
  },
  ReplicationController: {
    apiVersion: 'v1',
    kind: 'ReplicationController',
    metadata: meta('rc'),
    spec: { replicas: 2, minReadySeconds: 5, selector: { app: 'web' }, template },
    status: {
      replicas: 2,
      fullyLabeledReplicas: 2,
      readyReplicas: 1,
      availableReplicas: 1,
      observedGeneration: 3,
      conditions: [{ type: 'ReplicaFailure', status: 'False', lastTransitionTime: '2024-05-06T07:08:09Z', reason: 'r', message: 'm' }],
    },
  },
  PodTemplate: { apiVersion: 'v1', kind: 'PodTemplate', metadata: meta('pt'), template },
  LimitRange: {
    apiVersion: 'v1',
    kind: 'LimitRange',
    metadata: meta('lr'),
    spec: {
      limits: [
        {
          type: 'Container',
          max: { cpu: '2' },
          min: { cpu: '100m' },
          default: { cpu: '1' },
          defaultRequest: { cpu: '500m' },
          maxLimitRequestRatio: { cpu: '4' },
        },
      ],
    },
  },
  ResourceQuota: {
    apiVersion: 'v1',
    kind: 'ResourceQuota',
    metadata: meta('rq'),
    spec: {
      hard: { pods: '10' },
      scopes: ['NotTerminating'],
      scopeSelector: { matchExpressions: [{ scopeName: 'PriorityClass', operator: 'In', values: ['high'] }] },
    },
    status: { hard: { pods: '10' }, used: { pods: '3' } },
  },
  ControllerRevision: {
    apiVersion: 'apps/v1',
    kind: 'ControllerRevision',
    metadata: meta('ds-1'),
    data: { spec: { template: { metadata: { labels: { app: 'web' } } } } },
    revision: 3,
  },
  RuntimeClass: {
    apiVersion: 'node.k8s.io/v1',
    kind: 'RuntimeClass',
    metadata: meta('gvisor', false),
    handler: 'runsc',
    overhead: { podFixed: { cpu: '250m' } },
    scheduling: { nodeSelector: { sandbox: 'true' }, tolerations: [{ key: 'sandbox', operator: 'Exists', effect: 'NoSchedule' }] },
  },
  CSIDriver: {
    apiVersion: 'storage.k8s.io/v1',
    kind: 'CSIDriver',
    metadata: meta('csi.example.com', false),
    spec: {
      attachRequired: true,
      podInfoOnMount: false,
      volumeLifecycleModes: ['Persistent', 'Ephemeral'],
      storageCapacity: true,
      fsGroupPolicy: 'File',
      tokenRequests: [{ audience: 'vault', expirationSeconds: 3600 }],
      requiresRepublish: false,
      seLinuxMount: true,
    },
  },
  CSINode: {
    apiVersion: 'storage.k8s.io/v1',
    kind: 'CSINode',
    metadata: meta('node-1', false),
    spec: { drivers: [{ name: 'csi.example.com', nodeID: 'n1', topologyKeys: ['zone'], allocatable: { count: 16 } }] },
  },
  VolumeAttachment: {
    apiVersion: 'storage.k8s.io/v1',
    kind: 'VolumeAttachment',
    metadata: meta('va', false),
    spec: { attacher: 'csi.example.com', source: { persistentVolumeName: 'pv-1' }, nodeName: 'node-1' },
    status: { attached: true, attachmentMetadata: { device: '/dev/sdb' }, attachError: { time: '2024-05-06T07:08:09Z', message: 'once', errorCode: 5 } },
  },
  ComponentStatus: {
    apiVersion: 'v1',
    kind: 'ComponentStatus',
    metadata: { name: 'etcd-0' },
    conditions: [{ type: 'Healthy', status: 'False', message: 'm', error: 'e' }],
  },
  CertificateSigningRequest: {
    apiVersion: 'certificates.k8s.io/v1',
    kind: 'CertificateSigningRequest',
    metadata: meta('csr', false),
    spec: {
      request: 'LS0tLQ==',
      signerName: 'kubernetes.io/kube-apiserver-client',
      expirationSeconds: 3600,
      usages: ['client auth'],
      username: 'alice',
      uid: 'u-1',
      groups: ['dev'],
    },
    status: {
      conditions: [
        {
          type: 'Approved',
          status: 'True',
          reason: 'KubectlApprove',
          message: 'ok',
          lastUpdateTime: '2024-05-06T07:08:09Z',
          lastTransitionTime: '2024-05-06T07:08:09Z',
        },
      ],
      certificate: 'LS0tLQ==',
    },
  },
  CSIStorageCapacity: {
    apiVersion: 'storage.k8s.io/v1',
    kind: 'CSIStorageCapacity',
    metadata: meta('cap'),
    nodeTopology: { matchLabels: { zone: 'a' } },
    storageClassName: 'fast',
    capacity: '10Gi',
    maximumVolumeSize: '1Ti',
  },
  VolumeAttributesClass: {
    apiVersion: 'storage.k8s.io/v1',
    kind: 'VolumeAttributesClass',
    metadata: meta('gold', false),
    driverName: 'csi.example.com',
    parameters: { iops: '1000' },
  },
  FlowSchema: {
    apiVersion: 'flowcontrol.apiserver.k8s.io/v1',
    kind: 'FlowSchema',
    metadata: meta('system-leader-election', false),
    spec: {
      priorityLevelConfiguration: { name: 'leader-election' },
      matchingPrecedence: 100,
      distinguisherMethod: { type: 'ByUser' },
      rules: [
        {
          subjects: [
            { kind: 'User', user: { name: 'system:kube-scheduler' } },
            { kind: 'ServiceAccount', serviceAccount: { name: '*', namespace: 'kube-system' } },
          ],
          resourceRules: [{ verbs: ['get'], apiGroups: ['coordination.k8s.io'], resources: ['leases'], namespaces: ['*'] }],
          nonResourceRules: [{ verbs: ['get'], nonResourceURLs: ['/healthz'] }],
        },
      ],
    },
    status: { conditions: [{ type: 'Dangling', status: 'False', lastTransitionTime: '2024-05-06T07:08:09Z', reason: 'Found', message: 'it exists' }] },
  },
  PriorityLevelConfiguration: {
    apiVersion: 'flowcontrol.apiserver.k8s.io/v1',
    kind: 'PriorityLevelConfiguration',
    metadata: meta('workload-high', false),
    spec: {
      type: 'Limited',
      limited: {
        nominalConcurrencyShares: 40,
        lendablePercent: 50,
        limitResponse: { type: 'Queue', queuing: { queues: 128, handSize: 6, queueLengthLimit: 50 } },
      },
    },
    status: {},
  },
  DeviceClass: {
    apiVersion: 'resource.k8s.io/v1',
    kind: 'DeviceClass',
    metadata: meta('gpu.example.com', false),
    spec: { selectors: [{ cel: { expression: 'device.driver == "gpu.example.com"' } }] },
  },
  ResourceClaim: {
    apiVersion: 'resource.k8s.io/v1',
    kind: 'ResourceClaim',
    metadata: meta('claim'),
    spec: { devices: { requests: [{ name: 'gpu', exactly: { deviceClassName: 'gpu.example.com', allocationMode: 'ExactCount', count: 1 } }] } },
    status: { reservedFor: [{ resource: 'pods', name: 'p', uid: 'u-1' }] },
  },
  ResourceClaimTemplate: {
    apiVersion: 'resource.k8s.io/v1',
    kind: 'ResourceClaimTemplate',
    metadata: meta('tmpl'),
    spec: { metadata: {}, spec: { devices: { requests: [{ name: 'gpu', exactly: { deviceClassName: 'gpu.example.com', allocationMode: 'All' } }] } } },
  },
  ResourceSlice: {
    apiVersion: 'resource.k8s.io/v1',
    kind: 'ResourceSlice',
    metadata: meta('node-1-gpu', false),
    spec: { driver: 'gpu.example.com', pool: { name: 'node-1', generation: 1, resourceSliceCount: 1 }, nodeName: 'node-1', devices: [{ name: 'gpu-0' }] },
  },
  Lease: {
    apiVersion: 'coordination.k8s.io/v1',
    kind: 'Lease',
    metadata: meta('lock'),
    spec: {
      holderIdentity: 'node-1',
      leaseDurationSeconds: 40,
      acquireTime: '2024-05-06T07:08:09.000000Z',
      renewTime: '2024-05-06T07:08:19.654321Z',
      leaseTransitions: 0,
    },
  },
  MutatingWebhookConfiguration: {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'MutatingWebhookConfiguration',
    metadata: meta('inject', false),
    webhooks: [
      {
        name: 'inject.example.com',
        clientConfig: { service: { namespace: 'system', name: 'webhook', path: '/mutate', port: 8443 }, caBundle: 'LS0tLS1CRUdJTg==' },
        rules: [{ operations: ['CREATE', 'UPDATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods', 'pods/status'], scope: 'Namespaced' }],
        failurePolicy: 'Ignore',
        matchPolicy: 'Equivalent',
        namespaceSelector: { matchExpressions: [{ key: 'inject', operator: 'In', values: ['on'] }] },
        objectSelector: { matchLabels: { app: 'web' } },
        sideEffects: 'NoneOnDryRun',
        timeoutSeconds: 5,
        admissionReviewVersions: ['v1', 'v1beta1'],
        reinvocationPolicy: 'IfNeeded',
        matchConditions: [{ name: 'not-system', expression: "!request.userInfo.username.startsWith('system:')" }],
      },
    ],
  },
  ValidatingWebhookConfiguration: {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingWebhookConfiguration',
    metadata: meta('check', false),
    webhooks: [
      {
        name: 'check.example.com',
        clientConfig: { url: 'https://webhook.example.com:9443/validate' },
        rules: [{ operations: ['*'], apiGroups: ['*'], apiVersions: ['*'], resources: ['*/*'], scope: '*' }],
        failurePolicy: 'Fail',
        matchPolicy: 'Exact',
        namespaceSelector: {},
        objectSelector: {},
        sideEffects: 'None',
        timeoutSeconds: 10,
        admissionReviewVersions: ['v1'],
      },
    ],
  },
  ValidatingAdmissionPolicy: {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingAdmissionPolicy',
    metadata: meta('limits', false),
    spec: {
      paramKind: { apiVersion: 'v1', kind: 'ConfigMap' },
      matchConstraints: {
        namespaceSelector: {},
        objectSelector: { matchLabels: { app: 'web' } },
        resourceRules: [{ resourceNames: ['web'], operations: ['CREATE'], apiGroups: ['apps'], apiVersions: ['v1'], resources: ['deployments'], scope: '*' }],
        excludeResourceRules: [{ operations: ['UPDATE'], apiGroups: ['apps'], apiVersions: ['v1'], resources: ['deployments/scale'], scope: 'Namespaced' }],
        matchPolicy: 'Equivalent',
      },
      validations: [{ expression: 'object.spec.replicas <= 5', message: 'too many', reason: 'Forbidden', messageExpression: "'at most 5'" }],
      failurePolicy: 'Fail',
      auditAnnotations: [{ key: 'replicas', valueExpression: 'string(object.spec.replicas)' }],
      matchConditions: [{ name: 'not-system', expression: "!request.userInfo.username.startsWith('system:')" }],
      variables: [{ name: 'r', expression: 'object.spec.replicas' }],
    },
    status: {
      observedGeneration: 2,
      typeChecking: { expressionWarnings: [{ fieldRef: 'spec.validations[0].expression', warning: 'apps/v1, Kind=Deployment: ERROR' }] },
      conditions: [{ type: 'Ready', status: 'True', observedGeneration: 2, lastTransitionTime: '2024-05-06T07:08:09Z', reason: 'Checked', message: '' }],
    },
  },
  ValidatingAdmissionPolicyBinding: {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingAdmissionPolicyBinding',
    metadata: meta('limits-binding', false),
    spec: {
      policyName: 'limits',
      paramRef: { name: 'limits', namespace: 'default', selector: { matchLabels: { a: 'b' } }, parameterNotFoundAction: 'Deny' },
      matchResources: { namespaceSelector: { matchLabels: { tier: 'gold' } }, objectSelector: {}, matchPolicy: 'Exact' },
      validationActions: ['Deny', 'Audit'],
    },
  },
  MutatingAdmissionPolicy: {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'MutatingAdmissionPolicy',
    metadata: meta('sidecar', false),
    spec: {
      paramKind: { apiVersion: 'v1', kind: 'ConfigMap' },
      matchConstraints: {
        namespaceSelector: {},
        objectSelector: {},
        resourceRules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'], scope: '*' }],
        matchPolicy: 'Equivalent',
      },
      variables: [{ name: 'team', expression: 'params.data.team' }],
      mutations: [
        { patchType: 'JSONPatch', jsonPatch: { expression: '[JSONPatch{op: "add", path: "/metadata/labels/team", value: variables.team}]' } },
        { patchType: 'ApplyConfiguration', applyConfiguration: { expression: 'Object{metadata: Object.metadata{annotations: {"a": "b"}}}' } },
      ],
      failurePolicy: 'Ignore',
      matchConditions: [{ name: 'not-system', expression: "!request.userInfo.username.startsWith('system:')" }],
      reinvocationPolicy: 'IfNeeded',
    },
  },
  MutatingAdmissionPolicyBinding: {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'MutatingAdmissionPolicyBinding',
    metadata: meta('sidecar-binding', false),
    spec: {
      policyName: 'sidecar',
      paramRef: { name: 'teams', namespace: 'default', parameterNotFoundAction: 'Allow' },
      matchResources: { namespaceSelector: { matchLabels: { tier: 'gold' } }, objectSelector: {}, matchPolicy: 'Exact' },
    },
  },
  SelfSubjectAccessReview: {
    apiVersion: 'authorization.k8s.io/v1',
    kind: 'SelfSubjectAccessReview',
    metadata: {},
    spec: {
      resourceAttributes: {
        namespace: 'default',
        verb: 'list',
        group: 'apps',
        version: 'v1',
        resource: 'deployments',
        subresource: 'scale',
        name: 'web',
        fieldSelector: { requirements: [{ key: 'metadata.name', operator: 'In', values: ['web'] }] },
        labelSelector: { rawSelector: 'app=web' },
      },
    },
    status: { allowed: true, reason: 'allowed' },
  },
  SubjectAccessReview: {
    apiVersion: 'authorization.k8s.io/v1',
    kind: 'SubjectAccessReview',
    metadata: {},
    spec: { nonResourceAttributes: { path: '/logs', verb: 'get' }, user: 'bob', groups: ['devs'], uid: 'u-1' },
    status: { allowed: false, denied: true, reason: 'no', evaluationError: 'broken' },
  },
  LocalSubjectAccessReview: {
    apiVersion: 'authorization.k8s.io/v1',
    kind: 'LocalSubjectAccessReview',
    metadata: { namespace: 'default' },
    spec: { resourceAttributes: { namespace: 'default', verb: 'get', resource: 'pods' }, user: 'bob' },
    status: { allowed: true },
  },
  SelfSubjectRulesReview: {
    apiVersion: 'authorization.k8s.io/v1',
    kind: 'SelfSubjectRulesReview',
    metadata: {},
    spec: { namespace: 'default' },
    status: {
      resourceRules: [{ verbs: ['get'], apiGroups: [''], resources: ['pods'], resourceNames: ['web'] }],
      nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['/healthz'] }],
      incomplete: false,
      evaluationError: 'partial',
    },
  },
  SelfSubjectReview: {
    apiVersion: 'authentication.k8s.io/v1',
    kind: 'SelfSubjectReview',
    metadata: { creationTimestamp: '2024-05-06T07:08:09Z' },
    status: { userInfo: { username: 'system:unsecured', uid: 'u-1', groups: ['system:masters'] } },
  },
  Binding: {
    apiVersion: 'v1',
    kind: 'Binding',
    metadata: { name: 'p', namespace: 'default', creationTimestamp: null, annotations: { a: 'b' } },
    target: { kind: 'Node', name: 'node-1' },
  },
  APIService: {
    apiVersion: 'apiregistration.k8s.io/v1',
    kind: 'APIService',
    metadata: { ...meta('v1alpha1.wardle.example.com', false), labels: { 'kube-aggregator.kubernetes.io/automanaged': 'onstart' } },
    spec: {
      service: { namespace: 'wardle', name: 'api', port: 8443 },
      group: 'wardle.example.com',
      version: 'v1alpha1',
      caBundle: 'LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0t',
      groupPriorityMinimum: 2000,
      versionPriority: 200,
    },
    status: {
      conditions: [
        {
          type: 'Available',
          status: 'False',
          lastTransitionTime: '2024-05-06T07:08:09Z',
          reason: 'MissingEndpoints',
          message: 'endpoints for service/api in "wardle" have no addresses',
        },
      ],
    },
  },
  TokenReview: {
    apiVersion: 'authentication.k8s.io/v1',
    kind: 'TokenReview',
    metadata: {},
    spec: { token: 'abc', audiences: ['api'] },
    status: { authenticated: true, user: { username: 'bob' }, audiences: ['api'], error: 'none' },
  },
};

/** The machinery's kinds that go over the wire in protobuf too. */
const META_OBJECTS: Record<string, unknown>[] = [
  {
    apiVersion: 'v1',
    kind: 'Status',
    metadata: {},
    status: 'Failure',
    message: 'pods "x" not found',
    reason: 'NotFound',
    details: { name: 'x', kind: 'pods' },
    code: 404,
  },
  {
    apiVersion: 'v1',
    kind: 'Status',
    metadata: {},
    status: 'Failure',
    message: 'invalid',
    reason: 'Invalid',
    details: { name: 'x', kind: 'Pod', causes: [{ reason: 'FieldValueRequired', message: 'Required value', field: 'spec.containers' }], retryAfterSeconds: 1 },
    code: 422,
  },
  { apiVersion: 'meta.k8s.io/v1', kind: 'PartialObjectMetadata', metadata: meta('web-1') },
  {
    apiVersion: 'meta.k8s.io/v1',
    kind: 'PartialObjectMetadataList',
    metadata: { resourceVersion: '9', continue: 'c', remainingItemCount: 5 },
    items: [{ metadata: meta('a') }, { metadata: meta('b') }],
  },
  {
    apiVersion: 'meta.k8s.io/v1',
    kind: 'DeleteOptions',
    gracePeriodSeconds: 0,
    preconditions: { uid: 'u', resourceVersion: '3' },
    propagationPolicy: 'Foreground',
    dryRun: ['All'],
  },
];

describe('protobuf round trips: encode, decode, the same JSON', () => {
  test('there is an object here for every built-in kind', () => {
    expect(PROTO_KINDS.map((d) => d.kind).sort()).toEqual(Object.keys(OBJECTS).sort());
  });

  test.each(Object.entries(OBJECTS))('%s', (_kind, obj) => {
    expect(messageTypeOf(obj)).not.toBeNull();
    expect(decodeProtobuf(encodeProtobuf(obj))).toEqual(obj);
  });

  test.each(PROTO_KINDS.filter((d) => d.verbs.includes('list')).map((d) => [d.listKind, d] as const))('%s', (listKind, def) => {
    const item = OBJECTS[def.kind] as { metadata: unknown } & Record<string, unknown>;
    const { apiVersion: _a, kind: _k, ...bare } = item;
    const list = { apiVersion: item.apiVersion, kind: listKind, metadata: { resourceVersion: '100', continue: 'token' }, items: [bare, bare] };
    expect(decodeProtobuf(encodeProtobuf(list))).toEqual(list);
  });

  test.each(META_OBJECTS.map((o) => [o.kind, o] as const))('%s', (_kind, obj) => {
    // As Go's JSON of the decoded struct: ObjectMeta and ListMeta are always written, DeleteOptions has none.
    expect(decodeProtobuf(encodeProtobuf(obj as Record<string, unknown>))).toEqual(obj);
  });

  test('autoscaling/v1 HorizontalPodAutoscaler, the version kubectl autoscale writes', () => {
    const hpa = {
      apiVersion: 'autoscaling/v1',
      kind: 'HorizontalPodAutoscaler',
      metadata: meta('web'),
      spec: { scaleTargetRef: { kind: 'Deployment', name: 'web', apiVersion: 'apps/v1' }, minReplicas: 1, maxReplicas: 5, targetCPUUtilizationPercentage: 60 },
      status: { observedGeneration: 2, lastScaleTime: '2024-05-06T07:08:09Z', currentReplicas: 0, desiredReplicas: 3, currentCPUUtilizationPercentage: 0 },
    };
    expect(decodeProtobuf(encodeProtobuf(hpa))).toEqual(hpa);
  });

  test("events.k8s.io/v1 Event and EventList, what client-go's events recorder writes", () => {
    const event = {
      apiVersion: 'events.k8s.io/v1',
      kind: 'Event',
      metadata: meta('web-1.18'),
      eventTime: '2024-05-06T07:08:09.123456Z',
      series: { count: 3, lastObservedTime: '2024-05-06T07:09:10.000001Z' },
      reportingController: 'default-scheduler',
      reportingInstance: 'sched-1',
      action: 'Binding',
      reason: 'Scheduled',
      regarding: { kind: 'Pod', namespace: 'default', name: 'web-1', uid: 'u', apiVersion: 'v1', resourceVersion: '41' },
      related: { kind: 'Node', name: 'node-1', apiVersion: 'v1' },
      note: 'Successfully assigned default/web-1 to node-1',
      type: 'Normal',
      deprecatedSource: { component: 'default-scheduler', host: 'node-1' },
      deprecatedFirstTimestamp: '2024-05-06T07:08:09Z',
      deprecatedLastTimestamp: '2024-05-06T07:09:10Z',
      deprecatedCount: 3,
    };
    expect(decodeProtobuf(encodeProtobuf(event))).toEqual(event);
    const { apiVersion: _a, kind: _k, ...bare } = event;
    const list = { apiVersion: 'events.k8s.io/v1', kind: 'EventList', metadata: { resourceVersion: '100' }, items: [bare, bare] };
    expect(decodeProtobuf(encodeProtobuf(list))).toEqual(list);
  });

  test('Table has no protobuf message (kube-apiserver serves it in JSON and YAML only)', () => {
    expect(messageTypeOf({ apiVersion: 'meta.k8s.io/v1', kind: 'Table' })).toBeNull();
  });
});
