import { parseListOptions } from '../list-options';
import { respond } from '../respond';
import type { ResourceRequest } from './context';

export async function handleList(r: ResourceRequest): Promise<void> {
  const { ctx, store, query } = r;
  const list = await store.list(ctx, await parseListOptions(query, store.def, 'list', ctx.signal));
  await respond(r, 200, list);
}
