// Uses the built package as a user does, by its name ('kapi' resolves to this package through its
// own "exports"): two startKapi() instances in parallel, each seen through client-node. Prints one JSON report.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { CoreV1Api, CustomObjectsApi, KubeConfig } from '@kubernetes/client-node';
import { Etcd3 } from 'etcd3';
import * as root from 'kapi';
import { startKapi } from 'kapi/testing';

const crds = path.join(path.dirname(fileURLToPath(import.meta.url)), '../fixtures/crds');
const report = { sameFunction: root.startKapi === startKapi };
const files = [];

const [a, b] = await Promise.all([startKapi({ crds }), startKapi({ crds: [path.join(crds, 'widgets.yaml')] })]);
report.distinct = { urls: a.url !== b.url, prefixes: a.etcdPrefix !== b.etcdPrefix, etcd: a.etcdEndpoint === b.etcdEndpoint };

async function exercise(kapi, name) {
  const kc = new KubeConfig();
  kc.loadFromString(kapi.kubeconfig);
  const fromFile = new KubeConfig();
  fromFile.loadFromFile(kapi.kubeconfigPath);
  const custom = kc.makeApiClient(CustomObjectsApi);
  await custom.createNamespacedCustomObject({
    group: 'example.com', version: 'v1', namespace: 'default', plural: 'widgets',
    body: { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name }, spec: { size: 3 } },
  });
  const list = await custom.listNamespacedCustomObject({ group: 'example.com', version: 'v1', namespace: 'default', plural: 'widgets' });
  const namespaces = await fromFile.makeApiClient(CoreV1Api).listNamespace();
  return { server: kc.getCurrentCluster().server, widgets: list.items.map((w) => w.metadata.name), namespaces: namespaces.items.map((n) => n.metadata.name).sort() };
}
report.a = await exercise(a, 'from-a');
report.b = await exercise(b, 'from-b');
report.urls = { a: a.url, b: b.url };

const external = await startKapi({ etcd: a.etcdEndpoint, featureGates: { CBORServingAndStorage: true } });
const cbor = await fetch(`${external.url}/api/v1/namespaces`, { headers: { Accept: 'application/cbor' } });
report.external = { sameEtcd: external.etcdEndpoint === a.etcdEndpoint, cbor: [cbor.status, cbor.headers.get('content-type')] };
await external.stop();
try {
  await startKapi({ featureGates: 'NoSuchGate=true' });
  report.unknownGate = 'started';
} catch (err) {
  report.unknownGate = err.message;
}

// secure: the TLS port and a client-certificate kubeconfig that client-node uses as it is.
const secure = await startKapi({ secure: true });
const skc = new KubeConfig();
skc.loadFromString(secure.kubeconfig);
const secureNamespaces = await skc.makeApiClient(CoreV1Api).listNamespace();
report.secure = {
  scheme: new URL(secure.url).protocol,
  user: skc.getCurrentUser()?.certData ? 'client-certificate' : 'none',
  namespaces: secureNamespaces.items.length,
};
files.push(secure.kubeconfigPath);
await secure.stop();


files.push(a.kubeconfigPath, b.kubeconfigPath);
const etcdEndpoint = a.etcdEndpoint;
const prefixes = [a.etcdPrefix, b.etcdPrefix];
await Promise.all([a.stop(), b.stop()]);
await a.stop();
report.kubeconfigsLeft = files.filter((f) => existsSync(f)).length;
const client = new Etcd3({ hosts: [etcdEndpoint] });
report.keysLeft = 0;
for (const prefix of prefixes) report.keysLeft += Number(await client.getAll().prefix(`${prefix}/`).count());
client.close();
process.stdout.write(JSON.stringify(report));
