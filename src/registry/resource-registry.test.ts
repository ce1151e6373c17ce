import { BUILT_IN_RESOURCES } from '../resources';
import type { Storage } from '../storage/interfaces';
import { GenericStore } from './generic-store';
import { ResourceRegistry } from './resource-registry';

const NO_STORAGE = {} as Storage;

function registryOf(prefix: string, resources: string[]): ResourceRegistry {
  const registry = new ResourceRegistry();
  for (const resource of resources) {
    const def = BUILT_IN_RESOURCES.find((d) => d.group === '' && d.resource === resource)!;
    registry.add(new GenericStore(def, NO_STORAGE, prefix));
  }
  return registry;
}

describe('ResourceRegistry.storeOfKey', () => {
  test('finds the resource of object keys, collection prefixes and two-segment storage paths under a prefix with slashes', () => {
    const registry = registryOf('/a/b', ['configmaps', 'services', 'endpoints', 'namespaces']);
    const resourceOf = (key: string) => registry.storeOfKey(key)?.def.resource;
    expect(resourceOf('/a/b/configmaps/default/one')).toBe('configmaps');
    expect(resourceOf('/a/b/configmaps/')).toBe('configmaps');
    expect(resourceOf('/a/b/configmaps/kube-system/')).toBe('configmaps');
    expect(resourceOf('/a/b/services/specs/default/kubernetes')).toBe('services');
    expect(resourceOf('/a/b/services/endpoints/default/kubernetes')).toBe('endpoints');
    expect(resourceOf('/a/b/namespaces/default')).toBe('namespaces');
    expect(resourceOf('/a/b/health')).toBeUndefined();
    expect(resourceOf('/a/b/secrets/default/one')).toBeUndefined();
    expect(resourceOf('/other/configmaps/default/one')).toBeUndefined();
  });

  test('follows resources added and removed after a lookup', () => {
    const registry = registryOf('/p', ['configmaps']);
    expect(registry.storeOfKey('/p/secrets/default/one')).toBeUndefined();
    const secrets = BUILT_IN_RESOURCES.find((d) => d.group === '' && d.resource === 'secrets')!;
    registry.add(new GenericStore(secrets, NO_STORAGE, '/p'));
    expect(registry.storeOfKey('/p/secrets/default/one')?.def.resource).toBe('secrets');
    registry.remove(secrets);
    expect(registry.storeOfKey('/p/secrets/default/one')).toBeUndefined();
  });
});
