import type { TransformerLookup } from './encryption-config';
import type { ValueTransformer } from './value-transformer';

/** A built-in resource's key space: `root` is `<etcd prefix>/<storage path>/`. */
export interface StoredRoot {
  root: string;
  group: string;
  resource: string;
}

/**
 * The transformer of the value under an etcd key: a built-in resource's by its key space, and a
 * custom resource's by the `<prefix>/<group>/<plural>/` it is stored under (kube applies the same
 * `<resource>.<group>`, `*.<group>` and `*.*` rules to both). A CRD's group always has a dot, which
 * no other key under the prefix has in its first segment.
 */
export function transformerByKey(lookup: TransformerLookup, etcdPrefix: string, builtIns: StoredRoot[]): (key: string) => ValueTransformer | undefined {
  const known = builtIns.map(({ root, group, resource }) => ({ root, transformer: lookup(group, resource) }));
  const prefix = `${etcdPrefix.replace(/\/$/, '')}/`;
  return (key) => {
    const builtIn = known.find((r) => key.startsWith(r.root));
    if (builtIn) return builtIn.transformer;
    if (!key.startsWith(prefix)) return undefined;
    const [group, resource, ...rest] = key.slice(prefix.length).split('/');
    if (!group.includes('.') || !resource || rest.length === 0) return undefined;
    return lookup(group, resource);
  };
}
