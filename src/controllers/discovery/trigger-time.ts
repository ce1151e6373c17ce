import type { Pod, Service } from '../../generated/types/core/v1';
import { podCondition } from '../pods/pod-conditions';

interface ServiceState {
  pods: Map<string, number>;
  service: number;
}

const parsed = (time: string | null | undefined): number => (time ? Date.parse(time) || 0 : 0);

/** Go's time.Format(RFC3339Nano) of a second-precision time: no fraction when it has none. */
const rfc3339Nano = (ms: number): string => new Date(ms).toISOString().replace(/\.000Z$/, 'Z');

/**
 * endpointutil.TriggerTimeTracker: the `endpoints.kubernetes.io/last-change-trigger-time` of a
 * service's endpoints. A service seen for the first time gives its creation time; after that, the
 * earliest of the triggers that moved since the last sync (a pod's Ready transition, the service's
 * creation), or nothing when none did.
 */
export class TriggerTimeTracker {
  private readonly states = new Map<string, ServiceState>();

  compute(service: Service, pods: Pod[]): string | null {
    const key = `${service.metadata.namespace}/${service.metadata.name}`;
    const previous = this.states.get(key);
    let earliest = 0;
    const consider = (time: number, before: number | undefined): void => {
      if (time > (before ?? 0) && (earliest === 0 || time < earliest)) earliest = time;
    };
    const podTimes = new Map<string, number>();
    for (const pod of pods) {
      const time = parsed(podCondition(pod, 'Ready')?.lastTransitionTime ?? undefined);
      if (!time) continue;
      podTimes.set(pod.metadata.name ?? '', time);
      consider(time, previous?.pods.get(pod.metadata.name ?? ''));
    }
    const created = parsed(service.metadata.creationTimestamp);
    consider(created, previous?.service);
    this.states.set(key, { pods: podTimes, service: created });
    if (!previous) return created ? rfc3339Nano(created) : null;
    return earliest ? rfc3339Nano(earliest) : null;
  }

  forget(namespace: string, name: string): void {
    this.states.delete(`${namespace}/${name}`);
  }
}
