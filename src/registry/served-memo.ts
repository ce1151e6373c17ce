import type { ResourceRegistry } from './resource-registry';

/**
 * A value derived from what a registry serves, built on first use and again only after a resource
 * has been added or removed (a CRD served, changed or gone): until then every caller shares it.
 */
export function memoWhileServed<T>(registry: Pick<ResourceRegistry, 'generation'>, build: () => T): () => T {
  let memo: { generation: number; value: T } | null = null;
  return () => {
    if (memo?.generation !== registry.generation) memo = { generation: registry.generation, value: build() };
    return memo.value;
  };
}
