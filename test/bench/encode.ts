import { encodeProtobuf } from '../../src/codec/protobuf-write';
import { withGoZerosOfKind } from '../../src/schema/go-zeros';
import { deploymentOf } from '../harness/large-deployment';
import { fmt, type BenchEnv } from './harness';

/**
 * CPU per Protobuf encoding of one object, in this process (the storage encoding every write pays):
 * the writes bench's ConfigMap as a create stores it, a running pod with its status, and the
 * 1,000-container Deployment. process.cpuUsage over rounds after a warm-up; the median round.
 */

const ROUNDS = Number(process.env.BENCH_ENCODE_ROUNDS ?? 15);
const TIME = '2026-11-29T06:30:00Z';

const configMap = {
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: {
    name: 'cm-123',
    namespace: 'default',
    uid: '6f1c2a44-3b1e-4c5e-9a4f-0d8e2b7c9a11',
    creationTimestamp: TIME,
    labels: { bench: 'writes' },
    managedFields: [
      {
        manager: 'unknown',
        operation: 'Update',
        apiVersion: 'v1',
        time: TIME,
        fieldsType: 'FieldsV1',
        fieldsV1: { 'f:data': { '.': {}, 'f:key': {} }, 'f:metadata': { 'f:labels': { '.': {}, 'f:bench': {} } } },
      },
    ],
  },
  data: { key: 'x'.repeat(200) },
};

const podFields = {
  'f:metadata': {
    'f:generateName': {},
    'f:labels': { '.': {}, 'f:app': {}, 'f:pod-template-hash': {} },
    'f:ownerReferences': { '.': {}, 'k:{"uid":"b3b1c2d4-1111-2222-3333-444455556666"}': {} },
  },
  'f:spec': {
    'f:containers': {
      'k:{"name":"web"}': {
        '.': {},
        'f:image': {},
        'f:imagePullPolicy': {},
        'f:name': {},
        'f:ports': { '.': {}, 'k:{"containerPort":8080,"protocol":"TCP"}': { '.': {}, 'f:containerPort': {}, 'f:name': {}, 'f:protocol': {} } },
        'f:resources': { '.': {}, 'f:limits': { '.': {}, 'f:cpu': {}, 'f:memory': {} }, 'f:requests': { '.': {}, 'f:cpu': {}, 'f:memory': {} } },
      },
    },
    'f:dnsPolicy': {},
    'f:restartPolicy': {},
    'f:schedulerName': {},
    'f:terminationGracePeriodSeconds': {},
  },
};

const statusFields = {
  'f:status': {
    'f:conditions': { 'k:{"type":"Ready"}': { '.': {}, 'f:lastProbeTime': {}, 'f:lastTransitionTime': {}, 'f:status': {}, 'f:type': {} } },
    'f:containerStatuses': {},
    'f:hostIP': {},
    'f:phase': {},
    'f:podIP': {},
    'f:podIPs': { '.': {}, 'k:{"ip":"10.244.1.17"}': { '.': {}, 'f:ip': {} } },
    'f:startTime': {},
  },
};

/** A pod of a ReplicaSet, scheduled and running, with the managed fields of its controller and kubelet. */
const runningPod = {
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: {
    name: 'web-7d4b9c8f5-x2k9p',
    generateName: 'web-7d4b9c8f5-',
    namespace: 'default',
    uid: 'a3b1c2d4-1111-2222-3333-444455556666',
    creationTimestamp: TIME,
    labels: { app: 'web', 'pod-template-hash': '7d4b9c8f5' },
    ownerReferences: [
      {
        apiVersion: 'apps/v1',
        kind: 'ReplicaSet',
        name: 'web-7d4b9c8f5',
        uid: 'b3b1c2d4-1111-2222-3333-444455556666',
        controller: true,
        blockOwnerDeletion: true,
      },
    ],
    managedFields: [
      { manager: 'kube-controller-manager', operation: 'Update', apiVersion: 'v1', time: TIME, fieldsType: 'FieldsV1', fieldsV1: podFields },
      { manager: 'kubelet', operation: 'Update', apiVersion: 'v1', time: TIME, fieldsType: 'FieldsV1', subresource: 'status', fieldsV1: statusFields },
    ],
  },
  spec: {
    containers: [
      {
        name: 'web',
        image: 'registry.example/web:1.2.3',
        args: ['--port=8080', '--log-level=info'],
        ports: [{ name: 'http', containerPort: 8080, protocol: 'TCP' }],
        env: [{ name: 'MODE', value: 'prod' }],
        resources: { limits: { cpu: '500m', memory: '256Mi' }, requests: { cpu: '100m', memory: '128Mi' } },
        volumeMounts: [{ name: 'kube-api-access-x2k9p', readOnly: true, mountPath: '/var/run/secrets/kubernetes.io/serviceaccount' }],
        readinessProbe: {
          httpGet: { path: '/healthz', port: 8080, scheme: 'HTTP' },
          periodSeconds: 10,
          timeoutSeconds: 1,
          successThreshold: 1,
          failureThreshold: 3,
        },
        terminationMessagePath: '/dev/termination-log',
        terminationMessagePolicy: 'File',
        imagePullPolicy: 'IfNotPresent',
      },
    ],
    volumes: [
      {
        name: 'kube-api-access-x2k9p',
        projected: {
          defaultMode: 420,
          sources: [
            { serviceAccountToken: { expirationSeconds: 3607, path: 'token' } },
            { configMap: { name: 'kube-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
            { downwardAPI: { items: [{ path: 'namespace', fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' } }] } },
          ],
        },
      },
    ],
    restartPolicy: 'Always',
    terminationGracePeriodSeconds: 30,
    dnsPolicy: 'ClusterFirst',
    serviceAccountName: 'default',
    nodeName: 'node-17',
    securityContext: {},
    schedulerName: 'default-scheduler',
    tolerations: [
      { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
      { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
    ],
    priority: 0,
    enableServiceLinks: true,
    preemptionPolicy: 'PreemptLowerPriority',
  },
  status: {
    phase: 'Running',
    conditions: ['PodReadyToStartContainers', 'Initialized', 'Ready', 'ContainersReady', 'PodScheduled'].map((type) => ({
      type,
      status: 'True',
      lastProbeTime: null,
      lastTransitionTime: TIME,
    })),
    hostIP: '172.18.0.17',
    hostIPs: [{ ip: '172.18.0.17' }],
    podIP: '10.244.1.17',
    podIPs: [{ ip: '10.244.1.17' }],
    startTime: TIME,
    containerStatuses: [
      {
        name: 'web',
        state: { running: { startedAt: TIME } },
        lastState: {},
        ready: true,
        restartCount: 0,
        image: 'registry.example/web:1.2.3',
        imageID: 'registry.example/web@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef',
        containerID: 'containerd://0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef',
        started: true,
      },
    ],
    qosClass: 'Burstable',
  },
};

const container = (i: number) => ({ name: `c${i}`, image: 'x', ports: [{ containerPort: 80 }], resources: { limits: { cpu: '1' } } });

/** CPU µs per encodeProtobuf of `obj`: the median of ROUNDS rounds of `n`, after 3n to warm up. */
function cpuPerEncode(obj: Record<string, unknown>, n: number): number {
  for (let i = 0; i < 3 * n; i++) encodeProtobuf(obj);
  const rounds: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    const start = process.cpuUsage();
    for (let i = 0; i < n; i++) encodeProtobuf(obj);
    const used = process.cpuUsage(start);
    rounds.push((used.user + used.system) / n);
  }
  return rounds.sort((a, b) => a - b)[rounds.length >> 1];
}

export function benchEncode(_env: BenchEnv): Promise<Record<string, number>> {
  const objects: [string, Record<string, unknown>, number][] = [
    ['configMap', configMap, 4000],
    ['runningPod', runningPod, 1000],
    ['deployment1000', deploymentOf(Array.from({ length: 1000 }, (_, i) => container(i))), 10],
  ];
  console.log(`\nProtobuf encoding in-process (the storage encoding), CPU µs per object, median of ${ROUNDS} rounds`);
  const results: Record<string, number> = {};
  for (const [name, obj, n] of objects) {
    // as the storage codec gives it: Go's zero values filled in
    withGoZerosOfKind(String(obj.apiVersion), String(obj.kind), obj);
    results[name] = cpuPerEncode(obj, n);
    console.log(`  ${name.padEnd(16)} ${String(encodeProtobuf(obj).length).padStart(7)} bytes   ${fmt(results[name], 2).padStart(9)} µs`);
  }
  return Promise.resolve(results);
}
