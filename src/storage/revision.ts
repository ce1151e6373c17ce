import { badRequest } from '../api/errors';

/**
 * A resourceVersion as kube reads it, a uint64 (APIObjectVersioner.ParseResourceVersion): a number
 * up to 2^53, a bigint beyond. kapi's revisions are numbers, so a bigint is one etcd has not
 * reached; it is never rounded to a nearby revision nor sent to etcd.
 */
export type Revision = number | bigint;

const UINT64_MAX = 2n ** 64n - 1n;

/** Parses a resourceVersion as kube-apiserver does: a decimal etcd revision; "0" means "any". */
export function parseRevision(resourceVersion: string): Revision {
  if (resourceVersion === '') return 0;
  if (!/^[0-9]+$/.test(resourceVersion)) {
    throw badRequest(`invalid resource version: strconv.ParseUint: parsing ${JSON.stringify(resourceVersion)}: invalid syntax`);
  }
  const revision = Number(resourceVersion);
  if (Number.isSafeInteger(revision)) return revision;
  const big = BigInt(resourceVersion);
  if (big > UINT64_MAX) {
    throw badRequest(`invalid resource version: strconv.ParseUint: parsing ${JSON.stringify(resourceVersion)}: value out of range`);
  }
  return big;
}
