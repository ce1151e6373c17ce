// Drives kapi with @kubernetes/client-node (an ES module, hence its own process); prints one JSON report.
import { ApiextensionsV1Api, AppsV1Api, CoreV1Api, CustomObjectsApi } from '@kubernetes/client-node';
import { kubeConfigFor } from './kube-config.mjs';

const server = process.argv[2];
const kc = kubeConfigFor(server);
const core = kc.makeApiClient(CoreV1Api);
const apps = kc.makeApiClient(AppsV1Api);
const extensions = kc.makeApiClient(ApiextensionsV1Api);
const custom = kc.makeApiClient(CustomObjectsApi);
const namespace = 'client-node';

async function failure(promise) {
  try {
    await promise;
    return null;
  } catch (err) {
    return { code: err.code, body: typeof err.body === 'string' ? JSON.parse(err.body) : err.body };
  }
}

const report = {};
await core.createNamespace({ body: { metadata: { name: namespace } } });
const created = await core.createNamespacedConfigMap({ namespace, body: { metadata: { name: 'settings' }, data: { mode: 'fast' } } });
report.created = { name: created.metadata.name, uid: created.metadata.uid, resourceVersion: created.metadata.resourceVersion };
const read = await core.readNamespacedConfigMap({ name: 'settings', namespace });
report.read = { data: read.data, resourceVersion: read.metadata.resourceVersion };
const list = await core.listNamespacedConfigMap({ namespace });
// The root CA publisher's kube-root-ca.crt is in every namespace, at some moment after its creation.
const own = list.items.filter((i) => i.metadata.name !== 'kube-root-ca.crt');
report.list = { kind: list.kind, names: own.map((i) => i.metadata.name), resourceVersion: list.metadata.resourceVersion };
const replaced = await core.replaceNamespacedConfigMap({ name: 'settings', namespace, body: { ...read, data: { mode: 'safe' } } });
report.replaced = { data: replaced.data, resourceVersion: replaced.metadata.resourceVersion };
report.conflict = await failure(core.replaceNamespacedConfigMap({ name: 'settings', namespace, body: { ...read, data: { mode: 'stale' } } }));
report.duplicate = await failure(core.createNamespacedConfigMap({ namespace, body: { metadata: { name: 'settings' } } }));
const deployment = await apps.createNamespacedDeployment({
  namespace,
  body: {
    metadata: { name: 'api' },
    spec: {
      replicas: 2,
      selector: { matchLabels: { app: 'api' } },
      template: { metadata: { labels: { app: 'api' } }, spec: { containers: [{ name: 'api', image: 'nginx:1.27' }] } },
    },
  },
});
report.deployment = { generation: deployment.metadata.generation, replicas: deployment.spec.replicas, strategy: deployment.spec.strategy.type };
await core.deleteNamespacedConfigMap({ name: 'settings', namespace });
report.afterDelete = await failure(core.readNamespacedConfigMap({ name: 'settings', namespace }));

// A CRD, then its custom objects through CustomObjectsApi (client-node names the schema's "default" _default).
await extensions.createCustomResourceDefinition({
  body: {
    metadata: { name: 'gadgets.example.com' },
    spec: {
      group: 'example.com',
      scope: 'Namespaced',
      names: { plural: 'gadgets', kind: 'Gadget' },
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { level: { type: 'integer', _default: 1 } } } } } },
        },
      ],
    },
  },
});
for (let i = 0; ; i++) {
  const crd = await extensions.readCustomResourceDefinition({ name: 'gadgets.example.com' });
  if ((crd.status?.conditions ?? []).some((c) => c.type === 'Established' && c.status === 'True')) break;
  if (i > 100) throw new Error('CRD not established');
  await new Promise((r) => setTimeout(r, 100));
}
const gadget = { group: 'example.com', version: 'v1', namespace, plural: 'gadgets' };
const made = await custom.createNamespacedCustomObject({
  ...gadget,
  body: { apiVersion: 'example.com/v1', kind: 'Gadget', metadata: { name: 'g1' }, spec: {} },
});
const gadgets = await custom.listNamespacedCustomObject(gadget);
report.custom = {
  level: made.spec.level,
  listed: gadgets.items.map((i) => i.metadata.name),
  listKind: gadgets.kind,
  invalid: await failure(
    custom.createNamespacedCustomObject({
      ...gadget,
      body: { apiVersion: 'example.com/v1', kind: 'Gadget', metadata: { name: 'g2' }, spec: { level: 'high' } },
    }),
  ),
};
process.stdout.write(JSON.stringify(report));
