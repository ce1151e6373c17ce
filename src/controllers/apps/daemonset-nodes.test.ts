import type { DaemonSet } from '../../generated/types/apps/v1';
import type { Node, PodSpec, Taint } from '../../generated/types/core/v1';
import { daemonPodTemplate, nodeShouldRunDaemonPod, targetNodeName, withNodeNameAffinity } from './daemonset-nodes';

const node = (taints: Taint[] = [], labels: Record<string, string> = {}): Node => ({ metadata: { name: 'n1', labels }, spec: { taints } });
const ds = (spec: PodSpec = {}, annotations?: Record<string, string>): DaemonSet => ({
  metadata: { name: 'agent', namespace: 'default', generation: 1, ...(annotations ? { annotations } : {}) },
  spec: {
    selector: { matchLabels: { app: 'a' } },
    template: { metadata: { labels: { app: 'a' } }, spec: { containers: [{ name: 'c', image: 'i' }], ...spec } },
  },
});

test('taints: NoSchedule keeps new pods off but lets one stay; NoExecute sends it away; tolerations and the daemon tolerations let them on', () => {
  expect(nodeShouldRunDaemonPod(node(), ds())).toEqual({ shouldRun: true, shouldContinueRunning: true });
  expect(nodeShouldRunDaemonPod(node([{ key: 'dedicated', value: 'db', effect: 'NoSchedule' }]), ds())).toEqual({
    shouldRun: false,
    shouldContinueRunning: true,
  });
  expect(nodeShouldRunDaemonPod(node([{ key: 'dedicated', effect: 'NoExecute' }]), ds())).toEqual({ shouldRun: false, shouldContinueRunning: false });
  expect(
    nodeShouldRunDaemonPod(node([{ key: 'dedicated', value: 'db', effect: 'NoSchedule' }]), ds({ tolerations: [{ key: 'dedicated', value: 'db' }] })).shouldRun,
  ).toBe(true);
  expect(
    nodeShouldRunDaemonPod(node([{ key: 'dedicated', value: 'db', effect: 'NoSchedule' }]), ds({ tolerations: [{ key: 'dedicated', value: 'x' }] })).shouldRun,
  ).toBe(false);
  expect(nodeShouldRunDaemonPod(node([{ key: 'x', effect: 'PreferNoSchedule' }]), ds()).shouldRun).toBe(true);
  // Cordoned, under pressure or unreachable: daemon pods tolerate it; an uninitialised network only for host-network pods.
  const kube = (key: string, effect: Taint['effect']): Taint => ({ key: `node.kubernetes.io/${key}`, effect });
  expect(
    nodeShouldRunDaemonPod(node([kube('unschedulable', 'NoSchedule'), kube('disk-pressure', 'NoSchedule'), kube('unreachable', 'NoExecute')]), ds()).shouldRun,
  ).toBe(true);
  expect(nodeShouldRunDaemonPod(node([kube('not-ready', 'NoSchedule')]), ds()).shouldRun).toBe(false);
  expect(nodeShouldRunDaemonPod(node([kube('network-unavailable', 'NoSchedule')]), ds()).shouldRun).toBe(false);
  expect(nodeShouldRunDaemonPod(node([kube('network-unavailable', 'NoSchedule')]), ds({ hostNetwork: true })).shouldRun).toBe(true);
});

test('node selection: nodeSelector, required node affinity (expressions and fields), a template nodeName', () => {
  expect(nodeShouldRunDaemonPod(node([], { disk: 'ssd' }), ds({ nodeSelector: { disk: 'ssd' } })).shouldRun).toBe(true);
  expect(nodeShouldRunDaemonPod(node([], { disk: 'hdd' }), ds({ nodeSelector: { disk: 'ssd' } }))).toEqual({ shouldRun: false, shouldContinueRunning: false });
  const required = (matchExpressions: object[]): PodSpec => ({
    affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions }] } } },
  });
  expect(nodeShouldRunDaemonPod(node([], { cpus: '4' }), ds(required([{ key: 'cpus', operator: 'Gt', values: ['8'] }]))).shouldRun).toBe(false);
  expect(nodeShouldRunDaemonPod(node([], { cpus: '16' }), ds(required([{ key: 'cpus', operator: 'Gt', values: ['8'] }]))).shouldRun).toBe(true);
  expect(nodeShouldRunDaemonPod(node([], { zone: 'b' }), ds(required([{ key: 'zone', operator: 'NotIn', values: ['a'] }]))).shouldRun).toBe(true);
  expect(nodeShouldRunDaemonPod(node([], { zone: 'a' }), ds(required([{ key: 'zone', operator: 'NotIn', values: ['a'] }]))).shouldRun).toBe(false);
  expect(nodeShouldRunDaemonPod(node(), ds({ nodeName: 'other' }))).toEqual({ shouldRun: false, shouldContinueRunning: false });
  expect(nodeShouldRunDaemonPod(node(), ds({ nodeName: 'n1' })).shouldRun).toBe(true);
});

test('a daemon pod is bound for its node by affinity, keeping the rest of its affinity, and carries the revision labels', () => {
  const affinity = withNodeNameAffinity(
    {
      nodeAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'a', operator: 'Exists' }] }] },
        preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 1, preference: {} }],
      },
      podAntiAffinity: {},
    },
    'n2',
  );
  expect(affinity).toEqual({
    nodeAffinity: {
      requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: ['n2'] }] }] },
      preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 1, preference: {} }],
    },
    podAntiAffinity: {},
  });
  expect(targetNodeName({ metadata: {}, spec: { affinity } })).toBe('n2');
  expect(targetNodeName({ metadata: {}, spec: { nodeName: 'n3', affinity } })).toBe('n3');
  expect(targetNodeName({ metadata: {}, spec: {} })).toBeNull();

  const template = daemonPodTemplate(
    ds(
      { tolerations: [{ key: 'node.kubernetes.io/unschedulable', operator: 'Exists', effect: 'NoSchedule' }] },
      { 'deprecated.daemonset.template.generation': '2' },
    ),
    'abc',
  );
  expect(template.metadata.labels).toEqual({ app: 'a', 'pod-template-generation': '2', 'controller-revision-hash': 'abc' });
  expect(template.spec?.tolerations?.map((t) => `${t.key}:${t.effect}`)).toEqual([
    'node.kubernetes.io/unschedulable:NoSchedule',
    'node.kubernetes.io/not-ready:NoExecute',
    'node.kubernetes.io/unreachable:NoExecute',
    'node.kubernetes.io/disk-pressure:NoSchedule',
    'node.kubernetes.io/memory-pressure:NoSchedule',
    'node.kubernetes.io/pid-pressure:NoSchedule',
  ]);
});
