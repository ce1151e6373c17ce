import { isStatusError } from '../api/errors';
import type { KubeObject } from '../api/types';
import type { GenericStore } from '../registry/generic-store';
import { systemContext, SERVER_OWN_WRITE } from '../registry/request-context';
import type { RequestHeaderConfig } from './front-proxy';

export const AUTHENTICATION_CONFIGMAP = 'extension-apiserver-authentication';

/**
 * The data ClusterAuthenticationTrustController publishes for extension servers: the client CA,
 * the requestheader CA, and the requestheader names and headers as JSON lists.
 */
export function authenticationData(clientCa: string, requestHeader: RequestHeaderConfig): Record<string, string> {
  return {
    'client-ca-file': clientCa,
    'requestheader-allowed-names': JSON.stringify(requestHeader.allowedNames),
    'requestheader-client-ca-file': requestHeader.ca,
    'requestheader-extra-headers-prefix': JSON.stringify(requestHeader.extraHeaderPrefixes),
    'requestheader-group-headers': JSON.stringify(requestHeader.groupHeaders),
    'requestheader-username-headers': JSON.stringify(requestHeader.usernameHeaders),
  };
}

/** Writes kube-system/extension-apiserver-authentication at start (created, or its data replaced), as every kube-apiserver does. */
export async function publishAuthenticationConfigMap(configMaps: GenericStore, data: Record<string, string>): Promise<void> {
  const ctx = systemContext({ namespace: 'kube-system', name: AUTHENTICATION_CONFIGMAP }, SERVER_OWN_WRITE);
  try {
    await configMaps.create(
      ctx,
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: AUTHENTICATION_CONFIGMAP, namespace: 'kube-system' }, data } as KubeObject,
      { dryRun: false },
    );
    return;
  } catch (err) {
    if (!(isStatusError(err) && err.code === 409)) throw err;
  }
  await configMaps.update(
    ctx,
    AUTHENTICATION_CONFIGMAP,
    (cm) => {
      cm.data = data;
      return cm;
    },
    { dryRun: false },
  );
}
