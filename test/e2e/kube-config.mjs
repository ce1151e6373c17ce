// A client-node KubeConfig for a kapi at `server`: one cluster, an anonymous admin (the insecure port).
import { KubeConfig } from '@kubernetes/client-node';

export function kubeConfigFor(server) {
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: 'kapi', server, skipTLSVerify: true }],
    users: [{ name: 'admin' }],
    contexts: [{ name: 'kapi', cluster: 'kapi', user: 'admin' }],
    currentContext: 'kapi',
  });
  return kc;
}
