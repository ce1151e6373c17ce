import { dump } from 'js-yaml';

/**
 * A kubeconfig for one server on plain HTTP (every request acts as a cluster admin there).
 * client-node refuses http:// servers unless insecure-skip-tls-verify is set, so it is.
 */
export function insecureKubeconfig(server: string, name = 'kapi'): string {
  return dump({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name, cluster: { server, 'insecure-skip-tls-verify': true } }],
    users: [{ name, user: {} }],
    contexts: [{ name, context: { cluster: name, user: name, namespace: 'default' } }],
    'current-context': name,
    preferences: {},
  });
}
