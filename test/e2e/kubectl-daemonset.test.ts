import { kubectl, serverProcessForFile } from '../harness/process';
import { setsKubectl } from '../harness/sets-kubectl';

/** The daemonset controller seen through kubectl: a pod per eligible node, taints and tolerations, new nodes, rolling update, history and undo. */

// The test's Nodes have no kubelet to renew their Leases: node lifecycle, which would mark them
// unreachable after its startup grace period, stays off, and the test lifts the not-ready taint.
const kapi = serverProcessForFile(['--controllers=*,-node-lifecycle-controller,-taint-eviction-controller']);
const { k, json, markReady, until } = setsKubectl(() => kapi.url);

const node = (name: string, taint = '') =>
  `apiVersion: v1\nkind: Node\nmetadata:\n  name: ${name}\n  labels: {kubernetes.io/hostname: ${name}}\n${taint ? `spec:\n  taints: [${taint}]\n` : ''}---\n`;

const daemonSet = `apiVersion: apps/v1
kind: DaemonSet
metadata: {name: agent}
spec:
  selector:
    matchLabels: {app: agent}
  updateStrategy:
    rollingUpdate: {maxUnavailable: 1}
  template:
    metadata:
      labels: {app: agent}
    spec:
      containers:
      - name: agent
        image: agent:1
`;

const apply = async (input: string): Promise<void> => {
  const res = await kubectl(kapi.url, ['apply', '-f', '-'], input);
  if (res.code !== 0) throw new Error(res.stderr);
};

/** A new node carries the not-ready NoSchedule taint (TaintNodesByCondition), which daemon pods do not tolerate; node lifecycle would lift it once the node is Ready: here the test does. */
const nodeReady = async (...names: string[]): Promise<void> => {
  for (const name of names) expect((await k('taint', 'node', name, 'node.kubernetes.io/not-ready:NoSchedule-')).code).toBe(0);
};

type PodJson = {
  metadata: { name: string; labels: Record<string, string>; deletionTimestamp?: string };
  spec: Record<string, any>;
  status: Record<string, any>;
};
const agentPods = async (): Promise<PodJson[]> => (await json<{ items: PodJson[] }>('get', 'pods', '-l', 'app=agent')).items;
const boundFor = (pod: PodJson): string =>
  pod.spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchFields[0].values[0];

/** What a scheduler and kubelet would do: each pod bound to the node its affinity names, then Running and Ready; a pod being deleted, gone. */
async function runPods(): Promise<void> {
  for (const pod of await agentPods()) {
    if (pod.metadata.deletionTimestamp) await k('delete', 'pod', pod.metadata.name, '--grace-period=0', '--force', '--wait=false');
    if (pod.metadata.deletionTimestamp || pod.status.phase === 'Running') continue;
    if (!pod.spec.nodeName) {
      const binding = {
        apiVersion: 'v1',
        kind: 'Binding',
        metadata: { name: pod.metadata.name },
        target: { apiVersion: 'v1', kind: 'Node', name: boundFor(pod) },
      };
      await kubectl(kapi.url, ['create', '--raw', `/api/v1/namespaces/default/pods/${pod.metadata.name}/binding`, '-f', '-'], JSON.stringify(binding));
    }
    await markReady(pod.metadata.name);
  }
}

/** Runs pods as they come until the set reports every desired pod updated and available. */
const settled = (desired: number) =>
  until(`${desired} updated, available agents`, async () => {
    await runPods();
    const ds = await json('get', 'ds', 'agent');
    const s = ds.status;
    const done = s.observedGeneration === ds.metadata.generation && s.desiredNumberScheduled === desired;
    return done && s.updatedNumberScheduled === desired && s.numberAvailable === desired && (await agentPods()).length === desired ? true : undefined;
  });

test('one pod per eligible node: a tainted node is left out, each pod bound for its node by affinity, with the daemon tolerations', async () => {
  await apply(node('node-a') + node('node-b') + node('node-c', '{key: dedicated, value: db, effect: NoSchedule}') + daemonSet);
  await new Promise((r) => setTimeout(r, 300));
  expect(await agentPods()).toEqual([]);
  await nodeReady('node-a', 'node-b', 'node-c');
  const pods = await until('two agents', async () => {
    const found = await agentPods();
    return found.length === 2 ? found : undefined;
  });
  expect(pods.map(boundFor).sort()).toEqual(['node-a', 'node-b']);
  const pod = pods[0]!;
  expect(pod.metadata.name).toMatch(/^agent-[a-z0-9]{5}$/);
  expect(pod.metadata.labels).toEqual({
    app: 'agent',
    'controller-revision-hash': expect.stringMatching(/^[bcdfghjklmnpqrstvwxz2456789]+$/),
    'pod-template-generation': '1',
  });
  expect(pod.spec.affinity).toEqual({
    nodeAffinity: {
      requiredDuringSchedulingIgnoredDuringExecution: {
        nodeSelectorTerms: [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: [boundFor(pod)] }] }],
      },
    },
  });
  expect(pod.spec.tolerations).toEqual([
    { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute' },
    { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute' },
    { key: 'node.kubernetes.io/disk-pressure', operator: 'Exists', effect: 'NoSchedule' },
    { key: 'node.kubernetes.io/memory-pressure', operator: 'Exists', effect: 'NoSchedule' },
    { key: 'node.kubernetes.io/pid-pressure', operator: 'Exists', effect: 'NoSchedule' },
    { key: 'node.kubernetes.io/unschedulable', operator: 'Exists', effect: 'NoSchedule' },
  ]);
  await settled(2);
  const rollout = await k('rollout', 'status', 'ds/agent', '--timeout=20s');
  expect(rollout.stdout).toBe('daemon set "agent" successfully rolled out\n');
  const ds = await json('get', 'ds', 'agent');
  expect(ds.metadata.annotations).toMatchObject({ 'deprecated.daemonset.template.generation': '1' });
  expect(ds.status).toEqual({
    currentNumberScheduled: 2,
    desiredNumberScheduled: 2,
    numberAvailable: 2,
    numberMisscheduled: 0,
    numberReady: 2,
    observedGeneration: 1,
    updatedNumberScheduled: 2,
  });
  const events = (
    await k('get', 'events', '--field-selector', 'involvedObject.kind=DaemonSet', '-o', 'jsonpath={range .items[*]}{.reason}: {.message}{"\\n"}{end}')
  ).stdout;
  expect(events).toContain(`SuccessfulCreate: Created pod: ${pod.metadata.name}`);

  // A new node gets its pod.
  await apply(node('node-d'));
  await nodeReady('node-d');
  await settled(3);
  expect((await agentPods()).map(boundFor).sort()).toEqual(['node-a', 'node-b', 'node-d']);
});

test('a rolling update replaces the pods one node at a time; a toleration lets a pod onto the tainted node; history and undo', async () => {
  const first = (await agentPods())[0]!.metadata.labels['controller-revision-hash'];
  await apply(daemonSet.replace('image: agent:1', 'image: agent:2\n      tolerations: [{key: dedicated, operator: Exists}]'));
  // maxUnavailable 1: never more than one of the three old pods gone before its replacement is available.
  let most = 0;
  await until('the update rolled out', async () => {
    const pods = await agentPods();
    const old = pods.filter((p) => p.metadata.labels['controller-revision-hash'] === first && !p.metadata.deletionTimestamp);
    most = Math.max(most, 3 - old.length - pods.filter((p) => p.metadata.labels['controller-revision-hash'] !== first && p.status.phase === 'Running').length);
    await runPods();
    const ds = await json('get', 'ds', 'agent');
    return ds.status.desiredNumberScheduled === 4 && ds.status.updatedNumberScheduled === 4 && ds.status.numberAvailable === 4 && pods.length === 4
      ? true
      : undefined;
  });
  expect(most).toBeLessThanOrEqual(1);
  const pods = await agentPods();
  expect(pods.map(boundFor).sort()).toEqual(['node-a', 'node-b', 'node-c', 'node-d']);
  expect(new Set(pods.map((p) => p.spec.containers[0].image))).toEqual(new Set(['agent:2']));
  // The template changed once: generation 2, on the set and its new pods; a client cannot set it.
  expect(new Set(pods.map((p) => p.metadata.labels['pod-template-generation']))).toEqual(new Set(['2']));
  expect((await k('annotate', 'ds', 'agent', 'deprecated.daemonset.template.generation=7', '--overwrite')).code).toBe(0);
  expect((await json('get', 'ds', 'agent')).metadata.annotations['deprecated.daemonset.template.generation']).toBe('2');
  const refused = await k('annotate', 'ds', 'agent', 'deprecated.daemonset.template.generation=x', '--overwrite');
  expect(refused.stderr).toContain('DaemonSet in version "v1" cannot be handled as a DaemonSet: strconv.ParseInt: parsing "x": invalid syntax');

  const revisions = await json('get', 'controllerrevisions', '-l', 'app=agent');
  expect(revisions.items.map((r: any) => [r.metadata.name, r.revision]).sort((a: any, b: any) => a[1] - b[1])).toEqual([
    [`agent-${first}`, 1],
    [expect.stringMatching(/^agent-/), 2],
  ]);
  const history = (await k('rollout', 'history', 'ds/agent')).stdout;
  expect(history).toMatch(/^daemonset\.apps\/agent\s*\nREVISION\s+CHANGE-CAUSE\n1\s+<none>\n2\s+<none>\n/);
  expect((await k('rollout', 'history', 'ds/agent', '--revision=1')).stdout).toContain('agent:1');

  expect((await k('rollout', 'undo', 'ds/agent', '--to-revision=1')).stdout.trim()).toBe('daemonset.apps/agent rolled back');
  const undone = await json('get', 'ds', 'agent');
  expect(undone.spec.template.spec.containers[0].image).toBe('agent:1');
  expect(undone.metadata.annotations['deprecated.daemonset.template.generation']).toBe('3');
  expect(undone.spec.template.spec.tolerations).toBeUndefined();
  // The tainted node no longer runs one; the first revision is the current one again, renumbered 3.
  await settled(3);
  await until('revision 1 renumbered 3', async () => ((await json('get', 'controllerrevision', `agent-${first}`)).revision === 3 ? true : undefined));
  expect((await k('rollout', 'history', 'ds/agent')).stdout).toMatch(/\n2\s+<none>\n3\s+<none>\n/);
  expect((await agentPods()).map(boundFor).sort()).toEqual(['node-a', 'node-b', 'node-d']);
});
