import { invalid, isStatusError } from '../../api/errors';
import { field } from '../../api/field-errors';
import { readBody } from '../body';
import { parseDeleteOptions } from '../delete-options';
import { parseListOptions } from '../list-options';
import { respond } from '../respond';
import type { ResourceRequest } from './context';

/**
 * DELETE on a collection: deletes what the selectors match, each with the delete options, and
 * answers with the list as it was. A limit deletes one page only, as kube-apiserver does.
 */
export async function handleDeleteCollection(r: ResourceRequest): Promise<void> {
  const { info, store, query } = r;
  const listOpts = parseListOptions(query, store.def, false);
  const body = await readBody(r.req);
  const opts = parseDeleteOptions(body, r.req.headers['content-type'], query, r.inputEncodings, r.unsafeMalformedObjectDeletion);
  if (opts.ignoreStoreReadErrorWithClusterBreakingPotential) {
    throw invalid({ group: 'meta.k8s.io', kind: 'DeleteOptions' }, '', [
      field.invalid('ignoreStoreReadErrorWithClusterBreakingPotential', true, 'is not allowed with DELETECOLLECTION, try again after removing the option'),
    ]);
  }
  await r.admission.admit({ operation: 'DELETE', def: store.def, namespace: info.namespace, name: '', subresource: '', dryRun: opts.dryRun });
  const paged = (listOpts.limit ?? 0) > 0;
  const list = await store.list(info.namespace, paged ? listOpts : { ...listOpts, limit: undefined, continue: undefined });
  for (const item of list.items) {
    try {
      await store.delete(item.metadata.namespace ?? '', item.metadata.name ?? '', {
        dryRun: opts.dryRun,
        gracePeriodSeconds: opts.gracePeriodSeconds,
        preconditions: opts.preconditions,
        propagationPolicy: opts.propagationPolicy,
        orphanDependents: opts.orphanDependents,
      });
    } catch (err) {
      // Something else deleted it meanwhile: the collection is still gone, as asked.
      if (!(isStatusError(err) && err.code === 404)) throw err;
    }
  }
  respond(r, 200, list);
}
