import type { Subresource } from '../../registry/subresources';
import { respond } from '../respond';
import { admittedBody } from './admitted-body';
import type { ResourceRequest } from './context';

export async function handleUpdate(r: ResourceRequest): Promise<void> {
  const { info, store } = r;
  const { object, dryRun, fieldManager } = await admittedBody(r, 'UpdateOptions', 'UPDATE', info.subresource, () => info.name);
  const result = await store.update(info.namespace, info.name, object, {
    dryRun,
    fieldManager,
    subresource: info.subresource as '' | Subresource,
  });
  respond(r, result.created ? 201 : 200, result.object);
}
