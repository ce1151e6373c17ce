import type { KubeObject } from '../api/types';
import { newestDefault } from './default-storage-class';

const cls = (name: string, creationTimestamp: string, isDefault = true): KubeObject => ({
  apiVersion: 'storage.k8s.io/v1',
  kind: 'StorageClass',
  metadata: { name, creationTimestamp, annotations: isDefault ? { d: 'true' } : {} },
});
const isDefault = (c: KubeObject) => c.metadata.annotations?.d === 'true';

describe('newestDefault (GetDefaultClass)', () => {
  test('the newest default wins; ties go to the first name', () => {
    const old = cls('a', '2025-01-01T00:00:00Z');
    const newer = cls('z', '2025-01-02T00:00:00Z');
    const newestNotDefault = cls('n', '2025-01-03T00:00:00Z', false);
    expect(newestDefault([old, newer, newestNotDefault], isDefault)?.metadata.name).toBe('z');
    expect(newestDefault([cls('b', '2025-01-02T00:00:00Z'), newer, cls('c', '2025-01-02T00:00:00Z')], isDefault)?.metadata.name).toBe('b');
  });

  test('no default: none', () => {
    expect(newestDefault([cls('a', '2025-01-01T00:00:00Z', false)], isDefault)).toBeNull();
  });
});
