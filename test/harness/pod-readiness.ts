/**
 * What a kubelet would report for pods, written through pods/status over plain HTTP: for tests of
 * workload controllers on a server without nodes.
 */

interface PodLike {
  metadata: { name: string; namespace: string; deletionTimestamp?: string };
  spec?: { containers?: { name: string; image?: string }[] };
  status?: { phase?: string; conditions?: { type: string; status: string }[] };
}

const rfc3339 = (ms: number): string => new Date(ms).toISOString().replace(/\.\d+Z$/, 'Z');

const isReady = (pod: PodLike): boolean => !!pod.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True');

/** Marks one pod Running, its containers running and ready, its Ready and ContainersReady conditions True. */
export async function markPodReady(url: string, pod: PodLike): Promise<void> {
  const { namespace, name } = pod.metadata;
  const now = rfc3339(Date.now());
  const containerStatuses = (pod.spec?.containers ?? []).map((c) => ({
    name: c.name,
    image: c.image,
    imageID: '',
    ready: true,
    started: true,
    restartCount: 0,
    state: { running: { startedAt: now } },
  }));
  const condition = (type: string) => ({ type, status: 'True', lastProbeTime: null, lastTransitionTime: now });
  const res = await fetch(`${url}/api/v1/namespaces/${namespace}/pods/${name}/status`, {
    method: 'PATCH',
    headers: { 'Content-Type': 'application/merge-patch+json' },
    body: JSON.stringify({
      status: {
        phase: 'Running',
        conditions: ['PodReadyToStartContainers', 'Initialized', 'Ready', 'ContainersReady', 'PodScheduled'].map(condition),
        startTime: now,
        containerStatuses,
      },
    }),
  });
  // A pod deleted meanwhile is no failure of the test's making.
  if (!res.ok && res.status !== 404) throw new Error(`marking ${namespace}/${name} ready: ${res.status} ${await res.text()}`);
}

export interface PodReadiness {
  stop(): Promise<void>;
}

/**
 * A loop that marks every pod matching `select` ready soon after it appears (a kubelet in a
 * hurry), polling the pod list until stopped.
 */
export function readyPodsContinuously(url: string, select: (pod: PodLike) => boolean = () => true, intervalMs = 50): PodReadiness {
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      const res = await fetch(`${url}/api/v1/pods`).catch(() => null);
      if (res?.ok) {
        const pods = ((await res.json()) as { items: PodLike[] }).items;
        const pending = pods.filter((pod) => !pod.metadata.deletionTimestamp && !isReady(pod) && select(pod));
        await Promise.all(pending.map((pod) => markPodReady(url, pod).catch(() => undefined)));
      }
      await new Promise((resolve) => setTimeout(resolve, intervalMs));
    }
  })();
  return {
    stop: async () => {
      stopped = true;
      await loop;
    },
  };
}
