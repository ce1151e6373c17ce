import type { Subresource } from '../../registry/subresources';
import { readBody } from '../body';
import { decodeObject } from '../decode-object';
import { dryRunParam, fieldValidationParam } from '../query';
import { respond } from '../respond';
import type { ResourceRequest } from './context';

export async function handleUpdate(r: ResourceRequest): Promise<void> {
  const { info, store, query } = r;
  const body = await readBody(r.req);
  const dryRun = dryRunParam(query, 'UpdateOptions');
  fieldValidationParam(query, 'UpdateOptions');
  const obj = decodeObject(body, r.req.headers['content-type'], store.def, r.inputEncodings);
  await r.admission.admit({
    operation: 'UPDATE',
    def: store.def,
    namespace: info.namespace,
    name: info.name,
    subresource: info.subresource,
    object: obj,
    dryRun,
  });
  const { object, created } = await store.update(info.namespace, info.name, obj, {
    dryRun,
    subresource: info.subresource as '' | Subresource,
  });
  respond(r, created ? 201 : 200, object);
}
