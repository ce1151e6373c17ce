import type { Subresource } from '../../registry/subresources';
import { respond } from '../respond';
import type { ResourceRequest } from './context';

export async function handleGet(r: ResourceRequest): Promise<void> {
  const { info, store, query } = r;
  const obj = await store.get(
    info.namespace,
    info.name,
    { resourceVersion: query.get('resourceVersion') ?? '', match: '' },
    info.subresource as '' | Subresource,
  );
  await respond(r, 200, obj);
}
