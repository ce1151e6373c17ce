import type { PersistentVolume, PersistentVolumeClaim } from '../../generated/types/core/v1';
import { findBestMatch, volumeMismatch } from './pv-matching';

const pv = (name: string, storage: string, extra: Partial<NonNullable<PersistentVolume['spec']>> = {}, labels?: Record<string, string>): PersistentVolume => ({
  metadata: { name, labels },
  spec: { capacity: { storage }, accessModes: ['ReadWriteOnce'], ...extra },
  status: { phase: 'Available' },
});
const claim = (storage: string, extra: Partial<NonNullable<PersistentVolumeClaim['spec']>> = {}): PersistentVolumeClaim => ({
  metadata: { name: 'c', namespace: 'ns', uid: 'u1' },
  spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage } }, ...extra },
});

test('the smallest volume at least as big as the request, of the same class, access modes and volume mode', () => {
  const volumes = [
    pv('500m', '500Mi'),
    pv('2g', '2Gi'),
    pv('1g', '1Gi'),
    pv('fast', '1Gi', { storageClassName: 'fast' }),
    pv('block', '1Gi', { volumeMode: 'Block' }),
  ];
  expect(findBestMatch(claim('1.5Gi'), volumes, false)?.metadata.name).toBe('2g');
  expect(findBestMatch(claim('1G'), volumes, false)?.metadata.name).toBe('1g');
  expect(findBestMatch(claim('1Gi'), volumes, false)?.metadata.name).toBe('1g');
  expect(findBestMatch(claim('1Gi', { storageClassName: 'fast' }), volumes, false)?.metadata.name).toBe('fast');
  expect(findBestMatch(claim('1Gi', { volumeMode: 'Block' }), volumes, false)?.metadata.name).toBe('block');
  expect(findBestMatch(claim('1Gi', { accessModes: ['ReadWriteMany'] }), volumes, false)).toBeNull();
  expect(findBestMatch(claim('3Gi'), volumes, false)).toBeNull();
});

test('a selector narrows; a volume claimed by another is not offered; a pre-bound one is taken even while binding waits', () => {
  const labelled = pv('labelled', '5Gi', {}, { tier: 'gold' });
  const taken = pv('taken', '1Gi', { claimRef: { namespace: 'ns', name: 'other' } });
  const mine = pv('mine', '10Gi', { claimRef: { namespace: 'ns', name: 'c' } });
  expect(findBestMatch(claim('1Gi', { selector: { matchLabels: { tier: 'gold' } } }), [pv('plain', '1Gi'), labelled], false)?.metadata.name).toBe('labelled');
  expect(findBestMatch(claim('1Gi'), [taken], false)).toBeNull();
  expect(findBestMatch(claim('1Gi'), [pv('free', '1Gi'), mine], true)?.metadata.name).toBe('mine');
  expect(findBestMatch(claim('1Gi'), [pv('free', '1Gi')], true)).toBeNull();
});

test("a named volume's mismatch in the controller's words", () => {
  expect(volumeMismatch(pv('v', '1Gi'), claim('2Gi'))).toBe('requested PV is too small');
  expect(volumeMismatch(pv('v', '1Gi', { storageClassName: 'x' }), claim('1Gi'))).toBe('storageClassName does not match');
  expect(volumeMismatch(pv('v', '1Gi'), claim('1Gi', { accessModes: ['ReadOnlyMany'] }))).toBe('incompatible accessMode');
  expect(volumeMismatch(pv('v', '1Gi'), claim('1Gi'))).toBeNull();
});
