import { reconcileNamespace } from '../../registry/computed-store';
import type { ServerServices } from '../../registry/server-services';
import type { CreateSubresource } from '../../registry/subresources';
import { respond } from '../respond';
import { admittedBody } from './admitted-body';
import type { ResourceRequest } from './context';

/**
 * POST to a create subresource (pods/binding, serviceaccounts/token): the body is of the
 * subresource's kind; the create handler's steps (decoding, field validation, admission, the
 * namespace reconciled) run before the subresource answers.
 */
export async function handleCreateSubresource(r: ResourceRequest, sub: CreateSubresource, services: ServerServices): Promise<void> {
  const { info, store } = r;
  const { object, dryRun } = await admittedBody(r, 'CreateOptions', 'CREATE', sub.name, () => info.name);
  reconcileNamespace(info.namespace, object);
  const answer = await sub.create({ parent: store, namespace: info.namespace, name: info.name, object, dryRun, services });
  respond(r, 201, answer);
}
