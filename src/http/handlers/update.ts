import { respond } from '../respond';
import type { ResourceRequest } from './context';
import { writeBody } from './write-body';

export async function handleUpdate(r: ResourceRequest): Promise<void> {
  const { object, dryRun, fieldManager } = await writeBody(r, 'UpdateOptions');
  const result = await r.store.update(r.ctx, r.info.name, object, { dryRun, fieldManager });
  await respond(r, result.created ? 201 : 200, result.object);
}
