import type { Node, Pod } from '../generated/types/core/v1';
import { schedulePod, type ScheduleLookups } from './algorithm';
import { ClusterCache } from './node-info';
import { podRequests } from './resources';

const lookups: ScheduleLookups = { namespaceLabels: () => ({}), defaultSelector: () => null, claim: () => undefined };

function node(name: string, opts: { cpu?: string; memory?: string; pods?: string; labels?: Record<string, string>; taints?: Node['spec'] } = {}): Node {
  const allocatable = { cpu: opts.cpu ?? '4', memory: opts.memory ?? '8Gi', pods: opts.pods ?? '110' };
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name, labels: { 'kubernetes.io/hostname': name, ...opts.labels } },
    spec: opts.taints ?? {},
    status: { allocatable },
  };
}

let serial = 0;
function pod(spec: Pod['spec'] = {}, labels: Record<string, string> = {}, name = `p${serial++}`): Pod {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'default', labels }, spec: { containers: [{ name: 'c' }], ...spec } };
}

const requesting = (cpu: string, memory = '0') => ({ containers: [{ name: 'c', resources: { requests: { cpu, memory } } }] });

function cluster(...nodes: Node[]): ClusterCache {
  const cache = new ClusterCache();
  for (const n of nodes) cache.setNode(n);
  return cache;
}

describe('podRequests', () => {
  test('containers summed, init containers as steps with the sidecars before them, overhead added', () => {
    const p = pod({
      containers: [
        { name: 'a', resources: { requests: { cpu: '100m', memory: '1Mi' } } },
        { name: 'b', resources: { requests: { cpu: '200m' } } },
      ],
      initContainers: [
        { name: 'side', restartPolicy: 'Always', resources: { requests: { cpu: '50m' } } },
        { name: 'init', resources: { requests: { cpu: '1', memory: '2Mi' } } },
      ],
      overhead: { cpu: '10m' },
    });
    // max(100+200+50, 1000+50) + 10; memory max(1Mi, 2Mi).
    expect(podRequests(p).get('cpu')).toBe(1060);
    expect(podRequests(p).get('memory')).toBe(2 * 1024 * 1024);
    // Scoring's defaults for what a container leaves unset: b gets 200MB of memory, the init step none.
    expect(podRequests(pod({ containers: [{ name: 'x' }] }), true)).toEqual(
      new Map([
        ['cpu', 100],
        ['memory', 200 * 1024 * 1024],
      ]),
    );
  });
});

describe('filters and the FailedScheduling message', () => {
  test('each filter reason counted per node, sorted, with the preemption summary by code', () => {
    const cache = cluster(
      node('tainted', { taints: { taints: [{ key: 'dedicated', value: 'x', effect: 'NoSchedule' }] } }),
      node('cordoned', { taints: { unschedulable: true } }),
      node('small', { cpu: '1' }),
      node('full', { pods: '1' }),
      node('other', { cpu: '1', labels: { disk: 'hdd' } }),
    );
    cache.placePod(pod(requesting('500m')), 'full');
    const decision = schedulePod(pod({ ...requesting('2'), nodeSelector: { disk: 'hdd' } }), cache, lookups);
    // tainted and cordoned are turned down before NodeAffinity, small and full by it (no disk label), other for its size.
    expect(decision).toEqual({
      message:
        "0/5 nodes are available: 1 Insufficient cpu, 1 node(s) had untolerated taint(s), 1 node(s) were unschedulable, 2 node(s) didn't match Pod's node affinity/selector. no new claims to deallocate, preemption: 0/5 nodes are available: 5 Preemption is not helpful for scheduling.",
    });
    expect(schedulePod(pod(requesting('500m')), cache, lookups)).not.toHaveProperty('message');
    const tooMany = cluster(node('full', { pods: '1', cpu: '1' }));
    tooMany.placePod(pod(requesting('800m')), 'full');
    expect(schedulePod(pod(requesting('500m')), tooMany, lookups)).toEqual({
      message:
        '0/1 nodes are available: 1 Insufficient cpu, 1 Too many pods. no new claims to deallocate, preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod.',
    });
    expect(schedulePod(pod(), cluster(), lookups)).toEqual({ message: 'no nodes available to schedule pods' });
    expect(schedulePod(pod({ preemptionPolicy: 'Never', nodeSelector: { a: 'b' } }), cluster(node('n')), lookups)).toEqual({
      message:
        "0/1 nodes are available: 1 node(s) didn't match Pod's node affinity/selector. no new claims to deallocate, preemption: not eligible due to preemptionPolicy=Never.",
    });
  });

  test("VolumeBinding's PreFilter: a missing or unbound claim stops the pod before any node is looked at", () => {
    const withClaim = pod({ volumes: [{ name: 'data', persistentVolumeClaim: { claimName: 'data' } }] });
    const cache = cluster(node('a'), node('b'));
    expect(schedulePod(withClaim, cache, lookups)).toEqual({
      message:
        '0/2 nodes are available: persistentvolumeclaim "data" not found. no new claims to deallocate, preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling.',
    });
    const claim = (volumeName?: string) => ({
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: { name: 'data', namespace: 'default' },
      spec: { volumeName },
    });
    expect(schedulePod(withClaim, cache, { ...lookups, claim: () => claim() })).toHaveProperty(
      'message',
      expect.stringMatching(/^0\/2 nodes are available: pod has unbound immediate PersistentVolumeClaims\. /),
    );
    expect(schedulePod(withClaim, cache, { ...lookups, claim: () => claim('pv-1') })).toHaveProperty('node');
  });

  test('tolerations, node affinity operators and matchFields', () => {
    const cache = cluster(
      node('gpu', { labels: { gen: '5' }, taints: { taints: [{ key: 'gpu', effect: 'NoSchedule' }] } }),
      node('old', { labels: { gen: '3' } }),
    );
    const gt4 = {
      nodeAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'gen', operator: 'Gt' as const, values: ['4'] }] }] },
      },
    };
    expect(schedulePod(pod({ affinity: gt4, tolerations: [{ key: 'gpu', operator: 'Exists' }] }), cache, lookups)).toEqual({ node: 'gpu' });
    expect(schedulePod(pod({ affinity: gt4, tolerations: [{ key: 'gpu', operator: 'Equal', value: 'y' }] }), cache, lookups)).toHaveProperty('message');
    const byName = {
      nodeAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: {
          nodeSelectorTerms: [{ matchFields: [{ key: 'metadata.name', operator: 'In' as const, values: ['old'] }] }],
        },
      },
    };
    expect(schedulePod(pod({ affinity: byName }), cache, lookups)).toEqual({ node: 'old' });
  });

  test('inter-pod affinity: the first pod of a self-affine group goes anywhere, the next follows; existing anti-affinity repels', () => {
    const cache = cluster(node('a', { labels: { zone: 'z1' } }), node('b', { labels: { zone: 'z2' } }));
    const together = {
      podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ labelSelector: { matchLabels: { app: 'x' } }, topologyKey: 'zone' }] },
    };
    const first = schedulePod(pod({ affinity: together }, { app: 'x' }), cache, lookups);
    expect(first).toHaveProperty('node');
    const firstNode = (first as { node: string }).node;
    cache.placePod(pod({ affinity: together }, { app: 'x' }), firstNode);
    for (let i = 0; i < 3; i++) expect(schedulePod(pod({ affinity: together }, { app: 'x' }), cache, lookups)).toEqual({ node: firstNode });
    // A pod elsewhere that wants no app=y near it keeps app=y pods out of its zone.
    const loner = {
      podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ labelSelector: { matchLabels: { app: 'y' } }, topologyKey: 'zone' }] },
    };
    cache.placePod(pod({ affinity: loner }), firstNode);
    const other = firstNode === 'a' ? 'b' : 'a';
    expect(schedulePod(pod({}, { app: 'y' }), cache, lookups)).toEqual({ node: other });
  });
});

describe('scores', () => {
  test('least allocated and balanced: an equal pod goes to the emptier node; PreferNoSchedule and preferred affinity steer', () => {
    const cache = cluster(node('busy'), node('idle'));
    cache.placePod(pod(requesting('2', '4Gi')), 'busy');
    expect(schedulePod(pod(requesting('100m', '100Mi')), cache, lookups)).toEqual({ node: 'idle' });

    const soft = cluster(node('soft', { taints: { taints: [{ key: 'k', effect: 'PreferNoSchedule' }] } }), node('plain'));
    expect(schedulePod(pod(), soft, lookups)).toEqual({ node: 'plain' });

    const prefer = cluster(node('ssd', { labels: { disk: 'ssd' } }), node('hdd', { labels: { disk: 'hdd' } }));
    prefer.placePod(pod(requesting('1', '2Gi')), 'ssd');
    const affinity = {
      nodeAffinity: {
        preferredDuringSchedulingIgnoredDuringExecution: [
          { weight: 100, preference: { matchExpressions: [{ key: 'disk', operator: 'In' as const, values: ['ssd'] }] } },
        ],
      },
    };
    expect(schedulePod(pod({ affinity, ...requesting('100m') }), prefer, lookups)).toEqual({ node: 'ssd' });
  });

  test('system default spreading: pods of one ReplicaSet go to hosts with fewer of them', () => {
    const cache = cluster(node('a'), node('b'));
    const selector = [{ key: 'app', operator: 'Equals' as const, values: ['web'] }];
    const spreading = { ...lookups, defaultSelector: () => selector };
    cache.placePod(pod({}, { app: 'web' }), 'a');
    cache.placePod(pod({}, { app: 'web' }), 'a');
    // Best-effort pods score the same on resources: only spreading tells the nodes apart.
    expect(schedulePod(pod({}, { app: 'web' }), cache, spreading)).toEqual({ node: 'b' });
  });

  test('topology spread ScheduleAnyway prefers the domain with fewer matching pods', () => {
    const cache = cluster(node('a', { labels: { zone: 'z1' } }), node('b', { labels: { zone: 'z2' } }));
    cache.placePod(pod({}, { app: 'w' }), 'b');
    const constraint = { maxSkew: 1, topologyKey: 'zone', whenUnsatisfiable: 'ScheduleAnyway' as const, labelSelector: { matchLabels: { app: 'w' } } };
    expect(schedulePod(pod({ topologySpreadConstraints: [constraint] }, { app: 'w' }), cache, lookups)).toEqual({ node: 'a' });
  });
});
