// client-node against an aggregated group-version: a custom object read and listed through kapi's
// proxy, with the kubeconfig file given (TLS, the admin's client certificate).
import { CustomObjectsApi, KubeConfig } from '@kubernetes/client-node';

const [kubeconfig, group, version] = process.argv.slice(2);
const kc = new KubeConfig();
kc.loadFromFile(kubeconfig);
const custom = kc.makeApiClient(CustomObjectsApi);
const read = await custom.getNamespacedCustomObject({ group, version, namespace: 'default', plural: 'flunders', name: 'from-kubectl' });
const list = await custom.listNamespacedCustomObject({ group, version, namespace: 'default', plural: 'flunders' });
process.stdout.write(JSON.stringify({ read, listed: list.items.map((i) => i.metadata.name) }));
