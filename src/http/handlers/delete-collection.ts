import { isStatusError } from '../../api/errors';
import { readBody } from '../body';
import { parseDeleteOptions } from '../delete-options';
import { parseListOptions } from '../list-options';
import { respond } from '../respond';
import type { ResourceRequest } from './context';

/** DELETE on a collection: deletes what the selectors match and answers with the list as it was. */
export async function handleDeleteCollection(r: ResourceRequest): Promise<void> {
  const { info, store, query } = r;
  const body = await readBody(r.req);
  const opts = parseDeleteOptions(body, r.req.headers['content-type'], query, r.inputEncodings);
  const listOpts = parseListOptions(query, store.def, false);
  const list = await store.list(info.namespace, { ...listOpts, resourceVersion: '', match: '', limit: undefined, continue: undefined });
  for (const item of list.items) {
    const name = item.metadata.name ?? '';
    const namespace = item.metadata.namespace ?? '';
    await r.admission.admit({ operation: 'DELETE', def: store.def, namespace, name, subresource: '', dryRun: opts.dryRun });
    try {
      await store.delete(namespace, name, { dryRun: opts.dryRun, gracePeriodSeconds: opts.gracePeriodSeconds, preconditions: opts.preconditions });
    } catch (err) {
      // Something else deleted it meanwhile: the collection is still gone, as asked.
      if (!(isStatusError(err) && err.code === 404)) throw err;
    }
  }
  respond(r, 200, list);
}
