import { reconcileNamespace } from '../../registry/computed-store';
import type { ServerServices } from '../../registry/server-services';
import type { CreateSubresource } from '../../registry/subresources';
import { readBody } from '../body';
import { decodeObject } from '../decode-object';
import { enforceFieldValidation } from '../field-validation';
import { dryRunParam, fieldValidationParam } from '../query';
import { respond } from '../respond';
import type { ResourceRequest } from './context';

/**
 * POST to a create subresource (pods/binding, serviceaccounts/token): the body is of the
 * subresource's kind; the create handler's steps (decoding, field validation, admission, the
 * namespace reconciled) run before the subresource answers.
 */
export async function handleCreateSubresource(r: ResourceRequest, sub: CreateSubresource, services: ServerServices): Promise<void> {
  const { info, store, query } = r;
  const body = await readBody(r.req);
  const dryRun = dryRunParam(query, 'CreateOptions');
  const validation = fieldValidationParam(query, 'CreateOptions');
  const { object, fieldErrors } = decodeObject(body, r.req.headers['content-type'], r.served.kind, r.inputEncodings, r.served.schema, validation);
  enforceFieldValidation(r.res, validation, fieldErrors);
  await r.admission.admit({
    operation: 'CREATE',
    def: store.def,
    namespace: info.namespace,
    name: info.name,
    subresource: sub.name,
    object,
    dryRun,
  });
  reconcileNamespace(info.namespace, object);
  const answer = await sub.create({ parent: store, namespace: info.namespace, name: info.name, object, dryRun, services });
  respond(r, 201, answer);
}
