import { respond } from '../respond';
import type { ResourceRequest } from './context';

export async function handleGet(r: ResourceRequest): Promise<void> {
  const { ctx, info, store, query } = r;
  const obj = await store.get(ctx, info.name, { resourceVersion: query.get('resourceVersion') ?? '', match: '', signal: ctx.signal });
  await respond(r, 200, obj);
}
