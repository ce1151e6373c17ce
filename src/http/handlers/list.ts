import { parseListOptions } from '../list-options';
import { respond } from '../respond';
import type { ResourceRequest } from './context';

export async function handleList(r: ResourceRequest): Promise<void> {
  const { info, store, query } = r;
  const opts = parseListOptions(query, store.def, false);
  const list = await store.list(info.namespace, opts);
  await respond(r, 200, list);
}
