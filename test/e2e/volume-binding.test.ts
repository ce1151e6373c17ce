import { eventually } from '../harness/crds';
import { kubectl, serverProcessForFile } from '../harness/process';

/** The persistentvolume-binder-controller, seen through kubectl. */

const kapi = serverProcessForFile();
const k = (...args: string[]) => kubectl(kapi.url, args);
const apply = async (manifest: string): Promise<void> => {
  const res = await kubectl(kapi.url, ['apply', '-f', '-'], manifest);
  expect(res.stderr).toBe('');
};
const json = async <T>(...args: string[]): Promise<T> => JSON.parse((await k(...args, '-o', 'json')).stdout) as T;

interface Claim {
  metadata: { uid: string; annotations?: Record<string, string> };
  spec: { volumeName?: string };
  status: { phase: string; accessModes?: string[]; capacity?: Record<string, string> };
}
interface Volume {
  metadata: { annotations?: Record<string, string> };
  spec: { claimRef?: Record<string, string> };
  status: { phase: string; lastPhaseTransitionTime?: string };
}

const pv = (name: string, size: string, extra = '') => `apiVersion: v1
kind: PersistentVolume
metadata: {name: ${name}}
spec:
  capacity: {storage: ${size}}
  accessModes: [ReadWriteOnce]
  persistentVolumeReclaimPolicy: Retain
  hostPath: {path: /tmp/${name}}
${extra}`;
const pvc = (name: string, size: string, extra = '') => `apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: ${name}}
spec:
  accessModes: [ReadWriteOnce]
  resources: {requests: {storage: ${size}}}
${extra}`;

const phaseOf = async (what: string, phase: string) =>
  eventually(`${what} ${phase}`, async () => {
    const obj = await json<Claim & Volume>('get', what);
    return obj.status?.phase === phase ? obj : undefined;
  });
const eventMessages = async (name: string): Promise<string[]> =>
  (
    await json<{ items: { reason: string; message: string; source: { component: string } }[] }>(
      'get',
      'events',
      '--field-selector',
      `involvedObject.name=${name}`,
    )
  ).items.map((e) => `${e.source.component} ${e.reason}: ${e.message}`);

test('a claim binds to the smallest volume that fits; one nothing fits stays Pending and says why; a deleted claim leaves its volume Released', async () => {
  await apply(`${pv('pv-small', '1Gi')}---\n${pv('pv-big', '5Gi')}---\n${pv('pv-huge', '50Gi')}---\n${pvc('data', '2Gi')}`);
  const claim = await phaseOf('pvc/data', 'Bound');
  expect(claim.spec.volumeName).toBe('pv-big');
  expect(claim.metadata.annotations).toMatchObject({ 'pv.kubernetes.io/bind-completed': 'yes', 'pv.kubernetes.io/bound-by-controller': 'yes' });
  expect(claim.status).toEqual({ phase: 'Bound', accessModes: ['ReadWriteOnce'], capacity: { storage: '5Gi' } });
  const volume = await phaseOf('pv/pv-big', 'Bound');
  expect(volume.metadata.annotations?.['pv.kubernetes.io/bound-by-controller']).toBe('yes');
  expect(volume.spec.claimRef).toEqual({
    kind: 'PersistentVolumeClaim',
    namespace: 'default',
    name: 'data',
    uid: claim.metadata.uid,
    apiVersion: 'v1',
    resourceVersion: expect.any(String),
  });
  expect(volume.status.lastPhaseTransitionTime).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  await phaseOf('pv/pv-small', 'Available');
  expect((await k('get', 'pvc', 'data')).stdout).toMatch(
    /^NAME\s+STATUS\s+VOLUME\s+CAPACITY\s+ACCESS MODES\s+STORAGECLASS\s+VOLUMEATTRIBUTESCLASS\s+AGE\ndata\s+Bound\s+pv-big\s+5Gi\s+RWO\s+<unset>\s+\S+\n$/,
  );

  // Too big for any volume: Pending, with the controller's event.
  await apply(pvc('lonely', '100Gi'));
  await eventually('the FailedBinding event', async () => {
    const messages = await eventMessages('lonely');
    return messages.includes('persistentvolume-controller FailedBinding: no persistent volumes available for this claim and no storage class is set')
      ? true
      : undefined;
  });
  expect((await json<Claim>('get', 'pvc', 'lonely')).status.phase).toBe('Pending');

  // A claim that names its volume gets it: bind-completed, but not bound by the controller.
  await apply(pvc('named', '1Gi', '  volumeName: pv-small\n'));
  const named = await phaseOf('pvc/named', 'Bound');
  expect(named.metadata.annotations?.['pv.kubernetes.io/bind-completed']).toBe('yes');
  expect(named.metadata.annotations?.['pv.kubernetes.io/bound-by-controller']).toBeUndefined();
  await phaseOf('pv/pv-small', 'Bound');

  // The claim goes: its (Retain) volume is Released and keeps the claimRef.
  expect((await k('delete', 'pvc', 'data')).code).toBe(0);
  const released = await phaseOf('pv/pv-big', 'Released');
  expect(released.spec.claimRef?.name).toBe('data');
});

test('a WaitForFirstConsumer claim waits for a node, then binds', async () => {
  await apply(`apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata: {name: local}
provisioner: kubernetes.io/no-provisioner
volumeBindingMode: WaitForFirstConsumer
---
${pv('pv-local', '1Gi', '  storageClassName: local\n')}---
${pvc('wait', '1Gi', '  storageClassName: local\n')}`);
  await eventually('the WaitForFirstConsumer event', async () => {
    const messages = await eventMessages('wait');
    return messages.includes('persistentvolume-controller WaitForFirstConsumer: waiting for first consumer to be created before binding') ? true : undefined;
  });
  expect((await json<Claim>('get', 'pvc', 'wait')).status.phase).toBe('Pending');
  expect((await json<Volume>('get', 'pv', 'pv-local')).status.phase).toBe('Available');

  // What the scheduler does once a pod using the claim is placed.
  expect((await k('annotate', 'pvc', 'wait', 'volume.kubernetes.io/selected-node=node-a')).code).toBe(0);
  const bound = await phaseOf('pvc/wait', 'Bound');
  expect(bound.spec.volumeName).toBe('pv-local');
});
