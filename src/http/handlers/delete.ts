import { readBody } from '../body';
import { parseDeleteOptions } from '../delete-options';
import { respond } from '../respond';
import type { ResourceRequest } from './context';

export async function handleDelete(r: ResourceRequest): Promise<void> {
  const { info, store, query } = r;
  const body = await readBody(r.req);
  const opts = parseDeleteOptions(body, r.req.headers['content-type'], query, r.inputEncodings);
  await r.admission.admit({
    operation: 'DELETE',
    def: store.def,
    namespace: info.namespace,
    name: info.name,
    subresource: '',
    dryRun: opts.dryRun,
  });
  const { object, deleted } = await store.delete(info.namespace, info.name, {
    dryRun: opts.dryRun,
    gracePeriodSeconds: opts.gracePeriodSeconds,
    preconditions: opts.preconditions,
  });
  // kube-apiserver answers 202 only when a requested cascading deletion is still in progress.
  const code = !deleted && opts.orphanDependents === false ? 202 : 200;
  respond(r, code, object);
}
