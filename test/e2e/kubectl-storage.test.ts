import { kubectl, serverProcessForFile } from '../harness/process';

/** A chart's storage: a class, a volume and a claim applied with kubectl, listed, expanded and deleted. */

// The test plays the binder (claimRef, phases): the real one stays out of its way.
const kapi = serverProcessForFile(['--controllers=*,-persistentvolume-binder-controller']);
const k = (...args: string[]) => kubectl(kapi.url, args);

const manifest = `apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata:
  name: fast
  annotations:
    storageclass.kubernetes.io/is-default-class: "true"
provisioner: example.com/disk
allowVolumeExpansion: true
volumeBindingMode: WaitForFirstConsumer
parameters:
  type: ssd
---
apiVersion: v1
kind: PersistentVolume
metadata:
  name: pv-data
spec:
  capacity:
    storage: 10Gi
  accessModes: [ReadWriteOnce, ReadOnlyMany]
  storageClassName: fast
  claimRef:
    namespace: default
    name: data
  hostPath:
    path: /srv/data
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata:
  name: data
  namespace: default
spec:
  accessModes: [ReadWriteOnce]
  storageClassName: fast
  volumeName: pv-data
  resources:
    requests:
      storage: 5Gi
`;

test('kubectl api-resources lists the storage kinds with their short names', async () => {
  const res = await k('api-resources', '--no-headers');
  const lines = res.stdout.split('\n');
  expect(lines.find((l) => l.startsWith('persistentvolumeclaims '))).toMatch(/^persistentvolumeclaims\s+pvc\s+v1\s+true\s+PersistentVolumeClaim$/);
  expect(lines.find((l) => l.startsWith('persistentvolumes '))).toMatch(/^persistentvolumes\s+pv\s+v1\s+false\s+PersistentVolume$/);
  expect(lines.find((l) => l.startsWith('storageclasses '))).toMatch(/^storageclasses\s+sc\s+storage\.k8s\.io\/v1\s+false\s+StorageClass$/);
});

test('kubectl apply twice (the second time unchanged), get with kubectl columns, patch to expand, delete', async () => {
  const first = await kubectl(kapi.url, ['apply', '-f', '-'], manifest);
  expect(first.stderr).toBe('');
  expect(first.stdout.trim().split('\n')).toEqual([
    'storageclass.storage.k8s.io/fast created',
    'persistentvolume/pv-data created',
    'persistentvolumeclaim/data created',
  ]);
  const second = await kubectl(kapi.url, ['apply', '-f', '-'], manifest);
  expect(second.stdout.trim().split('\n')).toEqual([
    'storageclass.storage.k8s.io/fast unchanged',
    'persistentvolume/pv-data unchanged',
    'persistentvolumeclaim/data unchanged',
  ]);

  // No controller binds claims: the test plays the binder through /status.
  const bound = await k(
    'patch',
    'pvc',
    'data',
    '--subresource=status',
    '--type=merge',
    '-p',
    '{"status":{"phase":"Bound","accessModes":["ReadWriteOnce"],"capacity":{"storage":"10Gi"}}}',
  );
  expect(bound.stderr).toBe('');
  expect((await k('patch', 'pv', 'pv-data', '--subresource=status', '--type=merge', '-p', '{"status":{"phase":"Bound"}}')).stderr).toBe('');

  const got = await k('get', 'pvc,pv,sc');
  expect(got.stderr).toBe('');
  const blocks = got.stdout.trim().split('\n\n');
  expect(blocks[0]).toMatch(
    /^NAME\s+STATUS\s+VOLUME\s+CAPACITY\s+ACCESS MODES\s+STORAGECLASS\s+VOLUMEATTRIBUTESCLASS\s+AGE\npersistentvolumeclaim\/data\s+Bound\s+pv-data\s+10Gi\s+RWO\s+fast\s+<unset>\s+\S+$/,
  );
  expect(blocks[1]).toMatch(
    /^NAME\s+CAPACITY\s+ACCESS MODES\s+RECLAIM POLICY\s+STATUS\s+CLAIM\s+STORAGECLASS\s+VOLUMEATTRIBUTESCLASS\s+REASON\s+AGE\npersistentvolume\/pv-data\s+10Gi\s+RWO,ROX\s+Retain\s+Bound\s+default\/data\s+fast\s+<unset>\s+\S+$/,
  );
  expect(blocks[2]).toMatch(
    /^NAME\s+PROVISIONER\s+RECLAIMPOLICY\s+VOLUMEBINDINGMODE\s+ALLOWVOLUMEEXPANSION\s+AGE\nstorageclass\.storage\.k8s\.io\/fast \(default\)\s+example\.com\/disk\s+Delete\s+WaitForFirstConsumer\s+true\s+\S+$/,
  );
  expect((await k('get', 'pvc', 'data', '-o', 'wide')).stdout).toMatch(/VOLUMEMODE\n.*\s+Filesystem\n$/);

  const expanded = await k('patch', 'pvc', 'data', '-p', '{"spec":{"resources":{"requests":{"storage":"8Gi"}}}}');
  expect(expanded.stdout.trim()).toBe('persistentvolumeclaim/data patched');
  expect((await k('get', 'pvc', 'data', '-o', 'jsonpath={.spec.resources.requests.storage}')).stdout).toBe('8Gi');
  const immutable = await k('patch', 'pvc', 'data', '-p', '{"spec":{"accessModes":["ReadWriteMany"]}}');
  expect(immutable.code).not.toBe(0);
  expect(immutable.stderr).toContain(
    'spec: Forbidden: spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims',
  );

  // A Bound volume keeps its pv-protection finalizer: the test plays the binder again, which releases it once its claim goes.
  expect((await k('patch', 'pv', 'pv-data', '--subresource=status', '--type=merge', '-p', '{"status":{"phase":"Released"}}')).stderr).toBe('');
  const deleted = await k('delete', 'pvc/data', 'pv/pv-data', 'sc/fast');
  expect(deleted.stdout.trim().split('\n')).toEqual([
    'persistentvolumeclaim "data" deleted',
    'persistentvolume "pv-data" deleted',
    'storageclass.storage.k8s.io "fast" deleted',
  ]);
  expect((await k('get', 'pvc,pv,sc')).stderr.trim()).toBe('No resources found');
});
