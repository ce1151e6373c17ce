import type { ResourceRegistry } from './resource-registry';

/**
 * A value derived from what the registry serves, built on first use and kept until a resource is
 * added or removed (a CRD's spec change replaces its stores). The OpenAPI documents are built this
 * way, as kube-apiserver's spec aggregator rebuilds them on such changes: building them all takes
 * hundreds of milliseconds on the event loop, too long to redo for every request. A build that
 * fails (a promise that rejects) is not kept: the next caller builds again.
 */
export function whileServedSetStays<T>(registry: Pick<ResourceRegistry, 'generation'>, build: () => T): () => T {
  let built: { generation: number; value: T } | null = null;
  return () => {
    if (built?.generation === registry.generation) return built.value;
    const current = { generation: registry.generation, value: build() };
    built = current;
    if (current.value instanceof Promise) {
      current.value.catch(() => {
        if (built === current) built = null;
      });
    }
    return current.value;
  };
}
