import { systemReadContext } from '../registry/request-context';
import type { ServerServices } from '../registry/types';
import type { ObjectLookup } from './service-account-authenticator';

/** Live reads, through their stores, of the objects a service account token names. */
export function storeLookup(services: Pick<ServerServices, 'store'>): ObjectLookup {
  return async (resource, namespace, name) => {
    const live = await services.store('', resource).find(systemReadContext(namespace), name, { resourceVersion: '', match: '' });
    return live && { uid: live.metadata.uid ?? '', deleting: Boolean(live.metadata.deletionTimestamp) };
  };
}
