import { badRequest } from '../api/errors';

/** Parses a resourceVersion as kube-apiserver does: a decimal etcd revision; "0" means "any". */
export function parseRevision(resourceVersion: string): number {
  if (resourceVersion === '') return 0;
  if (!/^[0-9]+$/.test(resourceVersion)) {
    throw badRequest(`invalid resource version: strconv.ParseUint: parsing ${JSON.stringify(resourceVersion)}: invalid syntax`);
  }
  const revision = Number(resourceVersion);
  if (!Number.isSafeInteger(revision)) {
    throw badRequest(`invalid resource version: strconv.ParseUint: parsing ${JSON.stringify(resourceVersion)}: value out of range`);
  }
  return revision;
}
