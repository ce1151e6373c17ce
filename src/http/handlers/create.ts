import { readBody } from '../body';
import { decodeObject } from '../decode-object';
import { enforceFieldValidation } from '../field-validation';
import { dryRunParam, fieldManagerParam, fieldValidationParam } from '../query';
import { respond } from '../respond';
import type { RestStore } from '../../registry/resource-registry';
import type { ResourceRequest } from './context';

export async function handleCreate(r: ResourceRequest<RestStore>): Promise<void> {
  const { info, store, query } = r;
  const body = await readBody(r.req);
  const dryRun = dryRunParam(query, 'CreateOptions');
  const validation = fieldValidationParam(query, 'CreateOptions');
  const fieldManager = fieldManagerParam(query, r.req.headers['user-agent'], 'CreateOptions', false);
  const { object, fieldErrors } = decodeObject(body, r.req.headers['content-type'], r.served.kind, r.inputEncodings, r.served.schema, validation);
  enforceFieldValidation(r.res, validation, fieldErrors);
  await r.admission.admit({
    operation: 'CREATE',
    def: store.def,
    namespace: info.namespace,
    name: object.metadata.name ?? '',
    subresource: '',
    object,
    dryRun,
  });
  const created = await store.create(info.namespace, object, { dryRun, fieldManager });
  respond(r, 201, created);
}
