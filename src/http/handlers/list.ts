import { parseListOptions } from '../list-options';
import { present, writeEncoded } from '../respond';
import type { ResourceRequest } from './context';

export async function handleList(r: ResourceRequest): Promise<void> {
  const { info, store, query, output } = r;
  const opts = parseListOptions(query, store.def, false);
  const list = await store.list(info.namespace, opts);
  writeEncoded(r.res, 200, present(store.def, list, output, query), output, r.pretty);
}
