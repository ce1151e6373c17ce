import type { RestStore } from '../../registry/resource-registry';
import { respond } from '../respond';
import { admittedBody } from './admitted-body';
import type { ResourceRequest } from './context';

export async function handleCreate(r: ResourceRequest<RestStore>): Promise<void> {
  const { object, dryRun, fieldManager } = await admittedBody(r, 'CreateOptions', 'CREATE', '', (o) => o.metadata.name ?? '');
  const created = await r.store.create(r.info.namespace, object, { dryRun, fieldManager });
  respond(r, 201, created);
}
