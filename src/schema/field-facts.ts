/** Per-field facts from Kubernetes' Go types that the .proto files do not carry. */
export interface FieldFacts {
  /** Go pointer, or a scalar without omitempty: its zero value ("", 0, false) appears in JSON. */
  keepZero?: true;
  /** Required in the OpenAPI schema (no omitempty and no +optional, or +required). */
  required?: true;
  /** struct tag patchStrategy ("merge", "replace", "retainKeys", "merge,retainKeys"). */
  patchStrategy?: string;
  /** struct tag patchMergeKey. */
  patchMergeKey?: string;
  /** +listType: atomic | set | map. */
  listType?: 'atomic' | 'set' | 'map';
  /** +listMapKey (in order). */
  listMapKeys?: string[];
  /** +mapType. */
  mapType?: 'atomic' | 'granular';
  /** +structType. */
  structType?: 'atomic' | 'granular';
  /** +enum: the allowed string values. */
  enum?: string[];
}

// Conventions used below (see the FieldFacts docs above):
// - enum on a repeated field lists the allowed values of each item; on a map field, of each value.
// - a type-level +structType (e.g. LocalObjectReference, LabelSelector, NodeSelector, OwnerReference)
//   is repeated on every singular field of that type, unless the field overrides it (PersistentVolumeSpec.claimRef).
// - inlined Go structs (VolumeSource, ProbeHandler, LocalObjectReference, EphemeralContainerCommon, ...)
//   carry their facts on their own message; the embedding field itself has none.

/** Keyed by fully-qualified proto message name (no leading dot), then JSON field name. Only fields with at least one fact. */
export const FIELD_FACTS: Record<string, Record<string, FieldFacts>> = {
  'k8s.io.api.core.v1.AppArmorProfile': {
    type: { keepZero: true, required: true, enum: ['Unconfined', 'RuntimeDefault', 'Localhost'] },
    localhostProfile: { keepZero: true },
  },
  'k8s.io.api.core.v1.AttachedVolume': {
    name: { keepZero: true, required: true },
    devicePath: { keepZero: true, required: true },
  },
  'k8s.io.api.core.v1.AvoidPods': {
    preferAvoidPods: { listType: 'atomic' },
  },
  'k8s.io.api.core.v1.AWSElasticBlockStoreVolumeSource': {
    volumeID: { keepZero: true, required: true },
  },
  'k8s.io.api.core.v1.AzureDiskVolumeSource': {
    diskName: { keepZero: true, required: true },
    diskURI: { keepZero: true, required: true },
    cachingMode: { keepZero: true, enum: ['None', 'ReadOnly', 'ReadWrite'] },
    fsType: { keepZero: true },
    readOnly: { keepZero: true },
    kind: { keepZero: true, enum: ['Shared', 'Dedicated', 'Managed'] },
  },
  'k8s.io.api.core.v1.AzureFilePersistentVolumeSource': {
    secretName: { keepZero: true, required: true },
    shareName: { keepZero: true, required: true },
    secretNamespace: { keepZero: true },
  },
  'k8s.io.api.core.v1.AzureFileVolumeSource': {
    secretName: { keepZero: true, required: true },
    shareName: { keepZero: true, required: true },
  },
  'k8s.io.api.core.v1.Binding': {
    target: { required: true, structType: 'atomic' },
  },
  'k8s.io.api.core.v1.Capabilities': {
    add: { listType: 'atomic' },
    drop: { listType: 'atomic' },
  },
  'k8s.io.api.core.v1.CephFSPersistentVolumeSource': {
    monitors: { required: true, listType: 'atomic' },
    secretRef: { structType: 'atomic' },
  },
  'k8s.io.api.core.v1.CephFSVolumeSource': {
    monitors: { required: true, listType: 'atomic' },
    secretRef: { structType: 'atomic' },
  },
  'k8s.io.api.core.v1.CinderPersistentVolumeSource': {
    volumeID: { keepZero: true, required: true },
    secretRef: { structType: 'atomic' },
  },
  'k8s.io.api.core.v1.CinderVolumeSource': {
    volumeID: { keepZero: true, required: true },
    secretRef: { structType: 'atomic' },
  },
  'k8s.io.api.core.v1.ClientIPConfig': {
    timeoutSeconds: { keepZero: true },
  },
  'k8s.io.api.core.v1.ClusterTrustBundleProjection': {
    name: { keepZero: true },
    signerName: { keepZero: true },
    labelSelector: { structType: 'atomic' },
    optional: { keepZero: true },
    path: { keepZero: true, required: true },
  },
  'k8s.io.api.core.v1.ComponentCondition': {
    type: { keepZero: true, required: true },
    status: { keepZero: true, required: true },
  },
  'k8s.io.api.core.v1.ComponentStatus': {
    conditions: { patchStrategy: 'merge', patchMergeKey: 'type', listType: 'map', listMapKeys: ['type'] },
  },
  'k8s.io.api.core.v1.ComponentStatusList': {
    items: { required: true },
  },
  'k8s.io.api.core.v1.ConfigMap': {
    immutable: { keepZero: true },
  },
  'k8s.io.api.core.v1.ConfigMapEnvSource': {
    optional: { keepZero: true },
  },
  'k8s.io.api.core.v1.ConfigMapKeySelector': {
    key: { keepZero: true, required: true },
    optional: { keepZero: true },
  },
  'k8s.io.api.core.v1.ConfigMapList': {
    items: { required: true },
  },
  'k8s.io.api.core.v1.ConfigMapNodeConfigSource': {
    namespace: { keepZero: true, required: true },
    name: { keepZero: true, required: true },
    kubeletConfigKey: { keepZero: true, required: true },
  },
  'k8s.io.api.core.v1.ConfigMapProjection': {
    items: { listType: 'atomic' },
    optional: { keepZero: true },
  },
  'k8s.io.api.core.v1.ConfigMapVolumeSource': {
    items: { listType: 'atomic' },
    defaultMode: { keepZero: true },
    optional: { keepZero: true },
  },
  'k8s.io.api.core.v1.Container': {
    name: { keepZero: true, required: true },
    command: { listType: 'atomic' },
    args: { listType: 'atomic' },
    ports: { patchStrategy: 'merge', patchMergeKey: 'containerPort', listType: 'map', listMapKeys: ['containerPort', 'protocol'] },
    envFrom: { listType: 'atomic' },
    env: { patchStrategy: 'merge', patchMergeKey: 'name', listType: 'map', listMapKeys: ['name'] },
    resizePolicy: { listType: 'atomic' },
    restartPolicy: { keepZero: true },
    restartPolicyRules: { listType: 'atomic' },
    volumeMounts: { patchStrategy: 'merge', patchMergeKey: 'mountPath', listType: 'map', listMapKeys: ['mountPath'] },
    volumeDevices: { patchStrategy: 'merge', patchMergeKey: 'devicePath', listType: 'map', listMapKeys: ['devicePath'] },
    terminationMessagePolicy: { enum: ['File', 'FallbackToLogsOnError'] },
    imagePullPolicy: { enum: ['Always', 'Never', 'IfNotPresent'] },
  },
  'k8s.io.api.core.v1.ContainerExtendedResourceRequest': {
    containerName: { keepZero: true, required: true },
    resourceName: { keepZero: true, required: true },
    requestName: { keepZero: true, required: true },
  },
  'k8s.io.api.core.v1.ContainerImage': {
    names: { listType: 'atomic' },
  },
  'k8s.io.api.core.v1.ContainerPort': {
    containerPort: { keepZero: true, required: true },
    protocol: { enum: ['TCP', 'UDP', 'SCTP'] },
  },
  'k8s.io.api.core.v1.ContainerResizePolicy': {
    resourceName: { keepZero: true, required: true },
    restartPolicy: { keepZero: true, required: true },
  },
  'k8s.io.api.core.v1.ContainerRestartRule': {
    action: { required: true },
  },
  'k8s.io.api.core.v1.ContainerRestartRuleOnExitCodes': {
    operator: { required: true },
    values: { listType: 'set' },
  },
  'k8s.io.api.core.v1.ContainerStateTerminated': {
    exitCode: { keepZero: true, required: true },
  },
  'k8s.io.api.core.v1.ContainerStatus': {
    name: { keepZero: true, required: true },
    ready: { keepZero: true, required: true },
    restartCount: { keepZero: true, required: true },
    image: { keepZero: true, required: true },
    imageID: { keepZero: true, required: true },
    started: { keepZero: true },
    volumeMounts: { patchStrategy: 'merge', patchMergeKey: 'mountPath', listType: 'map', listMapKeys: ['mountPath'] },
    allocatedResourcesStatus: { patchStrategy: 'merge', patchMergeKey: 'name', listType: 'map', listMapKeys: ['name'] },
    stopSignal: { keepZero: true, enum: ['SIGABRT', 'SIGALRM', 'SIGBUS', 'SIGCHLD', 'SIGCLD', 'SIGCONT', 'SIGFPE', 'SIGHUP', 'SIGILL', 'SIGINT', 'SIGIO', 'SIGIOT', 'SIGKILL', 'SIGPIPE', 'SIGPOLL', 'SIGPROF', 'SIGPWR', 'SIGQUIT', 'SIGSEGV', 'SIGSTKFLT', 'SIGSTOP', 'SIGSYS', 'SIGTERM', 'SIGTRAP', 'SIGTSTP', 'SIGTTIN', 'SIGTTOU', 'SIGURG', 'SIGUSR1', 'SIGUSR2', 'SIGVTALRM', 'SIGWINCH', 'SIGXCPU', 'SIGXFSZ', 'SIGRTMIN', 'SIGRTMIN+1', 'SIGRTMIN+2', 'SIGRTMIN+3', 'SIGRTMIN+4', 'SIGRTMIN+5', 'SIGRTMIN+6', 'SIGRTMIN+7', 'SIGRTMIN+8', 'SIGRTMIN+9', 'SIGRTMIN+10', 'SIGRTMIN+11', 'SIGRTMIN+12', 'SIGRTMIN+13', 'SIGRTMIN+14', 'SIGRTMIN+15', 'SIGRTMAX-14', 'SIGRTMAX-13', 'SIGRTMAX-12', 'SIGRTMAX-11', 'SIGRTMAX-10', 'SIGRTMAX-9', 'SIGRTMAX-8', 'SIGRTMAX-7', 'SIGRTMAX-6', 'SIGRTMAX-5', 'SIGRTMAX-4', 'SIGRTMAX-3', 'SIGRTMAX-2', 'SIGRTMAX-1', 'SIGRTMAX'] },
  },
  'k8s.io.api.core.v1.CSIPersistentVolumeSource': {
    driver: { keepZero: true, required: true },
    volumeHandle: { keepZero: true, required: true },
    controllerPublishSecretRef: { structType: 'atomic' },
    nodeStageSecretRef: { structType: 'atomic' },
    nodePublishSecretRef: { structType: 'atomic' },
    controllerExpandSecretRef: { structType: 'atomic' },
    nodeExpandSecretRef: { structType: 'atomic' },
  },
  'k8s.io.api.core.v1.CSIVolumeSource': {
    driver: { keepZero: true, required: true },
    readOnly: { keepZero: true },
    fsType: { keepZero: true },
    nodePublishSecretRef: { structType: 'atomic' },
  },
  'k8s.io.api.core.v1.DaemonEndpoint': {
    Port: { keepZero: true, required: true },
  },
  'k8s.io.api.core.v1.DownwardAPIProjection': {
    items: { listType: 'atomic' },
  },
  'k8s.io.api.core.v1.DownwardAPIVolumeFile': {
    path: { keepZero: true, required: true },
    fieldRef: { structType: 'atomic' },
    resourceFieldRef: { structType: 'atomic' },
    mode: { keepZero: true },
  },
  'k8s.io.api.core.v1.DownwardAPIVolumeSource': {
    items: { listType: 'atomic' },
    defaultMode: { keepZero: true },
  },
  'k8s.io.api.core.v1.EndpointAddress': {
    ip: { keepZero: true, required: true },
    nodeName: { keepZero: true },
    targetRef: { structType: 'atomic' },
  },
  'k8s.io.api.core.v1.EndpointPort': {
    port: { keepZero: true, required: true },
    protocol: { enum: ['TCP', 'UDP', 'SCTP'] },
    appProtocol: { keepZero: true },
  },
  'k8s.io.api.core.v1.Endpoints': {
    subsets: { listType: 'atomic' },
  },
  'k8s.io.api.core.v1.EndpointsList': {
    items: { required: true },
  },
  'k8s.io.api.core.v1.EndpointSubset': {
    addresses: { listType: 'atomic' },
    notReadyAddresses: { listType: 'atomic' },
    ports: { listType: 'atomic' },
  },
  'k8s.io.api.core.v1.EnvVar': {
    name: { keepZero: true, required: true },
  },
  'k8s.io.api.core.v1.EnvVarSource': {
    fieldRef: { structType: 'atomic' },
    resourceFieldRef: { structType: 'atomic' },
    configMapKeyRef: { structType: 'atomic' },
    secretKeyRef: { structType: 'atomic' },
    fileKeyRef: { structType: 'atomic' },
  },
  'k8s.io.api.core.v1.EphemeralContainerCommon': {
    name: { keepZero: true, required: true },
    command: { listType: 'atomic' },
    args: { listType: 'atomic' },
    ports: { patchStrategy: 'merge', patchMergeKey: 'containerPort', listType: 'map', listMapKeys: ['containerPort', 'protocol'] },
    envFrom: { listType: 'atomic' },
    env: { patchStrategy: 'merge', patchMergeKey: 'name', listType: 'map', listMapKeys: ['name'] },
    resizePolicy: { listType: 'atomic' },
    restartPolicy: { keepZero: true },
    restartPolicyRules: { listType: 'atomic' },
    volumeMounts: { patchStrategy: 'merge', patchMergeKey: 'mountPath', listType: 'map', listMapKeys: ['mountPath'] },
    volumeDevices: { patchStrategy: 'merge', patchMergeKey: 'devicePath', listType: 'map', listMapKeys: ['devicePath'] },
    terminationMessagePolicy: { enum: ['File', 'FallbackToLogsOnError'] },
    imagePullPolicy: { enum: ['Always', 'Never', 'IfNotPresent'] },
  },
  'k8s.io.api.core.v1.Event': {
    metadata: { required: true },
    involvedObject: { required: true, structType: 'atomic' },
    related: { structType: 'atomic' },
    reportingComponent: { keepZero: true },
    reportingInstance: { keepZero: true },
  },
  'k8s.io.api.core.v1.EventList': {
    items: { required: true },
  },
  'k8s.io.api.core.v1.ExecAction': {
    command: { listType: 'atomic' },
  },
  'k8s.io.api.core.v1.FCVolumeSource': {
    targetWWNs: { listType: 'atomic' },
    lun: { keepZero: true },
    wwids: { listType: 'atomic' },
  },
  'k8s.io.api.core.v1.FileKeySelector': {
    volumeName: { keepZero: true, required: true },
    path: { keepZero: true, required: true },
    key: { keepZero: true, required: true },
    optional: { keepZero: true },
  },
  'k8s.io.api.core.v1.FlexPersistentVolumeSource': {
    driver: { keepZero: true, required: true },
    secretRef: { structType: 'atomic' },
  },
  'k8s.io.api.core.v1.FlexVolumeSource': {
    driver: { keepZero: true, required: true },
    secretRef: { structType: 'atomic' },
  },
  'k8s.io.api.core.v1.GCEPersistentDiskVolumeSource': {
    pdName: { keepZero: true, required: true },
  },
  'k8s.io.api.core.v1.GitRepoVolumeSource': {
    repository: { keepZero: true, required: true },
  },
  'k8s.io.api.core.v1.GlusterfsPersistentVolumeSource': {
    endpoints: { keepZero: true, required: true },
    path: { keepZero: true, required: true },
    endpointsNamespace: { keepZero: true },
  },
  'k8s.io.api.core.v1.GlusterfsVolumeSource': {
    endpoints: { keepZero: true, required: true },
    path: { keepZero: true, required: true },
  },
  'k8s.io.api.core.v1.GRPCAction': {
    port: { keepZero: true, required: true },
    service: { keepZero: true },
  },
  'k8s.io.api.core.v1.HostAlias': {
    ip: { keepZero: true, required: true },
    hostnames: { listType: 'atomic' },
  },
  'k8s.io.api.core.v1.HostIP': {
    ip: { keepZero: true, required: true },
  },
  'k8s.io.api.core.v1.HostPathVolumeSource': {
    path: { keepZero: true, required: true },
    type: { keepZero: true, enum: ['', 'DirectoryOrCreate', 'Directory', 'FileOrCreate', 'File', 'Socket', 'CharDevice', 'BlockDevice'] },
  },
  'k8s.io.api.core.v1.HTTPGetAction': {
    port: { required: true },
    scheme: { enum: ['HTTP', 'HTTPS'] },
    httpHeaders: { listType: 'atomic' },
  },
  'k8s.io.api.core.v1.HTTPHeader': {
    name: { keepZero: true, required: true },
    value: { keepZero: true, required: true },
  },
  'k8s.io.api.core.v1.ImageVolumeSource': {
    pullPolicy: { enum: ['Always', 'Never', 'IfNotPresent'] },
  },
  'k8s.io.api.core.v1.ImageVolumeStatus': {
    imageRef: { required: true },
  },
  'k8s.io.api.core.v1.ISCSIPersistentVolumeSource': {
    targetPortal: { keepZero: true, required: true },
    iqn: { keepZero: true, required: true },
    lun: { keepZero: true, required: true },
    portals: { listType: 'atomic' },
    secretRef: { structType: 'atomic' },
    initiatorName: { keepZero: true },
  },
  'k8s.io.api.core.v1.ISCSIVolumeSource': {
    targetPortal: { keepZero: true, required: true },
    iqn: { keepZero: true, required: true },
    lun: { keepZero: true, required: true },
    portals: { listType: 'atomic' },
    secretRef: { structType: 'atomic' },
    initiatorName: { keepZero: true },
  },
  'k8s.io.api.core.v1.KeyToPath': {
    key: { keepZero: true, required: true },
    path: { keepZero: true, required: true },
    mode: { keepZero: true },
  },
  'k8s.io.api.core.v1.Lifecycle': {
    stopSignal: { keepZero: true, enum: ['SIGABRT', 'SIGALRM', 'SIGBUS', 'SIGCHLD', 'SIGCLD', 'SIGCONT', 'SIGFPE', 'SIGHUP', 'SIGILL', 'SIGINT', 'SIGIO', 'SIGIOT', 'SIGKILL', 'SIGPIPE', 'SIGPOLL', 'SIGPROF', 'SIGPWR', 'SIGQUIT', 'SIGSEGV', 'SIGSTKFLT', 'SIGSTOP', 'SIGSYS', 'SIGTERM', 'SIGTRAP', 'SIGTSTP', 'SIGTTIN', 'SIGTTOU', 'SIGURG', 'SIGUSR1', 'SIGUSR2', 'SIGVTALRM', 'SIGWINCH', 'SIGXCPU', 'SIGXFSZ', 'SIGRTMIN', 'SIGRTMIN+1', 'SIGRTMIN+2', 'SIGRTMIN+3', 'SIGRTMIN+4', 'SIGRTMIN+5', 'SIGRTMIN+6', 'SIGRTMIN+7', 'SIGRTMIN+8', 'SIGRTMIN+9', 'SIGRTMIN+10', 'SIGRTMIN+11', 'SIGRTMIN+12', 'SIGRTMIN+13', 'SIGRTMIN+14', 'SIGRTMIN+15', 'SIGRTMAX-14', 'SIGRTMAX-13', 'SIGRTMAX-12', 'SIGRTMAX-11', 'SIGRTMAX-10', 'SIGRTMAX-9', 'SIGRTMAX-8', 'SIGRTMAX-7', 'SIGRTMAX-6', 'SIGRTMAX-5', 'SIGRTMAX-4', 'SIGRTMAX-3', 'SIGRTMAX-2', 'SIGRTMAX-1', 'SIGRTMAX'] },
  },
  'k8s.io.api.core.v1.LimitRangeItem': {
    type: { keepZero: true, required: true },
  },
  'k8s.io.api.core.v1.LimitRangeList': {
    items: { required: true },
  },
  'k8s.io.api.core.v1.LimitRangeSpec': {
    limits: { required: true, listType: 'atomic' },
  },
  'k8s.io.api.core.v1.LinuxContainerUser': {
    uid: { keepZero: true, required: true },
    gid: { keepZero: true, required: true },
    supplementalGroups: { listType: 'atomic' },
  },
  'k8s.io.api.core.v1.LoadBalancerIngress': {
    ipMode: { keepZero: true },
    ports: { listType: 'atomic' },
  },
  'k8s.io.api.core.v1.LoadBalancerStatus': {
    ingress: { listType: 'atomic' },
  },
  'k8s.io.api.core.v1.LocalVolumeSource': {
    path: { keepZero: true, required: true },
    fsType: { keepZero: true },
  },
  'k8s.io.api.core.v1.ModifyVolumeStatus': {
    status: { keepZero: true, required: true, enum: ['Pending', 'InProgress', 'Infeasible'] },
  },
  'k8s.io.api.core.v1.NamespaceCondition': {
    type: { keepZero: true, required: true },
    status: { keepZero: true, required: true },
  },
  'k8s.io.api.core.v1.NamespaceList': {
    items: { required: true },
  },
  'k8s.io.api.core.v1.NamespaceSpec': {
    finalizers: { listType: 'atomic' },
  },
  'k8s.io.api.core.v1.NamespaceStatus': {
    phase: { enum: ['Active', 'Terminating'] },
    conditions: { patchStrategy: 'merge', patchMergeKey: 'type', listType: 'map', listMapKeys: ['type'] },
  },
  'k8s.io.api.core.v1.NFSVolumeSource': {
    server: { keepZero: true, required: true },
    path: { keepZero: true, required: true },
  },
  'k8s.io.api.core.v1.NodeAddress': {
    type: { keepZero: true, required: true },
    address: { keepZero: true, required: true },
  },
  'k8s.io.api.core.v1.NodeAffinity': {
    requiredDuringSchedulingIgnoredDuringExecution: { structType: 'atomic' },
    preferredDuringSchedulingIgnoredDuringExecution: { listType: 'atomic' },
  },
  'k8s.io.api.core.v1.NodeCondition': {
    type: { keepZero: true, required: true },
    status: { keepZero: true, required: true },
  },
  'k8s.io.api.core.v1.NodeFeatures': {
    supplementalGroupsPolicy: { keepZero: true },
    containerUlimits: { keepZero: true }, // unsure: assumed *bool with omitempty like supplementalGroupsPolicy; not in the stored Go sources
  },
  'k8s.io.api.core.v1.NodeList': {
    items: { required: true },
  },
  'k8s.io.api.core.v1.NodeRuntimeHandler': {
    name: { keepZero: true },
  },
  'k8s.io.api.core.v1.NodeRuntimeHandlerFeatures': {
    recursiveReadOnlyMounts: { keepZero: true },
    userNamespaces: { keepZero: true },
  },
  'k8s.io.api.core.v1.NodeSelector': {
    nodeSelectorTerms: { required: true, listType: 'atomic' },
  },
  'k8s.io.api.core.v1.NodeSelectorRequirement': {
    key: { keepZero: true, required: true },
    operator: { keepZero: true, required: true, enum: ['In', 'NotIn', 'Exists', 'DoesNotExist', 'Gt', 'Lt'] },
    values: { listType: 'atomic' },
  },
  'k8s.io.api.core.v1.NodeSelectorTerm': {
    matchExpressions: { listType: 'atomic' },
    matchFields: { listType: 'atomic' },
  },
  'k8s.io.api.core.v1.NodeSpec': {
    podCIDRs: { patchStrategy: 'merge', listType: 'set' },
    taints: { listType: 'atomic' },
  },
  'k8s.io.api.core.v1.NodeStatus': {
    phase: { enum: ['Pending', 'Running', 'Terminated'] },
    conditions: { patchStrategy: 'merge', patchMergeKey: 'type', listType: 'map', listMapKeys: ['type'] },
    addresses: { patchStrategy: 'merge', patchMergeKey: 'type', listType: 'map', listMapKeys: ['type'] },
    images: { listType: 'atomic' },
    volumesInUse: { listType: 'atomic' },
    volumesAttached: { listType: 'atomic' },
    runtimeHandlers: { listType: 'atomic' },
    declaredFeatures: { listType: 'atomic' },
  },
  'k8s.io.api.core.v1.NodeSwapStatus': {
    capacity: { keepZero: true },
  },
  'k8s.io.api.core.v1.NodeSystemInfo': {
    machineID: { keepZero: true, required: true },
    systemUUID: { keepZero: true, required: true },
    bootID: { keepZero: true, required: true },
    kernelVersion: { keepZero: true, required: true },
    osImage: { keepZero: true, required: true },
    containerRuntimeVersion: { keepZero: true, required: true },
    kubeletVersion: { keepZero: true, required: true },
    kubeProxyVersion: { keepZero: true, required: true },
    operatingSystem: { keepZero: true, required: true },
    architecture: { keepZero: true, required: true },
  },
  'k8s.io.api.core.v1.ObjectFieldSelector': {
    fieldPath: { keepZero: true, required: true },
  },
  'k8s.io.api.core.v1.PersistentVolumeClaimCondition': {
    type: { keepZero: true, required: true },
    status: { keepZero: true, required: true },
  },
  'k8s.io.api.core.v1.PersistentVolumeClaimList': {
    items: { required: true },
  },
  'k8s.io.api.core.v1.PersistentVolumeClaimSpec': {
    accessModes: { listType: 'atomic', enum: ['ReadWriteOnce', 'ReadOnlyMany', 'ReadWriteMany', 'ReadWriteOncePod'] },
    selector: { structType: 'atomic' },
    storageClassName: { keepZero: true },
    volumeMode: { keepZero: true, enum: ['Block', 'Filesystem'] },
    dataSource: { structType: 'atomic' },
    volumeAttributesClassName: { keepZero: true },
  },
  'k8s.io.api.core.v1.PersistentVolumeClaimStatus': {
    phase: { enum: ['Pending', 'Bound', 'Lost'] },
    accessModes: { listType: 'atomic', enum: ['ReadWriteOnce', 'ReadOnlyMany', 'ReadWriteMany', 'ReadWriteOncePod'] },
    conditions: { patchStrategy: 'merge', patchMergeKey: 'type', listType: 'map', listMapKeys: ['type'] },
    allocatedResourceStatuses: { mapType: 'granular', enum: ['ControllerResizeInProgress', 'ControllerResizeInfeasible', 'NodeResizePending', 'NodeResizeInProgress', 'NodeResizeInfeasible'] },
    currentVolumeAttributesClassName: { keepZero: true },
  },
  'k8s.io.api.core.v1.PersistentVolumeClaimTemplate': {
    spec: { required: true },
  },
  'k8s.io.api.core.v1.PersistentVolumeClaimVolumeSource': {
    claimName: { keepZero: true, required: true },
  },
  'k8s.io.api.core.v1.PersistentVolumeList': {
    items: { required: true },
  },
  'k8s.io.api.core.v1.PersistentVolumeSpec': {
    accessModes: { listType: 'atomic', enum: ['ReadWriteOnce', 'ReadOnlyMany', 'ReadWriteMany', 'ReadWriteOncePod'] },
    claimRef: { structType: 'granular' },
    persistentVolumeReclaimPolicy: { enum: ['Recycle', 'Delete', 'Retain'] },
    mountOptions: { listType: 'atomic' },
    volumeMode: { keepZero: true, enum: ['Block', 'Filesystem'] },
    volumeAttributesClassName: { keepZero: true },
  },
  'k8s.io.api.core.v1.PersistentVolumeStatus': {
    phase: { enum: ['Pending', 'Available', 'Bound', 'Released', 'Failed'] },
  },
  'k8s.io.api.core.v1.PhotonPersistentDiskVolumeSource': {
    pdID: { keepZero: true, required: true },
  },
  'k8s.io.api.core.v1.PodAffinity': {
    requiredDuringSchedulingIgnoredDuringExecution: { listType: 'atomic' },
    preferredDuringSchedulingIgnoredDuringExecution: { listType: 'atomic' },
  },
  'k8s.io.api.core.v1.PodAffinityTerm': {
    labelSelector: { structType: 'atomic' },
    namespaces: { listType: 'atomic' },
    topologyKey: { keepZero: true, required: true },
    namespaceSelector: { structType: 'atomic' },
    matchLabelKeys: { listType: 'atomic' },
    mismatchLabelKeys: { listType: 'atomic' },
  },
  'k8s.io.api.core.v1.PodAntiAffinity': {
    requiredDuringSchedulingIgnoredDuringExecution: { listType: 'atomic' },
    preferredDuringSchedulingIgnoredDuringExecution: { listType: 'atomic' },
  },
  'k8s.io.api.core.v1.PodCertificateProjection': {
    signerName: { required: true },
    keyType: { required: true },
    maxExpirationSeconds: { keepZero: true },
  },
  'k8s.io.api.core.v1.PodCondition': {
    type: { keepZero: true, required: true },
    status: { keepZero: true, required: true },
  },
  'k8s.io.api.core.v1.PodDNSConfig': {
    nameservers: { listType: 'atomic' },
    searches: { listType: 'atomic' },
    options: { listType: 'atomic' },
  },
  'k8s.io.api.core.v1.PodDNSConfigOption': {
    value: { keepZero: true },
  },
  'k8s.io.api.core.v1.PodExecOptions': {
    command: { required: true, listType: 'atomic' },
  },
  'k8s.io.api.core.v1.PodExtendedResourceClaimStatus': {
    requestMappings: { required: true, listType: 'atomic' },
    resourceClaimName: { keepZero: true, required: true },
  },
  'k8s.io.api.core.v1.PodIP': {
    ip: { keepZero: true, required: true },
  },
  'k8s.io.api.core.v1.PodList': {
    items: { required: true },
  },
  'k8s.io.api.core.v1.PodLogOptions': {
    sinceSeconds: { keepZero: true },
    tailLines: { keepZero: true },
    limitBytes: { keepZero: true },
    stream: { keepZero: true },
  },
  'k8s.io.api.core.v1.PodOS': {
    name: { keepZero: true, required: true },
  },
  'k8s.io.api.core.v1.PodPortForwardOptions': {
    ports: { listType: 'atomic' },
  },
  'k8s.io.api.core.v1.PodReadinessGate': {
    conditionType: { keepZero: true, required: true },
  },
  'k8s.io.api.core.v1.PodResourceClaim': {
    name: { keepZero: true, required: true },
    resourceClaimName: { keepZero: true },
    resourceClaimTemplateName: { keepZero: true },
  },
  'k8s.io.api.core.v1.PodResourceClaimStatus': {
    name: { keepZero: true, required: true },
    resourceClaimName: { keepZero: true },
  },
  'k8s.io.api.core.v1.PodSchedulingGate': {
    name: { keepZero: true, required: true },
  },
  'k8s.io.api.core.v1.PodSecurityContext': {
    runAsUser: { keepZero: true },
    runAsGroup: { keepZero: true },
    runAsNonRoot: { keepZero: true },
    supplementalGroups: { listType: 'atomic' },
    supplementalGroupsPolicy: { keepZero: true, enum: ['Merge', 'Strict'] },
    fsGroup: { keepZero: true },
    sysctls: { listType: 'atomic' },
    fsGroupChangePolicy: { keepZero: true, enum: ['OnRootMismatch', 'Always'] },
    seLinuxChangePolicy: { keepZero: true },
  },
  'k8s.io.api.core.v1.PodSignature': {
    podController: { structType: 'atomic' },
  },
  'k8s.io.api.core.v1.PodSpec': {
    volumes: { patchStrategy: 'merge,retainKeys', patchMergeKey: 'name', listType: 'map', listMapKeys: ['name'] },
    initContainers: { patchStrategy: 'merge', patchMergeKey: 'name', listType: 'map', listMapKeys: ['name'] },
    containers: { required: true, patchStrategy: 'merge', patchMergeKey: 'name', listType: 'map', listMapKeys: ['name'] },
    ephemeralContainers: { patchStrategy: 'merge', patchMergeKey: 'name', listType: 'map', listMapKeys: ['name'] },
    restartPolicy: { enum: ['Always', 'OnFailure', 'Never'] },
    terminationGracePeriodSeconds: { keepZero: true },
    activeDeadlineSeconds: { keepZero: true },
    dnsPolicy: { enum: ['ClusterFirstWithHostNet', 'ClusterFirst', 'Default', 'None'] },
    nodeSelector: { mapType: 'atomic' },
    automountServiceAccountToken: { keepZero: true },
    shareProcessNamespace: { keepZero: true },
    imagePullSecrets: { patchStrategy: 'merge', patchMergeKey: 'name', listType: 'map', listMapKeys: ['name'] },
    tolerations: { listType: 'atomic' },
    hostAliases: { patchStrategy: 'merge', patchMergeKey: 'ip', listType: 'map', listMapKeys: ['ip'] },
    priority: { keepZero: true },
    readinessGates: { listType: 'atomic' },
    runtimeClassName: { keepZero: true },
    enableServiceLinks: { keepZero: true },
    preemptionPolicy: { keepZero: true, enum: ['PreemptLowerPriority', 'Never'] },
    topologySpreadConstraints: { patchStrategy: 'merge', patchMergeKey: 'topologyKey', listType: 'map', listMapKeys: ['topologyKey', 'whenUnsatisfiable'] },
    setHostnameAsFQDN: { keepZero: true },
    hostUsers: { keepZero: true },
    schedulingGates: { patchStrategy: 'merge', patchMergeKey: 'name', listType: 'map', listMapKeys: ['name'] },
    resourceClaims: { patchStrategy: 'merge,retainKeys', patchMergeKey: 'name', listType: 'map', listMapKeys: ['name'] },
    hostnameOverride: { keepZero: true },
  },
  'k8s.io.api.core.v1.PodStatus': {
    phase: { enum: ['Pending', 'Running', 'Succeeded', 'Failed', 'Unknown'] },
    conditions: { patchStrategy: 'merge', patchMergeKey: 'type', listType: 'map', listMapKeys: ['type'] },
    hostIPs: { patchStrategy: 'merge', patchMergeKey: 'ip', listType: 'atomic' },
    podIPs: { patchStrategy: 'merge', patchMergeKey: 'ip', listType: 'map', listMapKeys: ['ip'] },
    initContainerStatuses: { listType: 'atomic' },
    containerStatuses: { listType: 'atomic' },
    qosClass: { enum: ['Guaranteed', 'Burstable', 'BestEffort'] },
    ephemeralContainerStatuses: { listType: 'atomic' },
    resourceClaimStatuses: { patchStrategy: 'merge,retainKeys', patchMergeKey: 'name', listType: 'map', listMapKeys: ['name'] },
  },
  'k8s.io.api.core.v1.PodTemplateList': {
    items: { required: true },
  },
  'k8s.io.api.core.v1.PortStatus': {
    port: { keepZero: true, required: true },
    protocol: { keepZero: true, required: true, enum: ['TCP', 'UDP', 'SCTP'] },
    error: { keepZero: true },
  },
  'k8s.io.api.core.v1.PortworxVolumeSource': {
    volumeID: { keepZero: true, required: true },
  },
  'k8s.io.api.core.v1.Preconditions': {
    uid: { keepZero: true },
  },
  'k8s.io.api.core.v1.PreferAvoidPodsEntry': {
    podSignature: { required: true },
  },
  'k8s.io.api.core.v1.PreferredSchedulingTerm': {
    weight: { keepZero: true, required: true },
    preference: { required: true, structType: 'atomic' },
  },
  'k8s.io.api.core.v1.Probe': {
    terminationGracePeriodSeconds: { keepZero: true },
  },
  'k8s.io.api.core.v1.ProjectedVolumeSource': {
    sources: { listType: 'atomic' },
    defaultMode: { keepZero: true },
  },
  'k8s.io.api.core.v1.QuobyteVolumeSource': {
    registry: { keepZero: true, required: true },
    volume: { keepZero: true, required: true },
  },
  'k8s.io.api.core.v1.RangeAllocation': {
    range: { keepZero: true, required: true },
    data: { required: true },
  },
  'k8s.io.api.core.v1.RBDPersistentVolumeSource': {
    monitors: { required: true, listType: 'atomic' },
    image: { keepZero: true, required: true },
    secretRef: { structType: 'atomic' },
  },
  'k8s.io.api.core.v1.RBDVolumeSource': {
    monitors: { required: true, listType: 'atomic' },
    image: { keepZero: true, required: true },
    secretRef: { structType: 'atomic' },
  },
  'k8s.io.api.core.v1.ReplicationControllerCondition': {
    type: { keepZero: true, required: true },
    status: { keepZero: true, required: true },
  },
  'k8s.io.api.core.v1.ReplicationControllerList': {
    items: { required: true },
  },
  'k8s.io.api.core.v1.ReplicationControllerSpec': {
    replicas: { keepZero: true },
    selector: { mapType: 'atomic' },
  },
  'k8s.io.api.core.v1.ReplicationControllerStatus': {
    replicas: { keepZero: true, required: true },
    conditions: { patchStrategy: 'merge', patchMergeKey: 'type', listType: 'map', listMapKeys: ['type'] },
  },
  'k8s.io.api.core.v1.ResourceClaim': {
    name: { keepZero: true, required: true },
  },
  'k8s.io.api.core.v1.ResourceFieldSelector': {
    resource: { keepZero: true, required: true },
  },
  'k8s.io.api.core.v1.ResourceHealth': {
    resourceID: { keepZero: true, required: true },
    message: { keepZero: true },
  },
  'k8s.io.api.core.v1.ResourceQuotaList': {
    items: { required: true },
  },
  'k8s.io.api.core.v1.ResourceQuotaSpec': {
    scopes: { listType: 'atomic', enum: ['Terminating', 'NotTerminating', 'BestEffort', 'NotBestEffort', 'PriorityClass', 'CrossNamespacePodAffinity', 'VolumeAttributesClass'] },
    scopeSelector: { structType: 'atomic' },
  },
  'k8s.io.api.core.v1.ResourceRequirements': {
    claims: { listType: 'map', listMapKeys: ['name'] },
  },
  'k8s.io.api.core.v1.ResourceStatus': {
    name: { keepZero: true, required: true },
    resources: { listType: 'map', listMapKeys: ['resourceID'] },
  },
  'k8s.io.api.core.v1.ScaleIOPersistentVolumeSource': {
    gateway: { keepZero: true, required: true },
    system: { keepZero: true, required: true },
    secretRef: { required: true, structType: 'atomic' },
  },
  'k8s.io.api.core.v1.ScaleIOVolumeSource': {
    gateway: { keepZero: true, required: true },
    system: { keepZero: true, required: true },
    secretRef: { required: true, structType: 'atomic' },
  },
  'k8s.io.api.core.v1.ScopedResourceSelectorRequirement': {
    scopeName: { keepZero: true, required: true, enum: ['Terminating', 'NotTerminating', 'BestEffort', 'NotBestEffort', 'PriorityClass', 'CrossNamespacePodAffinity', 'VolumeAttributesClass'] },
    operator: { keepZero: true, required: true, enum: ['In', 'NotIn', 'Exists', 'DoesNotExist'] },
    values: { listType: 'atomic' },
  },
  'k8s.io.api.core.v1.ScopeSelector': {
    matchExpressions: { listType: 'atomic' },
  },
  'k8s.io.api.core.v1.SeccompProfile': {
    type: { keepZero: true, required: true, enum: ['Unconfined', 'RuntimeDefault', 'Localhost'] },
    localhostProfile: { keepZero: true },
  },
  'k8s.io.api.core.v1.Secret': {
    immutable: { keepZero: true },
  },
  'k8s.io.api.core.v1.SecretEnvSource': {
    optional: { keepZero: true },
  },
  'k8s.io.api.core.v1.SecretKeySelector': {
    key: { keepZero: true, required: true },
    optional: { keepZero: true },
  },
  'k8s.io.api.core.v1.SecretList': {
    items: { required: true },
  },
  'k8s.io.api.core.v1.SecretProjection': {
    items: { listType: 'atomic' },
    optional: { keepZero: true },
  },
  'k8s.io.api.core.v1.SecretVolumeSource': {
    items: { listType: 'atomic' },
    defaultMode: { keepZero: true },
    optional: { keepZero: true },
  },
  'k8s.io.api.core.v1.SecurityContext': {
    privileged: { keepZero: true },
    runAsUser: { keepZero: true },
    runAsGroup: { keepZero: true },
    runAsNonRoot: { keepZero: true },
    readOnlyRootFilesystem: { keepZero: true },
    allowPrivilegeEscalation: { keepZero: true },
    procMount: { keepZero: true, enum: ['Default', 'Unmasked'] },
    ulimits: { listType: 'map', listMapKeys: ['name'] }, // unsure: field absent from the stored Go sources; markers taken from the ContainerUlimits KEP design
  },
  'k8s.io.api.core.v1.SerializedReference': {
    reference: { structType: 'atomic' },
  },
  'k8s.io.api.core.v1.ServiceAccount': {
    secrets: { patchStrategy: 'merge', patchMergeKey: 'name', listType: 'map', listMapKeys: ['name'] },
    imagePullSecrets: { listType: 'atomic' },
    automountServiceAccountToken: { keepZero: true },
  },
  'k8s.io.api.core.v1.ServiceAccountList': {
    items: { required: true },
  },
  'k8s.io.api.core.v1.ServiceAccountTokenProjection': {
    expirationSeconds: { keepZero: true },
    path: { keepZero: true, required: true },
  },
  'k8s.io.api.core.v1.ServiceList': {
    items: { required: true },
  },
  'k8s.io.api.core.v1.ServicePort': {
    protocol: { enum: ['TCP', 'UDP', 'SCTP'] },
    appProtocol: { keepZero: true },
    port: { keepZero: true, required: true },
  },
  'k8s.io.api.core.v1.ServiceSpec': {
    ports: { patchStrategy: 'merge', patchMergeKey: 'port', listType: 'map', listMapKeys: ['port', 'protocol'] },
    selector: { mapType: 'atomic' },
    clusterIPs: { listType: 'atomic' },
    type: { enum: ['ClusterIP', 'NodePort', 'LoadBalancer', 'ExternalName'] },
    externalIPs: { listType: 'atomic' },
    sessionAffinity: { enum: ['ClientIP', 'None'] },
    loadBalancerSourceRanges: { listType: 'atomic' },
    externalTrafficPolicy: { enum: ['Cluster', 'Local'] },
    ipFamilies: { listType: 'atomic', enum: ['IPv4', 'IPv6', ''] },
    ipFamilyPolicy: { keepZero: true, enum: ['SingleStack', 'PreferDualStack', 'RequireDualStack'] },
    allocateLoadBalancerNodePorts: { keepZero: true },
    loadBalancerClass: { keepZero: true },
    internalTrafficPolicy: { keepZero: true, enum: ['Cluster', 'Local'] },
    trafficDistribution: { keepZero: true },
  },
  'k8s.io.api.core.v1.ServiceStatus': {
    conditions: { patchStrategy: 'merge', patchMergeKey: 'type', listType: 'map', listMapKeys: ['type'] },
  },
  'k8s.io.api.core.v1.SleepAction': {
    seconds: { keepZero: true, required: true },
  },
  'k8s.io.api.core.v1.StorageOSPersistentVolumeSource': {
    secretRef: { structType: 'atomic' },
  },
  'k8s.io.api.core.v1.StorageOSVolumeSource': {
    secretRef: { structType: 'atomic' },
  },
  'k8s.io.api.core.v1.Sysctl': {
    name: { keepZero: true, required: true },
    value: { keepZero: true, required: true },
  },
  'k8s.io.api.core.v1.Taint': {
    key: { keepZero: true, required: true },
    effect: { keepZero: true, required: true, enum: ['NoSchedule', 'PreferNoSchedule', 'NoExecute'] },
  },
  'k8s.io.api.core.v1.TCPSocketAction': {
    port: { required: true },
  },
  'k8s.io.api.core.v1.Toleration': {
    operator: { enum: ['Exists', 'Equal', 'Lt', 'Gt'] },
    effect: { enum: ['NoSchedule', 'PreferNoSchedule', 'NoExecute'] },
    tolerationSeconds: { keepZero: true },
  },
  'k8s.io.api.core.v1.TopologySelectorLabelRequirement': {
    key: { keepZero: true, required: true },
    values: { required: true, listType: 'atomic' },
  },
  'k8s.io.api.core.v1.TopologySelectorTerm': {
    matchLabelExpressions: { listType: 'atomic' },
  },
  'k8s.io.api.core.v1.TopologySpreadConstraint': {
    maxSkew: { keepZero: true, required: true },
    topologyKey: { keepZero: true, required: true },
    whenUnsatisfiable: { keepZero: true, required: true, enum: ['DoNotSchedule', 'ScheduleAnyway'] },
    labelSelector: { structType: 'atomic' },
    minDomains: { keepZero: true },
    nodeAffinityPolicy: { keepZero: true, enum: ['Ignore', 'Honor'] },
    nodeTaintsPolicy: { keepZero: true, enum: ['Ignore', 'Honor'] },
    matchLabelKeys: { listType: 'atomic' },
  },
  'k8s.io.api.core.v1.TypedLocalObjectReference': {
    apiGroup: { keepZero: true },
    kind: { keepZero: true, required: true },
    name: { keepZero: true, required: true },
  },
  'k8s.io.api.core.v1.TypedObjectReference': {
    apiGroup: { keepZero: true },
    kind: { keepZero: true, required: true },
    name: { keepZero: true, required: true },
    namespace: { keepZero: true },
  },
  'k8s.io.api.core.v1.Ulimit': {
    name: { keepZero: true, required: true }, // unsure: type absent from the stored Go sources; tags taken from the ContainerUlimits KEP design
    hard: { keepZero: true, required: true }, // unsure: type absent from the stored Go sources; tags taken from the ContainerUlimits KEP design
    soft: { keepZero: true, required: true }, // unsure: type absent from the stored Go sources; tags taken from the ContainerUlimits KEP design
  },
  'k8s.io.api.core.v1.Volume': {
    name: { keepZero: true, required: true },
  },
  'k8s.io.api.core.v1.VolumeDevice': {
    name: { keepZero: true, required: true },
    devicePath: { keepZero: true, required: true },
  },
  'k8s.io.api.core.v1.VolumeMount': {
    name: { keepZero: true, required: true },
    recursiveReadOnly: { keepZero: true },
    mountPath: { keepZero: true, required: true },
    mountPropagation: { keepZero: true, enum: ['None', 'HostToContainer', 'Bidirectional'] },
  },
  'k8s.io.api.core.v1.VolumeMountStatus': {
    name: { keepZero: true, required: true },
    mountPath: { keepZero: true, required: true },
    recursiveReadOnly: { keepZero: true },
  },
  'k8s.io.api.core.v1.VolumeNodeAffinity': {
    required: { structType: 'atomic' },
  },
  'k8s.io.api.core.v1.VsphereVirtualDiskVolumeSource': {
    volumePath: { keepZero: true, required: true },
  },
  'k8s.io.api.core.v1.WeightedPodAffinityTerm': {
    weight: { keepZero: true, required: true },
    podAffinityTerm: { required: true },
  },
  'k8s.io.api.core.v1.WindowsSecurityContextOptions': {
    gmsaCredentialSpecName: { keepZero: true },
    gmsaCredentialSpec: { keepZero: true },
    runAsUserName: { keepZero: true },
    hostProcess: { keepZero: true },
  },
  'k8s.io.api.core.v1.WorkloadReference': {
    name: { keepZero: true, required: true },
    podGroup: { keepZero: true, required: true },
  },
  'k8s.io.api.apps.v1.ControllerRevision': {
    revision: { keepZero: true, required: true },
  },
  'k8s.io.api.apps.v1.ControllerRevisionList': {
    items: { required: true },
  },
  'k8s.io.api.apps.v1.DaemonSetCondition': {
    type: { keepZero: true, required: true },
    status: { keepZero: true, required: true },
  },
  'k8s.io.api.apps.v1.DaemonSetList': {
    items: { required: true },
  },
  'k8s.io.api.apps.v1.DaemonSetSpec': {
    selector: { required: true, structType: 'atomic' },
    template: { required: true },
    revisionHistoryLimit: { keepZero: true },
  },
  'k8s.io.api.apps.v1.DaemonSetStatus': {
    currentNumberScheduled: { keepZero: true, required: true },
    numberMisscheduled: { keepZero: true, required: true },
    desiredNumberScheduled: { keepZero: true, required: true },
    numberReady: { keepZero: true, required: true },
    collisionCount: { keepZero: true },
    conditions: { patchStrategy: 'merge', patchMergeKey: 'type', listType: 'map', listMapKeys: ['type'] },
  },
  'k8s.io.api.apps.v1.DaemonSetUpdateStrategy': {
    type: { enum: ['RollingUpdate', 'OnDelete'] },
  },
  'k8s.io.api.apps.v1.DeploymentCondition': {
    type: { keepZero: true, required: true },
    status: { keepZero: true, required: true },
  },
  'k8s.io.api.apps.v1.DeploymentList': {
    items: { required: true },
  },
  'k8s.io.api.apps.v1.DeploymentSpec': {
    replicas: { keepZero: true },
    selector: { required: true, structType: 'atomic' },
    template: { required: true },
    strategy: { patchStrategy: 'retainKeys' },
    revisionHistoryLimit: { keepZero: true },
    progressDeadlineSeconds: { keepZero: true },
    podReplacementPolicy: { keepZero: true, enum: ['TerminationStarted', 'TerminationComplete'] }, // unsure: field absent from the stored Go sources; type and +enum taken from the DeploymentPodReplacementPolicy KEP design
  },
  'k8s.io.api.apps.v1.DeploymentStatus': {
    terminatingReplicas: { keepZero: true },
    conditions: { patchStrategy: 'merge', patchMergeKey: 'type', listType: 'map', listMapKeys: ['type'] },
    collisionCount: { keepZero: true },
  },
  'k8s.io.api.apps.v1.DeploymentStrategy': {
    type: { enum: ['Recreate', 'RollingUpdate'] },
  },
  'k8s.io.api.apps.v1.ReplicaSetCondition': {
    type: { keepZero: true, required: true },
    status: { keepZero: true, required: true },
  },
  'k8s.io.api.apps.v1.ReplicaSetList': {
    items: { required: true },
  },
  'k8s.io.api.apps.v1.ReplicaSetSpec': {
    replicas: { keepZero: true },
    selector: { required: true, structType: 'atomic' },
  },
  'k8s.io.api.apps.v1.ReplicaSetStatus': {
    replicas: { keepZero: true, required: true },
    terminatingReplicas: { keepZero: true },
    conditions: { patchStrategy: 'merge', patchMergeKey: 'type', listType: 'map', listMapKeys: ['type'] },
  },
  'k8s.io.api.apps.v1.RollingUpdateStatefulSetStrategy': {
    partition: { keepZero: true },
  },
  'k8s.io.api.apps.v1.StatefulSetCondition': {
    type: { keepZero: true, required: true },
    status: { keepZero: true, required: true },
  },
  'k8s.io.api.apps.v1.StatefulSetList': {
    items: { required: true },
  },
  'k8s.io.api.apps.v1.StatefulSetOrdinals': {
    start: { keepZero: true },
  },
  'k8s.io.api.apps.v1.StatefulSetSpec': {
    replicas: { keepZero: true },
    selector: { required: true, structType: 'atomic' },
    template: { required: true },
    volumeClaimTemplates: { listType: 'atomic' },
    serviceName: { keepZero: true },
    podManagementPolicy: { enum: ['OrderedReady', 'Parallel'] },
    revisionHistoryLimit: { keepZero: true },
  },
  'k8s.io.api.apps.v1.StatefulSetStatus': {
    replicas: { keepZero: true, required: true },
    collisionCount: { keepZero: true },
    conditions: { patchStrategy: 'merge', patchMergeKey: 'type', listType: 'map', listMapKeys: ['type'] },
    availableReplicas: { keepZero: true },
  },
  'k8s.io.api.apps.v1.StatefulSetUpdateStrategy': {
    type: { enum: ['RollingUpdate', 'OnDelete'] },
  },
  'k8s.io.api.authentication.v1.TokenRequest': {
    spec: { required: true },
  },
  'k8s.io.api.authentication.v1.TokenRequestSpec': {
    audiences: { listType: 'atomic', required: true },
    expirationSeconds: { keepZero: true },
  },
  'k8s.io.api.authentication.v1.TokenRequestStatus': {
    token: { required: true },
    expirationTimestamp: { required: true },
  },
  'k8s.io.api.authentication.v1.TokenReview': {
    spec: { required: true },
  },
  'k8s.io.api.authentication.v1.TokenReviewSpec': {
    audiences: { listType: 'atomic' },
  },
  'k8s.io.api.authentication.v1.TokenReviewStatus': {
    audiences: { listType: 'atomic' },
  },
  'k8s.io.api.authentication.v1.UserInfo': {
    groups: { listType: 'atomic' },
  },
  'k8s.io.api.authorization.v1.FieldSelectorAttributes': {
    requirements: { listType: 'atomic' },
  },
  'k8s.io.api.authorization.v1.FieldSelectorRequirement': {
    key: { keepZero: true, required: true },
    operator: { keepZero: true, required: true },
    values: { listType: 'atomic' },
  },
  'k8s.io.api.authorization.v1.LabelSelectorAttributes': {
    requirements: { listType: 'atomic' },
  },
  'k8s.io.api.authorization.v1.LocalSubjectAccessReview': {
    spec: { required: true },
  },
  'k8s.io.api.authorization.v1.NonResourceRule': {
    verbs: { required: true, listType: 'atomic' },
    nonResourceURLs: { listType: 'atomic' },
  },
  'k8s.io.api.authorization.v1.ResourceRule': {
    verbs: { required: true, listType: 'atomic' },
    apiGroups: { listType: 'atomic' },
    resources: { listType: 'atomic' },
    resourceNames: { listType: 'atomic' },
  },
  'k8s.io.api.authorization.v1.SelfSubjectAccessReview': {
    spec: { required: true },
  },
  'k8s.io.api.authorization.v1.SelfSubjectRulesReview': {
    spec: { required: true },
  },
  'k8s.io.api.authorization.v1.SubjectAccessReview': {
    spec: { required: true },
  },
  'k8s.io.api.authorization.v1.SubjectAccessReviewSpec': {
    groups: { listType: 'atomic' },
  },
  'k8s.io.api.authorization.v1.SubjectAccessReviewStatus': {
    allowed: { keepZero: true, required: true },
  },
  'k8s.io.api.authorization.v1.SubjectRulesReviewStatus': {
    resourceRules: { required: true, listType: 'atomic' },
    nonResourceRules: { required: true, listType: 'atomic' },
    incomplete: { keepZero: true, required: true },
  },
  'k8s.io.api.batch.v1.CronJobList': {
    items: { required: true },
  },
  'k8s.io.api.batch.v1.CronJobSpec': {
    schedule: { keepZero: true, required: true },
    timeZone: { keepZero: true },
    startingDeadlineSeconds: { keepZero: true },
    concurrencyPolicy: { enum: ['Allow', 'Forbid', 'Replace'] },
    suspend: { keepZero: true },
    jobTemplate: { required: true },
    successfulJobsHistoryLimit: { keepZero: true },
    failedJobsHistoryLimit: { keepZero: true },
  },
  'k8s.io.api.batch.v1.CronJobStatus': {
    active: { listType: 'atomic' },
  },
  'k8s.io.api.batch.v1.JobCondition': {
    type: { keepZero: true, required: true },
    status: { keepZero: true, required: true },
  },
  'k8s.io.api.batch.v1.JobList': {
    items: { required: true },
  },
  'k8s.io.api.batch.v1.JobSpec': {
    parallelism: { keepZero: true },
    completions: { keepZero: true },
    activeDeadlineSeconds: { keepZero: true },
    backoffLimit: { keepZero: true },
    backoffLimitPerIndex: { keepZero: true },
    maxFailedIndexes: { keepZero: true },
    selector: { structType: 'atomic' },
    manualSelector: { keepZero: true },
    template: { required: true },
    ttlSecondsAfterFinished: { keepZero: true },
    completionMode: { keepZero: true, enum: ['NonIndexed', 'Indexed'] },
    suspend: { keepZero: true },
    podReplacementPolicy: { keepZero: true, enum: ['TerminatingOrFailed', 'Failed'] },
    managedBy: { keepZero: true },
  },
  'k8s.io.api.batch.v1.JobStatus': {
    conditions: { patchStrategy: 'merge', patchMergeKey: 'type', listType: 'atomic' },
    terminating: { keepZero: true },
    failedIndexes: { keepZero: true },
    ready: { keepZero: true },
  },
  'k8s.io.api.batch.v1.PodFailurePolicy': {
    rules: { required: true, listType: 'atomic' },
  },
  'k8s.io.api.batch.v1.PodFailurePolicyOnExitCodesRequirement': {
    containerName: { keepZero: true },
    operator: { keepZero: true, required: true, enum: ['In', 'NotIn'] },
    values: { required: true, listType: 'set' },
  },
  'k8s.io.api.batch.v1.PodFailurePolicyOnPodConditionsPattern': {
    type: { keepZero: true, required: true },
    status: { keepZero: true },
  },
  'k8s.io.api.batch.v1.PodFailurePolicyRule': {
    action: { keepZero: true, required: true, enum: ['FailJob', 'FailIndex', 'Ignore', 'Count'] },
    onPodConditions: { listType: 'atomic' },
  },
  'k8s.io.api.batch.v1.SuccessPolicy': {
    rules: { required: true, listType: 'atomic' },
  },
  'k8s.io.api.batch.v1.SuccessPolicyRule': {
    succeededIndexes: { keepZero: true },
    succeededCount: { keepZero: true },
  },
  'k8s.io.api.batch.v1.UncountedTerminatedPods': {
    succeeded: { listType: 'set' },
    failed: { listType: 'set' },
  },
  'k8s.io.api.coordination.v1.LeaseList': {
    items: { required: true },
  },
  'k8s.io.api.coordination.v1.LeaseSpec': {
    holderIdentity: { keepZero: true },
    leaseDurationSeconds: { keepZero: true },
    leaseTransitions: { keepZero: true },
    strategy: { keepZero: true },
    preferredHolder: { keepZero: true },
  },
  'k8s.io.api.rbac.v1.AggregationRule': {
    clusterRoleSelectors: { listType: 'atomic' },
  },
  'k8s.io.api.rbac.v1.ClusterRole': {
    rules: { listType: 'atomic' },
  },
  'k8s.io.api.rbac.v1.ClusterRoleBinding': {
    subjects: { listType: 'atomic' },
    roleRef: { required: true, structType: 'atomic' },
  },
  'k8s.io.api.rbac.v1.ClusterRoleBindingList': {
    items: { required: true },
  },
  'k8s.io.api.rbac.v1.ClusterRoleList': {
    items: { required: true },
  },
  'k8s.io.api.rbac.v1.PolicyRule': {
    verbs: { required: true, listType: 'atomic' },
    apiGroups: { listType: 'atomic' },
    resources: { listType: 'atomic' },
    resourceNames: { listType: 'atomic' },
    nonResourceURLs: { listType: 'atomic' },
  },
  'k8s.io.api.rbac.v1.Role': {
    rules: { listType: 'atomic' },
  },
  'k8s.io.api.rbac.v1.RoleBinding': {
    subjects: { listType: 'atomic' },
    roleRef: { required: true, structType: 'atomic' },
  },
  'k8s.io.api.rbac.v1.RoleBindingList': {
    items: { required: true },
  },
  'k8s.io.api.rbac.v1.RoleList': {
    items: { required: true },
  },
  'k8s.io.api.rbac.v1.RoleRef': {
    apiGroup: { keepZero: true, required: true },
    kind: { keepZero: true, required: true },
    name: { keepZero: true, required: true },
  },
  'k8s.io.api.rbac.v1.Subject': {
    kind: { keepZero: true, required: true },
    name: { keepZero: true, required: true },
  },
  'k8s.io.api.networking.v1.HTTPIngressPath': {
    pathType: { keepZero: true, required: true, enum: ['Exact', 'ImplementationSpecific', 'Prefix'] },
    backend: { required: true },
  },
  'k8s.io.api.networking.v1.HTTPIngressRuleValue': {
    paths: { required: true, listType: 'atomic' },
  },
  'k8s.io.api.networking.v1.IPBlock': {
    cidr: { keepZero: true, required: true },
    except: { listType: 'atomic' },
  },
  'k8s.io.api.networking.v1.IngressClassList': {
    items: { required: true },
  },
  'k8s.io.api.networking.v1.IngressClassParametersReference': {
    apiGroup: { keepZero: true },
    kind: { keepZero: true, required: true },
    name: { keepZero: true, required: true },
    scope: { keepZero: true },
    namespace: { keepZero: true },
  },
  'k8s.io.api.networking.v1.IngressList': {
    items: { required: true },
  },
  'k8s.io.api.networking.v1.IngressLoadBalancerIngress': {
    ports: { listType: 'atomic' },
  },
  'k8s.io.api.networking.v1.IngressLoadBalancerStatus': {
    ingress: { listType: 'atomic' },
  },
  'k8s.io.api.networking.v1.IngressPortStatus': {
    port: { keepZero: true, required: true },
    protocol: { keepZero: true, required: true, enum: ['SCTP', 'TCP', 'UDP'] },
    error: { keepZero: true },
  },
  'k8s.io.api.networking.v1.IngressServiceBackend': {
    name: { keepZero: true, required: true },
    port: { structType: 'atomic' },
  },
  'k8s.io.api.networking.v1.IngressSpec': {
    ingressClassName: { keepZero: true },
    tls: { listType: 'atomic' },
    rules: { listType: 'atomic' },
  },
  'k8s.io.api.networking.v1.IngressTLS': {
    hosts: { listType: 'atomic' },
  },
  'k8s.io.api.networking.v1.NetworkPolicyEgressRule': {
    ports: { listType: 'atomic' },
    to: { listType: 'atomic' },
  },
  'k8s.io.api.networking.v1.NetworkPolicyIngressRule': {
    ports: { listType: 'atomic' },
    from: { listType: 'atomic' },
  },
  'k8s.io.api.networking.v1.NetworkPolicyList': {
    items: { required: true },
  },
  'k8s.io.api.networking.v1.NetworkPolicyPeer': {
    podSelector: { structType: 'atomic' },
    namespaceSelector: { structType: 'atomic' },
  },
  'k8s.io.api.networking.v1.NetworkPolicyPort': {
    protocol: { keepZero: true, enum: ['SCTP', 'TCP', 'UDP'] },
    endPort: { keepZero: true },
  },
  'k8s.io.api.networking.v1.NetworkPolicySpec': {
    podSelector: { structType: 'atomic' },
    ingress: { listType: 'atomic' },
    egress: { listType: 'atomic' },
    policyTypes: { listType: 'atomic', enum: ['Egress', 'Ingress'] },
  },
  'k8s.io.api.policy.v1.PodDisruptionBudgetList': {
    items: { required: true },
  },
  'k8s.io.api.policy.v1.PodDisruptionBudgetSpec': {
    selector: { patchStrategy: 'replace', structType: 'atomic' },
    unhealthyPodEvictionPolicy: { keepZero: true, enum: ['AlwaysAllow', 'IfHealthyBudget'] },
  },
  'k8s.io.api.policy.v1.PodDisruptionBudgetStatus': {
    disruptionsAllowed: { keepZero: true, required: true },
    currentHealthy: { keepZero: true, required: true },
    desiredHealthy: { keepZero: true, required: true },
    expectedPods: { keepZero: true, required: true },
    conditions: { patchStrategy: 'merge', patchMergeKey: 'type', listType: 'map', listMapKeys: ['type'] },
  },
  'k8s.io.api.storage.v1.StorageClass': {
    provisioner: { keepZero: true, required: true },
    reclaimPolicy: { keepZero: true, enum: ['Recycle', 'Delete', 'Retain'] },
    mountOptions: { listType: 'atomic' },
    allowVolumeExpansion: { keepZero: true },
    volumeBindingMode: { keepZero: true, enum: ['Immediate', 'WaitForFirstConsumer'] },
    allowedTopologies: { listType: 'atomic' },
  },
  'k8s.io.api.storage.v1.StorageClassList': {
    items: { required: true },
  },
  'k8s.io.api.autoscaling.v1.CrossVersionObjectReference': {
    kind: { keepZero: true, required: true },
    name: { keepZero: true, required: true },
  },
  'k8s.io.api.autoscaling.v1.HorizontalPodAutoscalerList': {
    items: { required: true },
  },
  'k8s.io.api.autoscaling.v1.HorizontalPodAutoscalerSpec': {
    scaleTargetRef: { required: true, structType: 'atomic' },
    minReplicas: { keepZero: true },
    maxReplicas: { keepZero: true, required: true },
    targetCPUUtilizationPercentage: { keepZero: true },
  },
  'k8s.io.api.autoscaling.v1.HorizontalPodAutoscalerStatus': {
    observedGeneration: { keepZero: true },
    currentReplicas: { keepZero: true, required: true },
    desiredReplicas: { keepZero: true, required: true },
    currentCPUUtilizationPercentage: { keepZero: true },
  },
  'k8s.io.api.autoscaling.v1.ScaleStatus': {
    replicas: { keepZero: true, required: true },
  },
  'k8s.io.api.autoscaling.v2.ContainerResourceMetricSource': {
    name: { keepZero: true, required: true },
    target: { required: true },
    container: { keepZero: true, required: true },
  },
  'k8s.io.api.autoscaling.v2.ContainerResourceMetricStatus': {
    name: { keepZero: true, required: true },
    current: { required: true },
    container: { keepZero: true, required: true },
  },
  'k8s.io.api.autoscaling.v2.CrossVersionObjectReference': {
    kind: { keepZero: true, required: true },
    name: { keepZero: true, required: true },
  },
  'k8s.io.api.autoscaling.v2.ExternalMetricSource': {
    metric: { required: true },
    target: { required: true },
  },
  'k8s.io.api.autoscaling.v2.ExternalMetricStatus': {
    metric: { required: true },
    current: { required: true },
  },
  'k8s.io.api.autoscaling.v2.HPAScalingPolicy': {
    type: { keepZero: true, required: true },
    value: { keepZero: true, required: true },
    periodSeconds: { keepZero: true, required: true },
  },
  'k8s.io.api.autoscaling.v2.HPAScalingRules': {
    selectPolicy: { keepZero: true },
    policies: { listType: 'atomic' },
    stabilizationWindowSeconds: { keepZero: true },
  },
  'k8s.io.api.autoscaling.v2.HorizontalPodAutoscalerCondition': {
    type: { keepZero: true, required: true },
    status: { keepZero: true, required: true },
  },
  'k8s.io.api.autoscaling.v2.HorizontalPodAutoscalerList': {
    items: { required: true },
  },
  'k8s.io.api.autoscaling.v2.HorizontalPodAutoscalerSpec': {
    scaleTargetRef: { required: true },
    minReplicas: { keepZero: true },
    maxReplicas: { keepZero: true, required: true },
    metrics: { listType: 'atomic' },
  },
  'k8s.io.api.autoscaling.v2.HorizontalPodAutoscalerStatus': {
    observedGeneration: { keepZero: true },
    desiredReplicas: { keepZero: true, required: true },
    currentMetrics: { listType: 'atomic' },
    conditions: { patchStrategy: 'merge', patchMergeKey: 'type', listType: 'map', listMapKeys: ['type'] },
  },
  'k8s.io.api.autoscaling.v2.MetricIdentifier': {
    name: { keepZero: true, required: true },
    selector: { structType: 'atomic' },
  },
  'k8s.io.api.autoscaling.v2.MetricSpec': {
    type: { keepZero: true, required: true },
  },
  'k8s.io.api.autoscaling.v2.MetricStatus': {
    type: { keepZero: true, required: true },
  },
  'k8s.io.api.autoscaling.v2.MetricTarget': {
    type: { keepZero: true, required: true },
    averageUtilization: { keepZero: true },
  },
  'k8s.io.api.autoscaling.v2.MetricValueStatus': {
    averageUtilization: { keepZero: true },
  },
  'k8s.io.api.autoscaling.v2.ObjectMetricSource': {
    describedObject: { required: true },
    target: { required: true },
    metric: { required: true },
  },
  'k8s.io.api.autoscaling.v2.ObjectMetricStatus': {
    metric: { required: true },
    current: { required: true },
    describedObject: { required: true },
  },
  'k8s.io.api.autoscaling.v2.PodsMetricSource': {
    metric: { required: true },
    target: { required: true },
  },
  'k8s.io.api.autoscaling.v2.PodsMetricStatus': {
    metric: { required: true },
    current: { required: true },
  },
  'k8s.io.api.autoscaling.v2.ResourceMetricSource': {
    name: { keepZero: true, required: true },
    target: { required: true },
  },
  'k8s.io.api.autoscaling.v2.ResourceMetricStatus': {
    name: { keepZero: true, required: true },
    current: { required: true },
  },
  'k8s.io.api.scheduling.v1.PriorityClass': {
    value: { keepZero: true, required: true },
    preemptionPolicy: { keepZero: true, enum: ['Never', 'PreemptLowerPriority'] },
  },
  'k8s.io.api.scheduling.v1.PriorityClassList': {
    items: { required: true },
  },
  'k8s.io.api.discovery.v1.Endpoint': {
    addresses: { required: true, listType: 'set' },
    hostname: { keepZero: true },
    targetRef: { structType: 'atomic' },
    nodeName: { keepZero: true },
    zone: { keepZero: true },
  },
  'k8s.io.api.discovery.v1.EndpointConditions': {
    ready: { keepZero: true },
    serving: { keepZero: true },
    terminating: { keepZero: true },
  },
  'k8s.io.api.discovery.v1.EndpointHints': {
    forZones: { listType: 'atomic' },
    forNodes: { listType: 'atomic' },
  },
  'k8s.io.api.discovery.v1.EndpointPort': {
    name: { keepZero: true },
    protocol: { keepZero: true, enum: ['SCTP', 'TCP', 'UDP'] },
    port: { keepZero: true },
    appProtocol: { keepZero: true },
  },
  'k8s.io.api.discovery.v1.EndpointSlice': {
    addressType: { keepZero: true, required: true, enum: ['FQDN', 'IPv4', 'IPv6'] },
    endpoints: { listType: 'atomic' },
    ports: { listType: 'atomic' },
  },
  'k8s.io.api.discovery.v1.EndpointSliceList': {
    items: { required: true },
  },
  'k8s.io.api.discovery.v1.ForNode': {
    name: { keepZero: true, required: true },
  },
  'k8s.io.api.discovery.v1.ForZone': {
    name: { keepZero: true, required: true },
  },
  'k8s.io.api.events.v1.Event': {
    metadata: { required: true },
    eventTime: { required: true },
    regarding: { structType: 'atomic' },
    related: { structType: 'atomic' },
  },
  'k8s.io.api.events.v1.EventList': {
    items: { required: true },
  },
  'k8s.io.api.events.v1.EventSeries': {
    count: { keepZero: true, required: true },
    lastObservedTime: { required: true },
  },
  'k8s.io.apimachinery.pkg.apis.meta.v1.APIGroup': {
    name: { keepZero: true, required: true },
    versions: { required: true, listType: 'atomic' },
    serverAddressByClientCIDRs: { listType: 'atomic' },
  },
  'k8s.io.apimachinery.pkg.apis.meta.v1.APIGroupList': {
    groups: { required: true, listType: 'atomic' },
  },
  'k8s.io.apimachinery.pkg.apis.meta.v1.APIResource': {
    name: { keepZero: true, required: true },
    singularName: { keepZero: true, required: true },
    namespaced: { keepZero: true, required: true },
    kind: { keepZero: true, required: true },
    verbs: { required: true },
    shortNames: { listType: 'atomic' },
    categories: { listType: 'atomic' },
  },
  'k8s.io.apimachinery.pkg.apis.meta.v1.APIResourceList': {
    groupVersion: { keepZero: true, required: true },
    resources: { required: true, listType: 'atomic' },
  },
  'k8s.io.apimachinery.pkg.apis.meta.v1.APIVersions': {
    versions: { required: true, listType: 'atomic' },
    serverAddressByClientCIDRs: { required: true, listType: 'atomic' },
  },
  'k8s.io.apimachinery.pkg.apis.meta.v1.ApplyOptions': {
    dryRun: { listType: 'atomic' },
    force: { keepZero: true, required: true },
    fieldManager: { keepZero: true, required: true },
  },
  'k8s.io.apimachinery.pkg.apis.meta.v1.Condition': {
    type: { keepZero: true, required: true },
    status: { keepZero: true, required: true },
    lastTransitionTime: { required: true },
    reason: { keepZero: true, required: true },
    message: { keepZero: true, required: true },
  },
  'k8s.io.apimachinery.pkg.apis.meta.v1.CreateOptions': {
    dryRun: { listType: 'atomic' },
  },
  'k8s.io.apimachinery.pkg.apis.meta.v1.DeleteOptions': {
    gracePeriodSeconds: { keepZero: true },
    orphanDependents: { keepZero: true },
    propagationPolicy: { keepZero: true },
    dryRun: { listType: 'atomic' },
    ignoreStoreReadErrorWithClusterBreakingPotential: { keepZero: true },
  },
  'k8s.io.apimachinery.pkg.apis.meta.v1.FieldSelectorRequirement': {
    key: { keepZero: true, required: true },
    operator: { keepZero: true, required: true },
    values: { listType: 'atomic' },
  },
  'k8s.io.apimachinery.pkg.apis.meta.v1.GroupKind': {
    group: { keepZero: true, required: true },
    kind: { keepZero: true, required: true },
  },
  'k8s.io.apimachinery.pkg.apis.meta.v1.GroupResource': {
    group: { keepZero: true, required: true },
    resource: { keepZero: true, required: true },
  },
  'k8s.io.apimachinery.pkg.apis.meta.v1.GroupVersion': {
    group: { keepZero: true, required: true }, // unsure: GroupVersion marshals to JSON as a single "group/version" string (custom MarshalJSON); tag facts shown for completeness
    version: { keepZero: true, required: true }, // unsure: GroupVersion marshals to JSON as a single "group/version" string (custom MarshalJSON); tag facts shown for completeness
  },
  'k8s.io.apimachinery.pkg.apis.meta.v1.GroupVersionForDiscovery': {
    groupVersion: { keepZero: true, required: true },
    version: { keepZero: true, required: true },
  },
  'k8s.io.apimachinery.pkg.apis.meta.v1.GroupVersionKind': {
    group: { keepZero: true, required: true },
    version: { keepZero: true, required: true },
    kind: { keepZero: true, required: true },
  },
  'k8s.io.apimachinery.pkg.apis.meta.v1.GroupVersionResource': {
    group: { keepZero: true, required: true },
    version: { keepZero: true, required: true },
    resource: { keepZero: true, required: true },
  },
  'k8s.io.apimachinery.pkg.apis.meta.v1.LabelSelector': {
    matchExpressions: { listType: 'atomic' },
  },
  'k8s.io.apimachinery.pkg.apis.meta.v1.LabelSelectorRequirement': {
    key: { keepZero: true, required: true },
    operator: { keepZero: true, required: true },
    values: { listType: 'atomic' },
  },
  'k8s.io.apimachinery.pkg.apis.meta.v1.List': {
    items: { required: true },
  },
  'k8s.io.apimachinery.pkg.apis.meta.v1.ListMeta': {
    remainingItemCount: { keepZero: true },
  },
  'k8s.io.apimachinery.pkg.apis.meta.v1.ListOptions': {
    timeoutSeconds: { keepZero: true },
    sendInitialEvents: { keepZero: true },
  },
  'k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta': {
    deletionGracePeriodSeconds: { keepZero: true },
    ownerReferences: { patchStrategy: 'merge', patchMergeKey: 'uid', listType: 'map', listMapKeys: ['uid'] },
    finalizers: { patchStrategy: 'merge', listType: 'set' },
    managedFields: { listType: 'atomic' },
  },
  'k8s.io.apimachinery.pkg.apis.meta.v1.OwnerReference': {
    apiVersion: { keepZero: true, required: true },
    kind: { keepZero: true, required: true },
    name: { keepZero: true, required: true },
    uid: { keepZero: true, required: true },
    controller: { keepZero: true },
    blockOwnerDeletion: { keepZero: true },
  },
  'k8s.io.apimachinery.pkg.apis.meta.v1.PartialObjectMetadataList': {
    items: { required: true },
  },
  'k8s.io.apimachinery.pkg.apis.meta.v1.PatchOptions': {
    dryRun: { listType: 'atomic' },
    force: { keepZero: true },
  },
  'k8s.io.apimachinery.pkg.apis.meta.v1.Preconditions': {
    uid: { keepZero: true },
    resourceVersion: { keepZero: true },
  },
  'k8s.io.apimachinery.pkg.apis.meta.v1.RootPaths': {
    paths: { required: true, listType: 'atomic' },
  },
  'k8s.io.apimachinery.pkg.apis.meta.v1.ServerAddressByClientCIDR': {
    clientCIDR: { keepZero: true, required: true },
    serverAddress: { keepZero: true, required: true },
  },
  'k8s.io.apimachinery.pkg.apis.meta.v1.StatusDetails': {
    causes: { listType: 'atomic' },
  },
  'k8s.io.apimachinery.pkg.apis.meta.v1.Timestamp': {
    seconds: { keepZero: true, required: true },
    nanos: { keepZero: true, required: true },
  },
  'k8s.io.apimachinery.pkg.apis.meta.v1.UpdateOptions': {
    dryRun: { listType: 'atomic' },
  },
  'k8s.io.apimachinery.pkg.apis.meta.v1.WatchEvent': {
    type: { keepZero: true, required: true },
    object: { required: true },
  },
};
