import { present, writeEncoded } from '../respond';
import type { ResourceRequest } from './context';

export async function handleGet(r: ResourceRequest): Promise<void> {
  const { info, store, query, output } = r;
  const obj = await store.get(info.namespace, info.name, { resourceVersion: query.get('resourceVersion') ?? '', match: '' });
  writeEncoded(r.res, 200, present(store.def, obj, output, query), output, r.pretty);
}
