import { readBody } from '../body';
import { decodeObject } from '../decode-object';
import { dryRunParam, fieldValidationParam } from '../query';
import { respond } from '../respond';
import type { ResourceRequest } from './context';

export async function handleCreate(r: ResourceRequest): Promise<void> {
  const { info, store, query } = r;
  const body = await readBody(r.req);
  const dryRun = dryRunParam(query, 'CreateOptions');
  fieldValidationParam(query, 'CreateOptions');
  const obj = decodeObject(body, r.req.headers['content-type'], store.def, r.inputEncodings);
  await r.admission.admit({
    operation: 'CREATE',
    def: store.def,
    namespace: info.namespace,
    name: obj.metadata.name ?? '',
    subresource: '',
    object: obj,
    dryRun,
  });
  const created = await store.create(info.namespace, obj, { dryRun });
  respond(r, 201, created);
}
