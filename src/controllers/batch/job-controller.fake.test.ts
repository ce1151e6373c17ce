import type { KubeObject } from '../../api/types';
import type { Job } from '../../generated/types/batch/v1';
import type { Pod } from '../../generated/types/core/v1';
import type { FakeObjectStore } from '../../../test/harness/fake-object-store';
import { SERVER_OWN_WRITE, systemContext } from '../../registry/request-context';
import { fakeControllerDeps, settle } from '../../../test/harness/fake-controller-deps';
import { JobController } from './job-controller';

/**
 * The Job controller's logic on a fake ObjectStore and a ManualClock, without etcd, a server or
 * a kubelet: the pods it creates (owned, finalized for tracking), how it counts the ones the test
 * finishes, and the conditions and events of a Job that completes or fails.
 */

function setup() {
  const { cluster, clock, events, errors, ctx, deps } = fakeControllerDeps();
  const jobs = cluster.store('batch', 'v1', 'jobs');
  const pods = cluster.store('', 'v1', 'pods');
  return { clock, events, errors, ctx, jobs, pods, controller: new JobController(deps) };
}

/** A Job as the server stores it: its defaults filled in, a selector of its own. */
const job = (completions: number, backoffLimit: number): KubeObject =>
  ({
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name: 'pi', namespace: 'default', generation: 1 },
    spec: {
      completions,
      parallelism: 1,
      backoffLimit,
      completionMode: 'NonIndexed',
      suspend: false,
      manualSelector: true,
      podReplacementPolicy: 'TerminatingOrFailed',
      selector: { matchLabels: { job: 'pi' } },
      template: { metadata: { labels: { job: 'pi' } }, spec: { restartPolicy: 'Never', containers: [{ name: 'pi', image: 'perl' }] } },
    },
  }) as KubeObject;

/** Lets the controller's informers and workers run until `done` holds (the clock moves only when asked). */

/** The kubelet's part: a pod ends in `phase`. */
async function finish(pods: FakeObjectStore, name: string, phase: 'Succeeded' | 'Failed'): Promise<void> {
  await pods.update(systemContext({ namespace: 'default' }, SERVER_OWN_WRITE), name, (pod) => ({ ...pod, status: { phase } }), { dryRun: false });
}

const podsOf = (store: FakeObjectStore) => store.all() as Pod[];
const running = (store: FakeObjectStore) => podsOf(store).filter((p) => !p.status?.phase);
const statusOf = (store: FakeObjectStore) => (store.all()[0] as Job).status ?? {};
const conditionTypes = (store: FakeObjectStore) => (statusOf(store).conditions ?? []).filter((c) => c.status === 'True').map((c) => c.type);

test('a Job runs its pods one at a time until its completions succeed, counting each once, then is Complete', async () => {
  const { clock, events, errors, ctx, jobs, pods, controller } = setup();
  const created = await jobs.create(ctx('default'), job(2, 6), { dryRun: false });
  await controller.start();
  try {
    await settle(clock, () => running(pods).length === 1);
    const [first] = podsOf(pods);
    expect(first.metadata).toMatchObject({
      generateName: 'pi-',
      labels: { job: 'pi' },
      finalizers: ['batch.kubernetes.io/job-tracking'],
      ownerReferences: [{ apiVersion: 'batch/v1', kind: 'Job', name: 'pi', uid: created.metadata.uid, controller: true, blockOwnerDeletion: true }],
    });
    await settle(clock, () => statusOf(jobs).active === 1);
    expect(statusOf(jobs).startTime).toBeDefined();

    // A finished pod is counted and loses its tracking finalizer; the next one is made.
    await finish(pods, first.metadata.name!, 'Succeeded');
    await settle(clock, () => statusOf(jobs).succeeded === 1 && running(pods).length === 1);
    expect(podsOf(pods).find((p) => p.metadata.name === first.metadata.name)?.metadata.finalizers ?? []).toEqual([]);

    await finish(pods, running(pods)[0].metadata.name!, 'Succeeded');
    await settle(clock, () => conditionTypes(jobs).includes('Complete'));
    expect(conditionTypes(jobs)).toEqual(['SuccessCriteriaMet', 'Complete']);
    expect(statusOf(jobs).succeeded).toBe(2);
    // The controller leaves zero counts out, as Go's omitempty does.
    expect([statusOf(jobs).failed, statusOf(jobs).active]).toEqual([undefined, undefined]);
    expect(statusOf(jobs).completionTime).toBeDefined();
    expect(podsOf(pods)).toHaveLength(2);
    for (const pod of podsOf(pods)) expect(pod.metadata.finalizers ?? []).toEqual([]);
    expect(events.filter((e) => e.startsWith('Normal SuccessfulCreate pi: Created pod: pi-'))).toHaveLength(2);
    expect(events).toContain('Normal Completed pi: Job completed');
    expect(errors).toEqual([]);
  } finally {
    controller.stop();
  }
});

test('a failed pod past the backoff limit fails the Job: FailureTarget then Failed, with BackoffLimitExceeded', async () => {
  const { clock, events, errors, ctx, jobs, pods, controller } = setup();
  await jobs.create(ctx('default'), job(1, 0), { dryRun: false });
  await controller.start();
  try {
    await settle(clock, () => running(pods).length === 1);
    await finish(pods, running(pods)[0].metadata.name!, 'Failed');
    await settle(clock, () => conditionTypes(jobs).includes('Failed'));
    expect(conditionTypes(jobs)).toEqual(['FailureTarget', 'Failed']);
    expect((statusOf(jobs).conditions ?? []).find((c) => c.type === 'Failed')).toMatchObject({
      reason: 'BackoffLimitExceeded',
      message: 'Job has reached the specified backoff limit',
    });
    expect(statusOf(jobs).failed).toBe(1);
    expect(statusOf(jobs).active).toBeUndefined();
    // No pod replaces the failed one.
    expect(podsOf(pods)).toHaveLength(1);
    expect(events).toContain('Warning BackoffLimitExceeded pi: Job has reached the specified backoff limit');
    expect(errors).toEqual([]);
  } finally {
    controller.stop();
  }
});
