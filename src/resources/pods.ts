import type { Pod } from '../generated/types/core/v1';
import { isPlainObject, type KubeObject } from '../api/types';
import { defineResource } from '../registry/resource-definition';
import { strategy } from '../registry/strategy';
import { age, AGE_COLUMN, NAME_COLUMN } from '../registry/table';
import { podBinding } from './pod-binding';
import { ephemeralContainersStrategy } from './pod-ephemeral-containers';
import { podEviction } from './pod-eviction';
import { podProxy } from './pod-proxy';
import { resizeStrategy } from './pod-resize';
import { podAttach, podExec, podLog, podPortForward } from './pod-streams';
import { defaultPod, podOnlyContainerErrors, podQosClass, podSpecWarnings, validatePodSpec } from './pod-spec';
import { validatePodStatusUpdate } from './status-validation';
import { podStatusIpWarnings } from './pod-ips';
import { validatePodSpecCreate, validatePodSpecUpdate } from './pod-update';

type Obj = Record<string, unknown>;

const spec = (pod: KubeObject): Obj => (isPlainObject(pod.spec) ? pod.spec : {});
const status = (pod: KubeObject): Obj => (isPlainObject(pod.status) ? pod.status : {});
const list = (v: unknown): Obj[] => (Array.isArray(v) ? v.filter(isPlainObject) : []);
const orNone = (v: unknown): string => (typeof v === 'string' && v !== '' ? v : '<none>');

/**
 * v1's deprecated `serviceAccount` stands in for an empty `serviceAccountName` and always mirrors
 * it, as kube's pod conversions (Convert_v1_PodSpec_To_core_PodSpec and back) make it. Priority and
 * the default tolerations come from their admission plugins (admission/priority.ts,
 * admission/default-toleration-seconds.ts).
 */
function convertDeprecatedServiceAccount(s: Obj): void {
  if (!s.serviceAccountName && typeof s.serviceAccount === 'string' && s.serviceAccount) s.serviceAccountName = s.serviceAccount;
  if (typeof s.serviceAccountName === 'string' && s.serviceAccountName) s.serviceAccount = s.serviceAccountName;
  else delete s.serviceAccount;
}

/** The STATUS column: kubectl's reason logic over init containers, containers and deletion. */
function podReason(pod: Pod): { reason: string; ready: number; total: number; restarts: number; lastRestart?: string } {
  const st = status(pod);
  const sp = spec(pod);
  let reason = (st.reason as string | undefined) || (st.phase as string | undefined) || '';
  const containers = list(sp.containers);
  const initContainers = list(sp.initContainers);
  const sidecars = initContainers.filter((c) => c.restartPolicy === 'Always');
  const total = containers.length + sidecars.length;
  let ready = 0;
  let restarts = 0;
  let lastRestart: string | undefined;
  const noteRestart = (cs: Obj): void => {
    restarts += typeof cs.restartCount === 'number' ? cs.restartCount : 0;
    const finished =
      isPlainObject(cs.lastState) && isPlainObject(cs.lastState.terminated) ? (cs.lastState.terminated.finishedAt as string | undefined) : undefined;
    if (finished && (!lastRestart || finished > lastRestart)) lastRestart = finished;
  };
  const conditions = list(st.conditions);
  if (conditions.some((c) => c.type === 'PodScheduled' && c.reason === 'SchedulingGated')) reason = 'SchedulingGated';
  let initializing = false;
  const initStatuses = list(st.initContainerStatuses);
  initStatuses.forEach((cs, i) => {
    noteRestart(cs);
    if (initializing) return;
    const state = isPlainObject(cs.state) ? cs.state : {};
    const term = isPlainObject(state.terminated) ? state.terminated : null;
    const waiting = isPlainObject(state.waiting) ? state.waiting : null;
    if (term && term.exitCode === 0) return;
    const isSidecar = sidecars.some((c) => c.name === cs.name);
    if (isSidecar && cs.started === true) {
      if (cs.ready === true) ready++;
      return;
    }
    initializing = true;
    if (term)
      reason = term.reason ? `Init:${String(term.reason)}` : term.signal ? `Init:Signal:${String(term.signal)}` : `Init:ExitCode:${String(term.exitCode)}`;
    else if (waiting && waiting.reason && waiting.reason !== 'PodInitializing') reason = `Init:${String(waiting.reason)}`;
    else reason = `Init:${i}/${initContainers.length}`;
  });
  if (!initializing || conditions.some((c) => c.type === 'Initialized' && c.status === 'True')) {
    let hasRunning = false;
    for (const cs of [...list(st.containerStatuses)].reverse()) {
      noteRestart(cs);
      const state = isPlainObject(cs.state) ? cs.state : {};
      if (isPlainObject(state.waiting) && state.waiting.reason) reason = String(state.waiting.reason);
      else if (isPlainObject(state.terminated)) {
        const t = state.terminated;
        reason = t.reason ? String(t.reason) : t.signal ? `Signal:${String(t.signal)}` : `ExitCode:${String(t.exitCode)}`;
      } else if (isPlainObject(state.running) && cs.ready === true) {
        hasRunning = true;
        ready++;
      }
    }
    if (reason === 'Completed' && hasRunning) {
      reason = conditions.some((c) => c.type === 'Ready' && c.status === 'True') ? 'Running' : 'NotReady';
    }
  }
  if (pod.metadata.deletionTimestamp) {
    if (st.reason === 'NodeLost') reason = 'Unknown';
    else if (st.phase !== 'Failed' && st.phase !== 'Succeeded') reason = 'Terminating';
  }
  return { reason, ready, total, restarts, lastRestart };
}

export const pods = defineResource<Pod>({
  group: '',
  version: 'v1',
  resource: 'pods',
  kind: 'Pod',
  namespaced: true,
  shortNames: ['po'],
  categories: ['all'],
  subresources: ['ephemeralcontainers', 'resize', 'status'],
  createSubresources: [podBinding, podEviction],
  connectSubresources: [podAttach, podExec, podLog, podPortForward, podProxy],
  returnDeletedObject: true,
  strategy: strategy<Pod>({
    validateStatusUpdate: validatePodStatusUpdate,
    warningsOnStatusUpdate: (pod) => podStatusIpWarnings(status(pod)),
    warningsOnCreate: (pod) => podSpecWarnings(pod.spec, 'spec'),
    warningsOnUpdate: (pod) => podSpecWarnings(pod.spec, 'spec'),
    tracksGeneration: true,
    prepareForCreate: (pod) => {
      pod.status = { phase: 'Pending', qosClass: podQosClass(pod.spec) };
    },
    applyDefaults: (pod) => {
      if (!isPlainObject(pod.spec)) return;
      defaultPod(pod.spec);
      convertDeprecatedServiceAccount(pod.spec);
    },
    validate: (pod) => [...validatePodSpec(pod.spec, 'spec'), ...podOnlyContainerErrors(pod.spec)],
    validateCreate: (pod) => validatePodSpecCreate(pod.spec),
    subresourceStrategies: { ephemeralcontainers: ephemeralContainersStrategy, resize: resizeStrategy },
    validateUpdate: (next, prev) => validatePodSpecUpdate(next.spec, prev.spec),
    gracePeriodSeconds: (pod, requested) => {
      const phase = status(pod).phase;
      if (!spec(pod).nodeName || phase === 'Failed' || phase === 'Succeeded') return 0;
      const period = requested ?? (spec(pod).terminationGracePeriodSeconds as number | undefined) ?? 30;
      return period < 0 ? 1 : period;
    },
  }),
  // "for backwards compatibility with old v1 clients which send spec.host" (pkg/apis/core/v1 addConversionFuncs)
  fieldLabelConversion: { renames: { 'spec.host': 'spec.nodeName' } },
  selectableFields: {
    'spec.nodeName': (p) => String(spec(p).nodeName ?? ''),
    'spec.restartPolicy': (p) => String(spec(p).restartPolicy ?? ''),
    'spec.schedulerName': (p) => String(spec(p).schedulerName ?? ''),
    'spec.serviceAccountName': (p) => String(spec(p).serviceAccountName ?? ''),
    'spec.hostNetwork': (p) => String(spec(p).hostNetwork === true),
    'status.phase': (p) => String(status(p).phase ?? ''),
    'status.podIP': (p) => String(list(status(p).podIPs)[0]?.ip ?? status(p).podIP ?? ''),
    'status.podIPs': () => '',
    'status.nominatedNodeName': (p) => String(status(p).nominatedNodeName ?? ''),
  },
  printerColumns: [
    NAME_COLUMN,
    {
      name: 'Ready',
      type: 'string',
      description: 'The aggregate readiness state of this pod for accepting traffic.',
      cell: (p) => {
        const r = podReason(p);
        return `${r.ready}/${r.total}`;
      },
    },
    { name: 'Status', type: 'string', description: 'The aggregate status of the containers in this pod.', cell: (p) => podReason(p).reason },
    {
      name: 'Restarts',
      type: 'string',
      description: 'The number of times the containers in this pod have been restarted and when the last container in this pod has restarted.',
      cell: (p) => {
        const r = podReason(p);
        return r.restarts > 0 && r.lastRestart ? `${r.restarts} (${age(r.lastRestart)} ago)` : String(r.restarts);
      },
    },
    AGE_COLUMN,
    {
      name: 'IP',
      type: 'string',
      priority: 1,
      description: 'podIP address allocated to the pod. Routable at least within the cluster. Empty if not yet allocated.',
      cell: (p) => orNone(list(status(p).podIPs)[0]?.ip ?? status(p).podIP),
    },
    {
      name: 'Node',
      type: 'string',
      priority: 1,
      description: 'NodeName indicates in which node this pod is scheduled.',
      cell: (p) => orNone(spec(p).nodeName),
    },
    {
      name: 'Nominated Node',
      type: 'string',
      priority: 1,
      description:
        'nominatedNodeName is set only when this pod preempts other pods on the node, but it cannot be scheduled right away as preemption victims receive their graceful termination periods.',
      cell: (p) => orNone(status(p).nominatedNodeName),
    },
    {
      name: 'Readiness Gates',
      type: 'string',
      priority: 1,
      description: 'If specified, all readiness gates will be evaluated for pod readiness.',
      cell: (p) => {
        const gates = list(spec(p).readinessGates);
        if (gates.length === 0) return '<none>';
        const conditions = list(status(p).conditions);
        const ok = gates.filter((g) => conditions.some((c) => c.type === g.conditionType && c.status === 'True')).length;
        return `${ok}/${gates.length}`;
      },
    },
  ],
});
