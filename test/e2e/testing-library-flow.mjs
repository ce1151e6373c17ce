// Uses the built package as a user does, by its name ('kapi' resolves to this package through its
// own "exports"): two startKapi() instances in parallel, each seen through client-node. Prints one JSON report.
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { CoreV1Api, CustomObjectsApi, KubeConfig } from '@kubernetes/client-node';
import { Etcd3 } from 'etcd3';
import { startKapi } from 'kapi/testing';

const crds = path.join(path.dirname(fileURLToPath(import.meta.url)), '../fixtures/crds');
const report = {};
const files = [];
const prefixesToCheck = [];
/** Whether kapi's server modules are loaded in this process. */
const serverLoaded = () => Object.keys(createRequire(import.meta.url).cache).some((f) => f.endsWith(path.join('server', 'start-server.js')));

const [a, b] = await Promise.all([startKapi({ crds }), startKapi({ crds: [path.join(crds, 'widgets.yaml')] })]);
report.distinct = { urls: a.url !== b.url, prefixes: a.etcdPrefix !== b.etcdPrefix, etcd: a.etcdEndpoint === b.etcdEndpoint };

async function exercise(kapi, name) {
  const kc = new KubeConfig();
  kc.loadFromString(kapi.kubeconfig);
  const fromFile = new KubeConfig();
  fromFile.loadFromFile(kapi.kubeconfigPath);
  const custom = kc.makeApiClient(CustomObjectsApi);
  await custom.createNamespacedCustomObject({
    group: 'example.com',
    version: 'v1',
    namespace: 'default',
    plural: 'widgets',
    body: { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name }, spec: { size: 3 } },
  });
  const list = await custom.listNamespacedCustomObject({ group: 'example.com', version: 'v1', namespace: 'default', plural: 'widgets' });
  const namespaces = await fromFile.makeApiClient(CoreV1Api).listNamespace();
  return {
    server: kc.getCurrentCluster().server,
    widgets: list.items.map((w) => w.metadata.name),
    namespaces: namespaces.items.map((n) => n.metadata.name).sort(),
  };
}
report.serverLoadedByHostInstances = serverLoaded();
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

// log: the server's own lines, from its start.
const lines = [];
const logged = await startKapi({ log: (message) => lines.push(message) });
await logged.stop();
report.logged = lines.some((l) => l.includes(`kapi serving insecurely on ${logged.url}`));

// inProcess: the server's modules load here, and it is a kapi like the others.
const local = await startKapi({ inProcess: true, crds });
const localWidgets = await fetch(`${local.url}/apis/example.com/v1/namespaces/default/widgets`);
report.inProcess = { serverLoaded: serverLoaded(), widgets: localWidgets.status, etcd: local.etcdEndpoint === a.etcdEndpoint };
files.push(local.kubeconfigPath);
prefixesToCheck.push(local.etcdPrefix);
await local.stop();

files.push(a.kubeconfigPath, b.kubeconfigPath);
const etcdEndpoint = a.etcdEndpoint;
const prefixes = [a.etcdPrefix, b.etcdPrefix, ...prefixesToCheck];
await Promise.all([a.stop(), b.stop()]);
await a.stop();
report.kubeconfigsLeft = files.filter((f) => existsSync(f)).length;
const client = new Etcd3({ hosts: [etcdEndpoint] });
report.keysLeft = 0;
for (const prefix of prefixes) report.keysLeft += Number(await client.getAll().prefix(`${prefix}/`).count());
client.close();
// The package's root exports the same function (and the server: importing it loads those modules).
report.sameFunction = (await import('kapi')).startKapi === startKapi;
// The process must now exit by itself: nothing a stopped kapi started may keep it alive.
report.reportedAt = Date.now();
process.stdout.write(JSON.stringify(report));
