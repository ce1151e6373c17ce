import { readBody } from '../body';
import { parseDeleteOptions } from '../delete-options';
import { respond } from '../respond';
import { authorizeUnsafeDelete } from '../../auth/unsafe-delete-authorization';
import type { ResourceRequest } from './context';

export async function handleDelete(r: ResourceRequest): Promise<void> {
  const { info, store, query } = r;
  const body = await readBody(r.req);
  const opts = parseDeleteOptions(body, r.req.headers['content-type'], query, r.inputEncodings, r.unsafeMalformedObjectDeletion);
  if (opts.ignoreStoreReadErrorWithClusterBreakingPotential) {
    authorizeUnsafeDelete(r.ctx, {
      group: info.group,
      version: info.version,
      resource: info.resource,
      namespace: info.namespace,
      name: info.name,
    });
    await respond(r, 200, await store.deleteCorrupt(r.ctx, info.name, { dryRun: opts.dryRun }));
    return;
  }
  const { object, deleted } = await store.delete(r.ctx, info.name, {
    dryRun: opts.dryRun,
    gracePeriodSeconds: opts.gracePeriodSeconds,
    preconditions: opts.preconditions,
    propagationPolicy: opts.propagationPolicy,
    orphanDependents: opts.orphanDependents,
  });
  // kube-apiserver answers 202 only when a requested cascading deletion is still in progress.
  const code = !deleted && opts.orphanDependents === false ? 202 : 200;
  await respond(r, code, object);
}
