import type { ServerServices } from '../../registry/types';
import type { CreateSubresource } from '../../registry/subresources';
import { respond } from '../respond';
import type { ResourceRequest } from './context';
import { writeBody } from './write-body';

/**
 * POST to a create subresource (pods/binding, serviceaccounts/token): the body is of the
 * subresource's kind, decoded and checked as a create's; the store admits it and the subresource answers.
 */
export async function handleCreateSubresource(r: ResourceRequest, sub: CreateSubresource, services: ServerServices): Promise<void> {
  const { object, dryRun } = await writeBody(r, 'CreateOptions');
  const answer = await r.store.createThrough(r.ctx, sub, object, { dryRun }, services);
  await respond(r, 201, answer);
}
