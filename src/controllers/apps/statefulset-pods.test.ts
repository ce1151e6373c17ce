import type { StatefulSet } from '../../generated/types/apps/v1';
import { claimsFor, identityMatches, newStatefulSetPod, parentAndOrdinal, podInOrdinalRange, storageMatches } from './statefulset-pods';

const set: StatefulSet = {
  metadata: { name: 'web', namespace: 'ns', uid: 'u1' },
  spec: {
    replicas: 2,
    ordinals: { start: 3 },
    serviceName: 'svc',
    selector: { matchLabels: { app: 'web' } },
    template: {
      metadata: { labels: { app: 'web' } },
      spec: {
        containers: [{ name: 'c' }],
        volumes: [
          { name: 'www', emptyDir: {} },
          { name: 'other', emptyDir: {} },
        ],
      },
    },
    volumeClaimTemplates: [{ metadata: { name: 'www', labels: { tier: 'data' } }, spec: { accessModes: ['ReadWriteOnce'] } }],
  },
};

test('names: <set>-<ordinal>; a name of another form or past int32 has no ordinal; the range starts at ordinals.start', () => {
  expect(parentAndOrdinal({ metadata: { name: 'my-web-12' } })).toEqual({ parent: 'my-web', ordinal: 12 });
  expect(parentAndOrdinal({ metadata: { name: 'web' } }).ordinal).toBe(-1);
  expect(parentAndOrdinal({ metadata: { name: 'web-2147483648' } }).ordinal).toBe(-1);
  expect([2, 3, 4, 5].map((i) => podInOrdinalRange(set, { metadata: { name: `web-${i}` } }))).toEqual([false, true, true, false]);
});

test('a new pod: identity labels, hostname and subdomain, its claim volume in place of the template volume of that name, the revision', () => {
  const pod = newStatefulSetPod(set, set.spec!.template!, 4, 'web-abc');
  expect(pod.metadata).toEqual({
    name: 'web-4',
    namespace: 'ns',
    labels: { app: 'web', 'statefulset.kubernetes.io/pod-name': 'web-4', 'apps.kubernetes.io/pod-index': '4', 'controller-revision-hash': 'web-abc' },
    ownerReferences: [{ apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'web', uid: 'u1', controller: true, blockOwnerDeletion: true }],
  });
  expect(pod.spec).toMatchObject({ hostname: 'web-4', subdomain: 'svc' });
  expect(pod.spec!.volumes).toEqual([
    { name: 'www', persistentVolumeClaim: { claimName: 'www-web-4' } },
    { name: 'other', emptyDir: {} },
  ]);
  expect(identityMatches(set, pod)).toBe(true);
  expect(storageMatches(set, pod)).toBe(true);
  expect(identityMatches(set, { ...pod, metadata: { ...pod.metadata, labels: { app: 'web' } } })).toBe(false);
  expect(storageMatches(set, { ...pod, spec: { volumes: [] } })).toBe(false);
  expect(claimsFor(set, 4).get('www')?.metadata).toEqual({ name: 'www-web-4', namespace: 'ns', labels: { tier: 'data', app: 'web' } });
});
