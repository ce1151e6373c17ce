import { isStatusError } from '../api/errors';
import type { ServerServices } from '../registry/server-services';
import type { ObjectLookup } from './service-account-authenticator';

/** Live reads, through their stores, of the objects a service account token names. */
export function storeLookup(services: Pick<ServerServices, 'store'>): ObjectLookup {
  return async (resource, namespace, name) => {
    try {
      const live = await services.store('', resource).get(namespace, name, { resourceVersion: '', match: '' });
      return { uid: live.metadata.uid ?? '', deleting: Boolean(live.metadata.deletionTimestamp) };
    } catch (err) {
      if (isStatusError(err) && err.code === 404) return null;
      throw err;
    }
  };
}
