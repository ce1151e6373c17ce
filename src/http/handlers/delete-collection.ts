import { invalid } from '../../api/errors';
import { field } from '../../api/field-errors';
import { readBody } from '../body';
import { parseDeleteOptions } from '../delete-options';
import { parseListOptions } from '../list-options';
import { respond } from '../respond';
import type { ResourceRequest } from './context';

/**
 * DELETE on a collection: the store deletes what the selectors match, each with the delete
 * options, and answers with the list as it was.
 */
export async function handleDeleteCollection(r: ResourceRequest): Promise<void> {
  const { store, query } = r;
  const listOpts = await parseListOptions(query, store.def, 'deletecollection', r.ctx.signal, r.watchListEnabled);
  const body = await readBody(r.req);
  const opts = parseDeleteOptions(body, r.req.headers['content-type'], query, r.inputEncodings, r.unsafeMalformedObjectDeletion);
  if (opts.ignoreStoreReadErrorWithClusterBreakingPotential) {
    throw invalid({ group: 'meta.k8s.io', kind: 'DeleteOptions' }, '', [
      field.invalid('ignoreStoreReadErrorWithClusterBreakingPotential', true, 'is not allowed with DELETECOLLECTION, try again after removing the option'),
    ]);
  }
  const list = await store.deleteCollection(r.ctx, listOpts, {
    dryRun: opts.dryRun,
    gracePeriodSeconds: opts.gracePeriodSeconds,
    preconditions: opts.preconditions,
    propagationPolicy: opts.propagationPolicy,
    orphanDependents: opts.orphanDependents,
  });
  await respond(r, 200, list);
}
