import type { ControllerDeps } from '../controllers/runtime/controller-deps';
import type { EventRecorder, EventType } from '../controllers/runtime/event-recorder';
import type { Container, ContainerStatus, EphemeralContainer, NodeCondition, Pod, PodStatus } from '../generated/types/core/v1';

/** An event a kubelet records about a pod's container (its field path) or its node. */
export interface KubeletEvent {
  fieldPath?: string;
  type: EventType;
  reason: string;
  message: string;
}

/** The three lists of a pod's containers, with the field path each names its containers by (ref.GenerateContainerRef). */
const CONTAINER_LISTS = [
  { spec: 'initContainers', status: 'initContainerStatuses' },
  { spec: 'containers', status: 'containerStatuses' },
  { spec: 'ephemeralContainers', status: 'ephemeralContainerStatuses' },
] as const;

/** The images a node holds: pulled once there (or found under pull policy Never), kept while the server runs. */
export class NodeImages {
  private readonly present = new Set<string>();

  /** The image events of starting a container (the image manager's EnsureImageExists); the image is then present. */
  ensure(image: string, policy: string | undefined): KubeletEvent[] {
    const pull = policy === 'Always' || (policy !== 'Never' && !this.present.has(image));
    this.present.add(image);
    if (!pull)
      return [{ type: 'Normal', reason: 'Pulled', message: `Container image ${goQuote(image)} already present on machine and can be accessed by the pod` }];
    return [
      { type: 'Normal', reason: 'Pulling', message: `Pulling image ${goQuote(image)}` },
      // A simulated pull takes no time and brings no bytes (docs/divergences.md).
      { type: 'Normal', reason: 'Pulled', message: `Successfully pulled image ${goQuote(image)} in 0s (0s including waiting). Image size: 0 bytes.` },
    ];
  }
}

/** Go's %q of a string: JSON's quoting, which agrees with it for what image names hold. */
const goQuote = (s: string): string => JSON.stringify(s);

/**
 * How many times a container has been started: the kubelet's restartCount counts the runs before
 * the one its containerID names. A run that began and ended between two statuses (a short run, a
 * late sync) shows only in this count.
 */
const runsOf = (status: ContainerStatus | undefined): number => (status?.containerID ? (status.restartCount ?? 0) + 1 : 0);

/**
 * The container events of a status change the kubelet made, as kuberuntime records them: each
 * run of a container started since `before` (by its restartCount and containerID) had its image
 * ensured, was created and started (startContainer); one that began waiting out another crash
 * loop back-off is backed off.
 */
export function containerEvents(pod: Pod, before: PodStatus | undefined, after: PodStatus, images: NodeImages): KubeletEvent[] {
  const events: KubeletEvent[] = [];
  for (const list of CONTAINER_LISTS) {
    const specs: (Container | EphemeralContainer)[] = pod.spec?.[list.spec] ?? [];
    const earlier = before?.[list.status];
    for (const status of after[list.status] ?? []) {
      const spec = specs.find((c) => c.name === status.name);
      if (!spec) continue;
      const fieldPath = `spec.${list.spec}{${status.name}}`;
      const previous = earlier?.find((s) => s.name === status.name);
      for (let run = runsOf(previous); run < runsOf(status); run++) {
        for (const e of images.ensure(spec.image ?? '', spec.imagePullPolicy)) events.push({ ...e, fieldPath });
        events.push({ fieldPath, type: 'Normal', reason: 'Created', message: 'Container created' });
        events.push({ fieldPath, type: 'Normal', reason: 'Started', message: 'Container started' });
      }
      // A back-off after another exit (a container ID not backed off before) is a new one.
      const wasBackingOff = previous?.state?.waiting?.reason === 'CrashLoopBackOff' && previous.containerID === status.containerID;
      if (status.state?.waiting?.reason === 'CrashLoopBackOff' && !wasBackingOff) {
        events.push({
          fieldPath,
          type: 'Warning',
          reason: 'BackOff',
          message: `Back-off restarting failed container ${status.name} in pod ${pod.metadata.name}_${pod.metadata.namespace}(${pod.metadata.uid})`,
        });
      }
    }
  }
  return events;
}

/** killContainer's event for each container running when the kubelet learns of the pod's deletion. */
export function killingEvents(pod: Pod): KubeletEvent[] {
  const events: KubeletEvent[] = [];
  for (const list of CONTAINER_LISTS) {
    for (const status of pod.status?.[list.status] ?? []) {
      if (!status.state?.running) continue;
      events.push({ fieldPath: `spec.${list.spec}{${status.name}}`, type: 'Normal', reason: 'Killing', message: `Stopping container ${status.name}` });
    }
  }
  return events;
}

/** The event each of the kubelet's condition setters records when its condition turns to the healthy status. */
const HEALTHY_EVENTS: Record<string, { status: string; reason: string }> = {
  MemoryPressure: { status: 'False', reason: 'NodeHasSufficientMemory' },
  DiskPressure: { status: 'False', reason: 'NodeHasNoDiskPressure' },
  PIDPressure: { status: 'False', reason: 'NodeHasSufficientPID' },
  Ready: { status: 'True', reason: 'NodeReady' },
};

const statusEvent = (nodeName: string, reason: string): KubeletEvent => ({ type: 'Normal', reason, message: `Node ${nodeName} status is now: ${reason}` });

/** recordNodeStatusEvent's events for the conditions a status post turns healthy from another status. */
export function nodeConditionEvents(nodeName: string, before: NodeCondition[] | undefined, after: NodeCondition[]): KubeletEvent[] {
  const events: KubeletEvent[] = [];
  for (const condition of after) {
    const rule = HEALTHY_EVENTS[condition.type ?? ''];
    if (!rule || condition.status !== rule.status) continue;
    const earlier = before?.find((c) => c.type === condition.type);
    if (earlier && earlier.status !== rule.status) events.push(statusEvent(nodeName, rule.reason));
  }
  return events;
}

/**
 * What a kubelet records as it starts: itself; its first status, set on a node without conditions
 * (initialNode, then setNodeStatus: each pressure setter records its new condition, the Ready
 * setter none); the node allocatable its container manager enforces.
 */
export function kubeletStartEvents(nodeName: string): KubeletEvent[] {
  return [
    { type: 'Normal', reason: 'Starting', message: 'Starting kubelet.' },
    statusEvent(nodeName, 'NodeHasSufficientMemory'),
    statusEvent(nodeName, 'NodeHasNoDiskPressure'),
    statusEvent(nodeName, 'NodeHasSufficientPID'),
    { type: 'Normal', reason: 'NodeAllocatableEnforced', message: 'Updated Node Allocatable limit across pods' },
  ];
}

/** The simulated kubelets' event recorders and image stores, one of each per node. */
export class KubeletEventSinks {
  private readonly recorders = new Map<string, EventRecorder>();
  private readonly images = new Map<string, NodeImages>();
  private readonly kubelet: EventRecorder;

  constructor(deps: ControllerDeps) {
    this.kubelet = deps.recorder('kubelet');
  }

  imagesOf(nodeName: string): NodeImages {
    let images = this.images.get(nodeName);
    if (!images) this.images.set(nodeName, (images = new NodeImages()));
    return images;
  }

  /** Events about a pod's containers, from its node's kubelet. */
  aboutPod(nodeName: string, pod: Pod, events: KubeletEvent[]): void {
    const recorder = this.recorderOf(nodeName);
    for (const e of events) recorder.event(pod, e.type, e.reason, e.message, e.fieldPath);
  }

  /** Events about the node, referenced as the kubelet's nodeRef does (UID: the node's name). */
  aboutNode(nodeName: string, events: KubeletEvent[]): void {
    const recorder = this.recorderOf(nodeName);
    for (const e of events) recorder.eventAbout({ kind: 'Node', name: nodeName, uid: nodeName }, e.type, e.reason, e.message);
  }

  private recorderOf(nodeName: string): EventRecorder {
    let recorder = this.recorders.get(nodeName);
    if (!recorder) this.recorders.set(nodeName, (recorder = this.kubelet.forHost(nodeName)));
    return recorder;
  }
}
