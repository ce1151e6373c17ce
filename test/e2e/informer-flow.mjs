// An @kubernetes/client-node informer (list, then watch with bookmarks) kept in sync across many
// writes and a forced 410. Talks to its parent test over stdin/stdout, one JSON line per message.
import { createInterface } from 'node:readline';
import { CoreV1Api, makeInformer } from '@kubernetes/client-node';
import { kubeConfigFor } from './kube-config.mjs';

const [server, namespace, writesArg] = process.argv.slice(2);
const writes = Number(writesArg);
const kc = kubeConfigFor(server);
const core = kc.makeApiClient(CoreV1Api);
const send = (msg) => process.stdout.write(`${JSON.stringify(msg)}\n`);
const lines = createInterface({ input: process.stdin })[Symbol.asyncIterator]();

let lists = 0;
const informer = makeInformer(kc, `/api/v1/namespaces/${namespace}/configmaps`, () => {
  lists++;
  return core.listNamespacedConfigMap({ namespace });
});
// A dropped connection is reported, not retried, by the informer: start it again, as a controller would.
informer.on('error', () => {
  setTimeout(() => informer.start().catch(() => undefined), 200);
});
await informer.start();

const key = (o) => `${o.metadata.name}@${o.metadata.resourceVersion}`;
async function converged(timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  let server = [];
  let local = [];
  while (Date.now() < deadline) {
    server = (await core.listNamespacedConfigMap({ namespace })).items.map(key).sort();
    local = informer.list(namespace).map(key).sort();
    // The count is of the churn's config maps: the root CA publisher's kube-root-ca.crt is there too.
    if (JSON.stringify(server) === JSON.stringify(local)) return { ok: true, count: local.filter((k) => !k.startsWith('kube-root-ca.crt@')).length };
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    ok: false,
    server: server.length,
    local: local.length,
    missing: server.filter((k) => !local.includes(k)).slice(0, 5),
    extra: local.filter((k) => !server.includes(k)).slice(0, 5),
  };
}

async function churn(round, count) {
  const created = [];
  for (let i = 0; i < count; i++) {
    const op = i % 5;
    if (op < 2 || created.length === 0) {
      const name = `r${round}-${i}`;
      await core.createNamespacedConfigMap({ namespace, body: { metadata: { name }, data: { i: String(i) } } });
      created.push(name);
    } else if (op < 4) {
      const name = created[i % created.length];
      const cur = await core.readNamespacedConfigMap({ name, namespace });
      await core.replaceNamespacedConfigMap({ name, namespace, body: { ...cur, data: { i: String(i), op: 'update' } } });
    } else {
      const name = created.shift();
      await core.deleteNamespacedConfigMap({ name, namespace });
    }
  }
}

await churn(1, writes);
send({ phase: 'first', ...(await converged(15000)), lists });
send({ phase: 'restart-now' });
await lines.next();
await churn(2, 100);
send({ phase: 'second', ...(await converged(20000)), lists });
informer.stop();
process.exit(0);
