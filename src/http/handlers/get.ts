import { badRequest } from '../../api/errors';
import { boolOption } from '../request-info';
import { respond } from '../respond';
import type { ResourceRequest } from './context';

export async function handleGet(r: ResourceRequest): Promise<void> {
  const { ctx, info, store, query } = r;
  // GetResource: ?export= (read as a bool option is) was removed in 1.18.
  if (query.has('export') && boolOption(query.get('export'))) throw badRequest('the export parameter, deprecated since v1.14, is no longer supported');
  const obj = await store.get(ctx, info.name, { resourceVersion: query.get('resourceVersion') ?? '', match: '', signal: ctx.signal });
  await respond(r, 200, obj);
}
