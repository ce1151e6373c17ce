import { dump } from 'js-yaml';

/** A kubeconfig for one server on plain HTTP (every request acts as a cluster admin there). */
export function insecureKubeconfig(server: string, name = 'kapi'): string {
  return dump({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name, cluster: { server } }],
    users: [{ name, user: {} }],
    contexts: [{ name, context: { cluster: name, user: name, namespace: 'default' } }],
    'current-context': name,
    preferences: {},
  });
}
