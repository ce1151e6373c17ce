import type { KubeObject } from '../../api/types';
import type { Deployment, DeploymentStrategy, ReplicaSet } from '../../generated/types/apps/v1';
import type { RequestContext } from '../../registry/request-context';
import type { FakeObjectStore } from '../../../test/harness/fake-object-store';
import { fakeControllerDeps, settle } from '../../../test/harness/fake-controller-deps';
import { DeploymentController } from './deployment-controller';

/**
 * The Deployment controller's logic on a fake ObjectStore and a ManualClock, without etcd or a
 * server: the ReplicaSets it creates, scales, adopts and cleans up, their revisions, the
 * Deployment's status and its events. No ReplicaSet controller runs; `settleSets` plays its part
 * by reporting every set's pods as there and available.
 */

function setup() {
  const { cluster, clock, events, errors, ctx, deps } = fakeControllerDeps();
  const deployments = cluster.store('apps', 'v1', 'deployments');
  const sets = cluster.store('apps', 'v1', 'replicasets');
  return { clock, events, errors, ctx, deployments, sets, controller: new DeploymentController(deps, { DeploymentReplicaSetTerminatingReplicas: true }) };
}

const template = (image: string) => ({ metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'app', image }] } });

/** A Deployment as the server stores it: the strategy's defaults filled in. */
const deployment = (replicas: number, strategy: DeploymentStrategy, extra = {}): KubeObject =>
  ({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web', namespace: 'default', generation: 1 },
    spec: { replicas, selector: { matchLabels: { app: 'web' } }, template: template('nginx:1'), strategy, progressDeadlineSeconds: 600, ...extra },
  }) as KubeObject;

const ROLLING: DeploymentStrategy = { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: '25%' } };

/** Lets the controller's informers and workers run until `done` holds (the clock moves only when asked). */

/** The ReplicaSet controller's part: every set reports its spec's replicas as created, ready and available. */
async function settleSets(store: FakeObjectStore, ctx: (ns: string) => RequestContext): Promise<void> {
  for (const rs of store.all() as ReplicaSet[]) {
    const replicas = rs.spec?.replicas ?? 0;
    const status = rs.status ?? {};
    if (status.replicas === replicas && status.availableReplicas === replicas) continue;
    await store.update(
      ctx('default'),
      rs.metadata.name!,
      (current) => ({
        ...current,
        status: { replicas, fullyLabeledReplicas: replicas, readyReplicas: replicas, availableReplicas: replicas, observedGeneration: 1 },
      }),
      { dryRun: false },
    );
  }
}

const setsOf = (store: FakeObjectStore) => store.all() as ReplicaSet[];
const hashOf = (rs: ReplicaSet) => rs.metadata.labels?.['pod-template-hash'] ?? '';

test('a Deployment gets one owned ReplicaSet per template, with its revision; resizing it resizes the set; status and events follow', async () => {
  const { clock, events, errors, ctx, deployments, sets, controller } = setup();
  const created = await deployments.create(ctx('default'), deployment(3, ROLLING, { revisionHistoryLimit: 10 }), { dryRun: false });
  await controller.start();
  try {
    await settle(clock, () => setsOf(sets).length === 1);
    const [rs] = setsOf(sets);
    const hash = hashOf(rs);
    expect(hash).toMatch(/^[a-z0-9]+$/);
    expect(rs.metadata).toMatchObject({
      name: `web-${hash}`,
      labels: { app: 'web', 'pod-template-hash': hash },
      annotations: { 'deployment.kubernetes.io/revision': '1', 'deployment.kubernetes.io/desired-replicas': '3', 'deployment.kubernetes.io/max-replicas': '4' },
      ownerReferences: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', uid: created.metadata.uid, controller: true, blockOwnerDeletion: true }],
    });
    expect(rs.spec).toMatchObject({ replicas: 3, selector: { matchLabels: { app: 'web', 'pod-template-hash': hash } } });
    expect(rs.spec?.template?.metadata?.labels).toEqual({ app: 'web', 'pod-template-hash': hash });
    await settle(clock, () => events.includes(`Normal ScalingReplicaSet web: Scaled up replica set web-${hash} from 0 to 3`));
    const progressing = () => (deployments.all()[0] as Deployment).status?.conditions?.find((c) => c.type === 'Progressing');
    await settle(clock, () => progressing()?.reason === 'NewReplicaSetCreated');
    expect(deployments.all()[0].metadata.annotations).toMatchObject({ 'deployment.kubernetes.io/revision': '1' });

    // The sets report their pods available: the Deployment's status counts them and it is complete.
    await settleSets(sets, ctx);
    const status = () => (deployments.all()[0] as Deployment).status;
    await settle(clock, () => status()?.availableReplicas === 3);
    expect(status()).toMatchObject({ replicas: 3, updatedReplicas: 3, readyReplicas: 3, availableReplicas: 3, observedGeneration: 1 });
    await settle(clock, () => progressing()?.reason === 'NewReplicaSetAvailable');

    await deployments.update(ctx('default'), 'web', (d) => ({ ...d, spec: { ...(d.spec as object), replicas: 5 } }), { dryRun: false });
    await settle(clock, () => setsOf(sets)[0].spec?.replicas === 5);
    expect(setsOf(sets)).toHaveLength(1);
    expect(setsOf(sets)[0].metadata.annotations).toMatchObject({ 'deployment.kubernetes.io/desired-replicas': '5' });
    await settle(clock, () => events.includes(`Normal ScalingReplicaSet web: Scaled up replica set web-${hash} from 3 to 5`));
    expect(errors).toEqual([]);
  } finally {
    controller.stop();
  }
});

test('Recreate: the old set goes to zero before the new one is made; a revision history limit of 0 deletes the old set once complete', async () => {
  const { clock, events, errors, ctx, deployments, sets, controller } = setup();
  await deployments.create(ctx('default'), deployment(2, { type: 'Recreate' }, { revisionHistoryLimit: 0 }), { dryRun: false });
  await controller.start();
  try {
    await settle(clock, () => setsOf(sets).length === 1);
    await settleSets(sets, ctx);
    const oldHash = hashOf(setsOf(sets)[0]);

    await deployments.update(ctx('default'), 'web', (d) => ({ ...d, spec: { ...(d.spec as object), template: template('nginx:2') } }), { dryRun: false });
    await settle(clock, () => setsOf(sets)[0].spec?.replicas === 0);
    expect(setsOf(sets)).toHaveLength(1);
    expect(events).toContain(`Normal ScalingReplicaSet web: Scaled down replica set web-${oldHash} from 2 to 0`);

    // Its pods gone, the old set reports none: the new set is made at full size with the next revision.
    await settleSets(sets, ctx);
    const current = () => setsOf(sets).find((rs) => hashOf(rs) !== oldHash);
    await settle(clock, () => current()?.spec?.replicas === 2);
    expect(current()?.metadata.annotations).toMatchObject({ 'deployment.kubernetes.io/revision': '2' });
    expect(events).toContain(`Normal ScalingReplicaSet web: Scaled up replica set ${current()?.metadata.name} from 0 to 2`);

    await settleSets(sets, ctx);
    await settle(clock, () => setsOf(sets).length === 1);
    expect(hashOf(setsOf(sets)[0])).not.toBe(oldHash);
    expect(deployments.all()[0].metadata.annotations).toMatchObject({ 'deployment.kubernetes.io/revision': '2' });
    expect(errors).toEqual([]);
  } finally {
    controller.stop();
  }
});

test('an orphaned ReplicaSet of the same template is adopted, not duplicated', async () => {
  const { clock, errors, ctx, deployments, sets, controller } = setup();
  const orphan = await sets.create(
    ctx('default'),
    {
      apiVersion: 'apps/v1',
      kind: 'ReplicaSet',
      metadata: { name: 'web-orphan', namespace: 'default', labels: { app: 'web' } },
      spec: { replicas: 1, selector: { matchLabels: { app: 'web' } }, template: template('nginx:1') },
    },
    { dryRun: false },
  );
  const created = await deployments.create(ctx('default'), deployment(1, ROLLING), { dryRun: false });
  await controller.start();
  try {
    await settle(clock, () => (setsOf(sets)[0].metadata.ownerReferences ?? []).length === 1);
    expect(setsOf(sets)).toHaveLength(1);
    expect(setsOf(sets)[0].metadata).toMatchObject({
      uid: orphan.metadata.uid,
      ownerReferences: [{ kind: 'Deployment', name: 'web', uid: created.metadata.uid, controller: true }],
    });
    await settle(clock, () => setsOf(sets)[0].metadata.annotations?.['deployment.kubernetes.io/revision'] === '1');
    expect(setsOf(sets)).toHaveLength(1);
    expect(errors).toEqual([]);
  } finally {
    controller.stop();
  }
});
