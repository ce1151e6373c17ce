import { createHash } from 'node:crypto';
import { jsonEqual } from '../api/deep-equal';
import { goDuration } from '../server/duration';
import { podRequests, type Resources } from '../scheduler/resources';
import type { Container, ContainerState, ContainerStatus, EphemeralContainer, Pod, PodCondition, PodStatus } from '../generated/types/core/v1';

/** Annotations a pod may carry to steer its simulated containers (README, docs/divergences.md). */
export const EXIT_CODE_ANNOTATION = 'kapi.io/simulated-exit-code';
export const RUN_DURATION_ANNOTATION = 'kapi.io/simulated-run-duration';
export const STOP_DURATION_ANNOTATION = 'kapi.io/simulated-stop-duration';

/** From the kubelet's admission of a pod to its sandbox being up (ContainerCreating meanwhile). */
export const SANDBOX_MS = 100;
/** How long each init container runs before it exits 0. */
export const INIT_RUN_MS = 100;
/** The kubelet's container restart backoff: 10 s, doubling, at most 5 min. */
const BACKOFF_INITIAL_MS = 10_000;
const BACKOFF_MAX_MS = 300_000;
/** A container killed at the end of the grace period: 128 + SIGKILL. */
const KILLED_EXIT_CODE = 137;

/** What the simulated kubelet knows of a pod besides the pod itself. */
export interface PodRun {
  /** When the kubelet admitted it (its startTime). */
  admittedMs: number;
  /** When the kubelet saw its deletionTimestamp, if it has. */
  deletionSeenMs: number | null;
  hostIP: string;
  podIP: string;
  /** --simulated-run-duration. */
  defaultRunMs: number;
  /** The node's allocatable resources (millicores of cpu, bytes of memory). */
  allocatable: Resources;
}

export interface PodPlan {
  status: PodStatus;
  /** When the status changes next without a change of the pod; null: never. */
  nextChangeMs: number | null;
  /** Every container has stopped after the pod's deletion: the kubelet removes the pod. */
  remove: boolean;
}

/** The last second formatted: a pod's plan formats the same few seconds over and over. */
let formatted = { second: NaN, text: '' };

/** Kubelet timestamps are RFC 3339 with whole seconds. */
function time(ms: number): string {
  const second = Math.floor(ms / 1000);
  if (second !== formatted.second) formatted = { second, text: new Date(second * 1000).toISOString().replace('.000Z', 'Z') };
  return formatted.text;
}

const hex = (...parts: string[]): string => createHash('sha256').update(parts.join('/')).digest('hex');

/** docker.io's normalized name, as containerd reports a container's image. */
function normalizedImage(image: string): string {
  const withTag = /:[^/]+$/.test(image) || image.includes('@') ? image : `${image}:latest`;
  const first = withTag.split('/')[0];
  if (withTag.includes('/') && (first.includes('.') || first.includes(':') || first === 'localhost')) return withTag;
  return withTag.includes('/') ? `docker.io/${withTag}` : `docker.io/library/${withTag}`;
}

/** Image IDs by image: every plan of every pod of a template names the same few. */
const imageIds = new Map<string, string>();
const IMAGE_IDS_KEPT = 256;

function imageId(image: string): string {
  let id = imageIds.get(image);
  if (id === undefined) {
    const normalized = normalizedImage(image);
    id = `${normalized.replace(/[:@][^/]*$/, '')}@sha256:${hex('image', normalized)}`;
    if (imageIds.size >= IMAGE_IDS_KEPT) imageIds.clear();
    imageIds.set(image, id);
  }
  return id;
}

/** Whole milliseconds of a duration annotation; null when absent or not one. */
function annotatedMs(pod: Pod, key: string): number | null {
  const text = pod.metadata.annotations?.[key];
  if (text === undefined) return null;
  const ms = goDuration(text);
  return ms !== null && ms >= 0 ? ms : null;
}

function annotatedExitCode(pod: Pod): number | null {
  const text = pod.metadata.annotations?.[EXIT_CODE_ANNOTATION];
  return text !== undefined && /^[0-9]{1,3}$/.test(text) && Number(text) <= 255 ? Number(text) : null;
}

/** One run of a container: when it started and, if it exits, when and how. */
interface Run {
  startMs: number;
  exit: { atMs: number; code: number } | null;
}

/** Where a main container is at a moment: its runs so far (the last may be going on), and a backoff it waits in. */
interface ContainerAt {
  runs: Run[];
  backoff: { untilMs: number; ms: number } | null;
  /** Terminal: it will not run again. */
  done: boolean;
  nextChangeMs: number | null;
}

/** Restart k (1-based) comes this long after the exit before it: at once the first time, then the kubelet's backoff. */
const restartDelay = (k: number): number => (k === 1 ? 0 : Math.min(BACKOFF_INITIAL_MS * 2 ** (k - 2), BACKOFF_MAX_MS));

/** A main container's timeline from `startMs` up to `nowMs`. */
function mainContainerAt(startMs: number, runMs: number | null, exitCode: number, restartPolicy: string, nowMs: number): ContainerAt {
  const runs: Run[] = [];
  const restarts = (code: number): boolean => restartPolicy === 'Always' || (restartPolicy === 'OnFailure' && code !== 0);
  let start = startMs;
  // Bounded: each pass is a restart that has already happened, and restarts are at least 10 s apart after the second.
  for (let k = 1; ; k++) {
    if (runMs === null) return { runs: [...runs, { startMs: start, exit: null }], backoff: null, done: false, nextChangeMs: null };
    const exitAt = start + runMs;
    if (nowMs < exitAt) return { runs: [...runs, { startMs: start, exit: null }], backoff: null, done: false, nextChangeMs: exitAt };
    runs.push({ startMs: start, exit: { atMs: exitAt, code: exitCode } });
    if (!restarts(exitCode)) return { runs, backoff: null, done: true, nextChangeMs: null };
    const delay = restartDelay(k);
    if (nowMs < exitAt + delay) return { runs, backoff: { untilMs: exitAt + delay, ms: delay }, done: false, nextChangeMs: exitAt + delay };
    start = exitAt + delay;
  }
}

const containerId = (pod: Pod, name: string, restart: number): string => `containerd://${hex(pod.metadata.uid ?? '', name, String(restart))}`;

const terminated = (pod: Pod, name: string, restart: number, run: Run): ContainerState => ({
  terminated: {
    exitCode: run.exit!.code,
    reason: run.exit!.code === 0 ? 'Completed' : 'Error',
    startedAt: time(run.startMs),
    finishedAt: time(run.exit!.atMs),
    containerID: containerId(pod, name, restart),
  },
});

/** Probes pass after their initialDelaySeconds (the simulation runs no probe). */
const passedAfter = (probe: Container['readinessProbe'], sinceMs: number, nowMs: number): boolean =>
  !probe || nowMs >= sinceMs + (probe.initialDelaySeconds ?? 0) * 1000;

function baseStatus(container: Container | EphemeralContainer): ContainerStatus {
  return { name: container.name, image: normalizedImage(container.image ?? ''), imageID: '', restartCount: 0, started: false, ready: false };
}

function volumeMountsOf(container: Container | EphemeralContainer): Pick<ContainerStatus, 'volumeMounts'> {
  const mounts = (container.volumeMounts ?? []).map((m) => ({
    name: m.name,
    mountPath: m.mountPath,
    ...(m.readOnly ? { readOnly: true, recursiveReadOnly: 'Disabled' } : {}),
  }));
  return mounts.length > 0 ? { volumeMounts: mounts } : {};
}

const waiting = (reason: string, message?: string): ContainerState => ({ waiting: { reason, ...(message ? { message } : {}) } });

function condition(type: string, ok: boolean, reason?: string, message?: string): PodCondition {
  return { type, status: ok ? 'True' : 'False', ...(!ok && reason ? { reason } : {}), ...(!ok && message ? { message } : {}) };
}

/**
 * A resize the node cannot hold (the allocation manager's check): the pod's requests beyond the
 * node's allocatable, as the PodResizePending condition words it; null when it fits.
 */
function infeasibleResize(pod: Pod, allocatable: Resources): string | null {
  const requests = podRequests(pod);
  for (const [name, unit] of [
    ['memory', 'memory'],
    ['cpu', 'cpu'],
  ]) {
    const requested = requests.get(name) ?? 0;
    const capacity = allocatable.get(name) ?? 0;
    if (requested > capacity) return `Node didn't have enough capacity: ${unit}, requested: ${requested}, capacity: ${capacity}`;
  }
  return null;
}

/** A container's requests and limits as the spec has them: what the kubelet allocates and applies. */
const specResources = (c: Container): NonNullable<ContainerStatus['resources']> => ({
  ...(c.resources?.requests && Object.keys(c.resources.requests).length > 0 ? { requests: c.resources.requests } : {}),
  ...(c.resources?.limits && Object.keys(c.resources.limits).length > 0 ? { limits: c.resources.limits } : {}),
});

/**
 * An ephemeral container runs from when the kubelet first saw it (the start it reported, or now)
 * until the pod stops; it is never restarted. Null `nowMs`: the pod cannot start it.
 */
function ephemeralStatus(pod: Pod, c: EphemeralContainer, nowMs: number | null, stop: { atMs: number; code: number } | null): ContainerStatus {
  const name = c.name ?? '';
  const status: ContainerStatus = { ...baseStatus(c), lastState: {} };
  const reported = pod.status?.ephemeralContainerStatuses?.find((s) => s.name === name)?.state;
  const startedAt = reported?.running?.startedAt ?? reported?.terminated?.startedAt;
  if (!startedAt && nowMs === null) {
    status.state = waiting('ContainerCreating');
    return Object.assign(status, volumeMountsOf(c));
  }
  const startMs = startedAt ? Date.parse(startedAt) : nowMs!;
  Object.assign(status, { imageID: imageId(c.image ?? ''), containerID: containerId(pod, name, 0) });
  status.state = stop ? terminated(pod, name, 0, { startMs, exit: stop }) : { running: { startedAt: time(startMs) } };
  return Object.assign(status, volumeMountsOf(c));
}

/**
 * The status the kubelet reports for a pod at `nowMs`, derived from its spec, annotations and
 * when it was admitted, so that the same facts always give the same status (a restarted server
 * picks up where it was): the sandbox is created, init containers run one after the other, then
 * the containers run until they exit as the annotations and restartPolicy say, restarting with
 * backoff; a pod being deleted has its containers stopped and is then removed.
 * Conditions carry no times: the caller keeps lastTransitionTime across writes.
 */
export function planPod(pod: Pod, run: PodRun, nowMs: number): PodPlan {
  const spec = pod.spec ?? {};
  const restartPolicy = spec.restartPolicy ?? 'Always';
  const exitCode = annotatedExitCode(pod);
  const annotatedRun = annotatedMs(pod, RUN_DURATION_ANNOTATION);
  const runMs = annotatedRun ?? (restartPolicy === 'Always' && exitCode === null ? null : run.defaultRunMs);
  const sandboxMs = run.admittedMs + SANDBOX_MS;
  const changes: number[] = [];
  const at = (ms: number): boolean => {
    if (nowMs >= ms) return true;
    changes.push(ms);
    return false;
  };

  // Deletion: containers get SIGTERM when the kubelet sees it, and stop after the stop duration or the grace period.
  let stopMs: number | null = null;
  let killedByGrace = false;
  if (run.deletionSeenMs !== null) {
    const graceMs = (pod.metadata.deletionGracePeriodSeconds ?? spec.terminationGracePeriodSeconds ?? 30) * 1000;
    const wantedMs = annotatedMs(pod, STOP_DURATION_ANNOTATION) ?? 0;
    stopMs = run.deletionSeenMs + Math.min(wantedMs, graceMs);
    killedByGrace = wantedMs > graceMs;
  }
  const stopped = stopMs !== null && at(stopMs);

  const sandboxReady = at(sandboxMs);
  const initContainers = spec.initContainers ?? [];
  const initStatuses: ContainerStatus[] = [];
  let initEnd = sandboxMs;
  let initDone = true;
  for (const c of initContainers) {
    const status = baseStatus(c);
    const sidecar = c.restartPolicy === 'Always';
    const startMs = initEnd;
    const endMs = sidecar ? startMs : startMs + INIT_RUN_MS;
    if (!initDone || !sandboxReady || !at(startMs) || (stopped && stopMs! <= startMs)) {
      status.state = waiting('PodInitializing');
      initDone = false;
    } else {
      Object.assign(status, { imageID: imageId(c.image ?? ''), containerID: containerId(pod, c.name ?? '', 0) });
      const runObj: Run = { startMs, exit: sidecar ? (stopped ? { atMs: stopMs!, code: 0 } : null) : { atMs: endMs, code: 0 } };
      if (runObj.exit && at(runObj.exit.atMs)) {
        status.state = terminated(pod, c.name ?? '', 0, runObj);
      } else if (stopped) {
        status.state = terminated(pod, c.name ?? '', 0, { startMs, exit: { atMs: stopMs!, code: killedByGrace ? KILLED_EXIT_CODE : 0 } });
      } else {
        status.state = { running: { startedAt: time(startMs) } };
        status.started = true;
        status.ready = sidecar && passedAfter(c.readinessProbe, startMs, nowMs);
        if (sidecar && c.readinessProbe) at(startMs + (c.readinessProbe.initialDelaySeconds ?? 0) * 1000);
        if (!sidecar) initDone = false;
      }
    }
    status.lastState = {};
    Object.assign(status, volumeMountsOf(c));
    initStatuses.push(status);
    initEnd = endMs;
  }
  if (!sandboxReady) initDone = false;

  const mainStart = initEnd;
  const resizeBlocked = pod.status?.containerStatuses ? infeasibleResize(pod, run.allocatable) : null;
  const statuses: ContainerStatus[] = [];
  const doneCodes: number[] = [];
  let anyRunning = false;
  let allDone = true;
  for (const c of spec.containers ?? []) {
    const status = baseStatus(c);
    const name = c.name ?? '';
    status.lastState = {};
    if (!initDone || !sandboxReady || !at(mainStart) || (stopped && stopMs! <= mainStart)) {
      status.state = waiting(sandboxReady && initContainers.length > 0 ? 'PodInitializing' : 'ContainerCreating');
      // A container that never started does not run once the pod is stopped.
      if (stopped) doneCodes.push(KILLED_EXIT_CODE);
      else allDone = false;
    } else {
      const timeline = mainContainerAt(mainStart, runMs, exitCode ?? 0, restartPolicy, stopMs !== null ? Math.min(nowMs, stopMs) : nowMs);
      if (timeline.nextChangeMs !== null && (stopMs === null || timeline.nextChangeMs < stopMs)) changes.push(timeline.nextChangeMs);
      const restarts = timeline.runs.length - 1;
      const last = timeline.runs[timeline.runs.length - 1];
      Object.assign(status, { imageID: imageId(c.image ?? ''), restartCount: restarts });
      const previous = timeline.runs.length > 1 ? timeline.runs[timeline.runs.length - 2] : null;
      if (timeline.backoff) {
        // Waiting out the backoff after the last exit.
        status.restartCount = timeline.runs.length - 1;
        status.lastState = terminated(pod, name, timeline.runs.length - 1, last);
        status.state = stopped
          ? terminated(pod, name, timeline.runs.length - 1, last)
          : waiting(
              'CrashLoopBackOff',
              `back-off ${timeline.backoff.ms / 1000}s restarting failed container=${name} pod=${pod.metadata.name}_${pod.metadata.namespace}(${pod.metadata.uid})`,
            );
        if (stopped) status.lastState = previous ? terminated(pod, name, restarts - 1, previous) : {};
        status.containerID = containerId(pod, name, timeline.runs.length - 1);
        if (stopped) doneCodes.push(last.exit!.code);
        else {
          allDone = false;
          anyRunning = true;
        }
      } else if (last.exit) {
        status.state = terminated(pod, name, restarts, last);
        if (previous) status.lastState = terminated(pod, name, restarts - 1, previous);
        status.containerID = containerId(pod, name, restarts);
        doneCodes.push(last.exit.code);
      } else if (stopped) {
        status.state = terminated(pod, name, restarts, { startMs: last.startMs, exit: { atMs: stopMs!, code: killedByGrace ? KILLED_EXIT_CODE : 0 } });
        if (previous) status.lastState = terminated(pod, name, restarts - 1, previous);
        status.containerID = containerId(pod, name, restarts);
        doneCodes.push(killedByGrace ? KILLED_EXIT_CODE : 0);
      } else {
        status.state = { running: { startedAt: time(last.startMs) } };
        if (previous) status.lastState = terminated(pod, name, restarts - 1, previous);
        status.containerID = containerId(pod, name, restarts);
        status.started = passedAfter(c.startupProbe, last.startMs, nowMs);
        const readySince = last.startMs + (c.startupProbe?.initialDelaySeconds ?? 0) * 1000;
        status.ready = status.started && passedAfter(c.readinessProbe, readySince, nowMs);
        if (!status.started) at(readySince);
        else if (!status.ready) at(readySince + (c.readinessProbe?.initialDelaySeconds ?? 0) * 1000);
        anyRunning = true;
        allDone = false;
      }
    }
    Object.assign(status, volumeMountsOf(c));
    // The resources in effect: the spec's once allocated; while a resize is infeasible, those reported before it.
    const before = pod.status?.containerStatuses?.find((s) => s.name === name)?.resources;
    status.resources = resizeBlocked && before ? before : specResources(c);
    statuses.push(status);
  }

  const ephemeralStatuses = (spec.ephemeralContainers ?? []).map((c) =>
    ephemeralStatus(pod, c, sandboxReady && !stopped ? nowMs : null, stopped ? { atMs: stopMs!, code: killedByGrace ? KILLED_EXIT_CODE : 0 } : null),
  );

  // getPhase: a pod whose every container is done is Succeeded when they all exited 0; a pod stopped for deletion is done too.
  const finished = allDone && doneCodes.length === (spec.containers ?? []).length;
  const phase: PodStatus['phase'] = finished
    ? doneCodes.every((code) => code === 0)
      ? 'Succeeded'
      : 'Failed'
    : anyRunning || (initDone && sandboxReady && statuses.some((s) => s.state?.running || s.state?.terminated))
      ? 'Running'
      : 'Pending';
  const terminal = phase === 'Succeeded' || phase === 'Failed';
  const notInitialized = initStatuses.filter((s, i) => !(s.state?.terminated?.exitCode === 0 || (initContainers[i].restartPolicy === 'Always' && s.started)));
  const unready = statuses.filter((s) => !s.ready).map((s) => s.name);
  const initialized = condition(
    'Initialized',
    notInitialized.length === 0 || terminal,
    'ContainersNotInitialized',
    `containers with incomplete status: [${notInitialized.map((s) => s.name).join(' ')}]`,
  );
  const containersReady =
    phase === 'Succeeded'
      ? { type: 'ContainersReady', status: 'False', reason: 'PodCompleted' }
      : condition('ContainersReady', unready.length === 0, 'ContainersNotReady', `containers with unready status: [${unready.join(' ')}]`);
  const status: PodStatus = {
    phase,
    conditions: [
      condition('PodReadyToStartContainers', sandboxReady && !terminal),
      initialized,
      { ...containersReady, type: 'Ready' },
      containersReady,
      condition('PodScheduled', true),
      ...(resizeBlocked && !terminal && statuses.some((st, i) => !jsonEqual(st.resources, specResources(spec.containers![i])))
        ? [{ type: 'PodResizePending', status: 'True', reason: 'Infeasible', message: resizeBlocked }]
        : []),
    ],
    hostIP: run.hostIP,
    hostIPs: [{ ip: run.hostIP }],
    ...(sandboxReady && run.podIP ? { podIP: run.podIP, podIPs: [{ ip: run.podIP }] } : {}),
    startTime: time(run.admittedMs),
    ...(initStatuses.length > 0 ? { initContainerStatuses: initStatuses } : {}),
    containerStatuses: statuses,
    ...(ephemeralStatuses.length > 0 ? { ephemeralContainerStatuses: ephemeralStatuses } : {}),
    ...(pod.status?.qosClass ? { qosClass: pod.status.qosClass } : {}),
  };
  if (pod.metadata.generation !== undefined) status.observedGeneration = pod.metadata.generation;
  const future = changes.filter((ms) => ms > nowMs);
  return { status, nextChangeMs: future.length > 0 ? Math.min(...future) : null, remove: stopped };
}
