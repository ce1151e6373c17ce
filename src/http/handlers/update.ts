import type { Subresource } from '../../registry/subresources';
import { readBody } from '../body';
import { decodeObject } from '../decode-object';
import { enforceFieldValidation } from '../field-validation';
import { dryRunParam, fieldManagerParam, fieldValidationParam } from '../query';
import { respond } from '../respond';
import type { ResourceRequest } from './context';

export async function handleUpdate(r: ResourceRequest): Promise<void> {
  const { info, store, query } = r;
  const body = await readBody(r.req);
  const dryRun = dryRunParam(query, 'UpdateOptions');
  const validation = fieldValidationParam(query, 'UpdateOptions');
  const fieldManager = fieldManagerParam(query, r.req.headers['user-agent'], 'UpdateOptions', false);
  const { object, fieldErrors } = decodeObject(body, r.req.headers['content-type'], r.served.kind, r.inputEncodings, r.served.schema, validation);
  enforceFieldValidation(r.res, validation, fieldErrors);
  await r.admission.admit({
    operation: 'UPDATE',
    def: store.def,
    namespace: info.namespace,
    name: info.name,
    subresource: info.subresource,
    object,
    dryRun,
  });
  const result = await store.update(info.namespace, info.name, object, {
    dryRun,
    fieldManager,
    subresource: info.subresource as '' | Subresource,
  });
  respond(r, result.created ? 201 : 200, result.object);
}
