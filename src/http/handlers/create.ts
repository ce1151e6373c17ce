import type { RestStore } from '../../registry/resource-registry';
import { respond } from '../respond';
import type { ResourceRequest } from './context';
import { writeBody } from './write-body';

export async function handleCreate(r: ResourceRequest<RestStore>): Promise<void> {
  const { object, dryRun, fieldManager } = await writeBody(r, 'CreateOptions');
  const created = await r.store.create(r.ctx, object, { dryRun, fieldManager });
  await respond(r, 201, created);
}
