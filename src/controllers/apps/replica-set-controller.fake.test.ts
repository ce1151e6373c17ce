import type { KubeObject } from '../../api/types';
import { fakeControllerDeps, settle } from '../../../test/harness/fake-controller-deps';
import { ReplicaSetController } from './replica-set-controller';
import { REPLICA_SET_KIND } from './replicated-kind';

/**
 * The ReplicaSet controller's logic on a fake ObjectStore and a ManualClock, without etcd or a
 * server: what it creates and deletes for a set, its status and its events.
 */

function setup() {
  const { cluster, clock, events, errors, ctx, deps } = fakeControllerDeps();
  return {
    cluster,
    clock,
    events,
    errors,
    ctx,
    controller: new ReplicaSetController(deps, REPLICA_SET_KIND, { DeploymentReplicaSetTerminatingReplicas: true }),
  };
}

const replicaSet = (replicas: number): KubeObject => ({
  apiVersion: 'apps/v1',
  kind: 'ReplicaSet',
  metadata: { name: 'web', namespace: 'default' },
  spec: {
    replicas,
    selector: { matchLabels: { app: 'web' } },
    template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'app', image: 'nginx' }] } },
  },
});

/** Lets the controller's informers and workers run until `done` holds (the clock moves only when asked). */

test('a set gets its pods, owned and labelled; a deleted pod is replaced; scaling down deletes the surplus; status follows', async () => {
  const { cluster, clock, events, errors, ctx, controller } = setup();
  const sets = cluster.store('apps', 'v1', 'replicasets');
  const pods = cluster.store('', 'v1', 'pods');
  const created = await sets.create(ctx('default'), replicaSet(3), { dryRun: false });
  await controller.start();
  try {
    await settle(clock, () => pods.all().length === 3);
    const owned = pods.all();
    expect(owned.map((p) => p.metadata.generateName)).toEqual(['web-', 'web-', 'web-']);
    for (const pod of owned) {
      expect(pod.metadata.labels).toEqual({ app: 'web' });
      expect(pod.metadata.ownerReferences).toEqual([
        { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web', uid: created.metadata.uid, controller: true, blockOwnerDeletion: true },
      ]);
    }
    await settle(clock, () => (sets.all()[0].status as { replicas?: number } | undefined)?.replicas === 3);
    expect(events.filter((e) => e.startsWith('Normal SuccessfulCreate web:'))).toHaveLength(3);

    await sets.update(ctx('default'), 'web', (set) => ({ ...set, spec: { ...(set.spec as object), replicas: 1 } }), { dryRun: false });
    await settle(clock, () => pods.all().length === 1);
    expect(events.filter((e) => e.startsWith('Normal SuccessfulDelete web:'))).toHaveLength(2);

    // A pod deleted from under the set is replaced.
    await pods.delete(ctx('default'), pods.all()[0].metadata.name!, { dryRun: false });
    await settle(clock, () => pods.all().length === 1);
    await settle(clock, () => (sets.all()[0].status as { replicas?: number } | undefined)?.replicas === 1);
    expect(errors).toEqual([]);
  } finally {
    controller.stop();
  }
});

test('a status write retried after a conflict keeps the generation the sync acted on (updateReplicaSetStatus)', async () => {
  const { cluster, clock, ctx, controller } = setup();
  const sets = cluster.store('apps', 'v1', 'replicasets');
  const pods = cluster.store('', 'v1', 'pods');
  await sets.create(ctx('default'), { ...replicaSet(1), metadata: { name: 'web', namespace: 'default', generation: 1 } }, { dryRun: false });
  const update = sets.update.bind(sets);
  const statusWrites: KubeObject[] = [];
  let raced = false;
  // The first status write loses a race with a spec change (generation 2): the retry reads the set again.
  sets.update = async (c, name, input, opts) => {
    if (c.info.subresource === 'status' && typeof input !== 'function') {
      if (!raced) {
        raced = true;
        await update(ctx('default'), name, (s) => ({ ...s, metadata: { ...s.metadata, generation: 2 } }), { dryRun: false });
      }
      statusWrites.push(structuredClone(input));
    }
    return update(c, name, input, opts);
  };
  await controller.start();
  try {
    await settle(clock, () => pods.all().length === 1 && statusWrites.length >= 2);
    const [first, retried] = statusWrites.map((s) => (s.status as { observedGeneration?: number }).observedGeneration);
    expect([first, retried]).toEqual([1, 1]);
  } finally {
    await controller.stop();
  }
});
