import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import path from 'node:path';
import { Api } from '../harness/http';
import { startServerProcess, type ServerProcess } from '../harness/process';
import { RawEtcd } from '../harness/etcd-keys';
import { uniquePrefix } from '../harness/shared-etcd';

test('a client-node informer stays in sync across 1000 writes and a forced 410', async () => {
  let kapi: ServerProcess & { port: number; prefix: string } = await startServerProcess();
  const api = new Api(kapi.url);
  await api.post('/api/v1/namespaces', { metadata: { name: 'informer' } });
  const flow = spawn(process.execPath, [path.join(__dirname, 'informer-flow.mjs'), kapi.url, 'informer', '1000'], { stdio: ['pipe', 'pipe', 'inherit'] });
  const messages = createInterface({ input: flow.stdout })[Symbol.asyncIterator]();
  const next = async (): Promise<any> => JSON.parse((await messages.next()).value as string);
  try {
    // One list at start, then only watch events for every write.
    expect(await next()).toEqual({ phase: 'first', ok: true, count: 200, lists: 1 });
    expect(await next()).toEqual({ phase: 'restart-now' });
    // Restart kapi on the same port after etcd moved on: the informer's resourceVersion is now older
    // than anything the new server's watch cache holds, so its re-watch gets 410 and it must relist.
    await kapi.stop();
    // A write under another prefix moves etcd's revision on without starting a second server.
    const etcd = new RawEtcd();
    const elsewhere = `${uniquePrefix('informer-elsewhere')}/moves-etcd-on`;
    try {
      await etcd.put(elsewhere, 'x');
      await etcd.delete(elsewhere);
    } finally {
      etcd.close();
    }
    kapi = await startServerProcess([], { port: kapi.port, prefix: kapi.prefix });
    flow.stdin.write('go\n');
    // The second list is the relist that the 410 forced.
    expect(await next()).toEqual({ phase: 'second', ok: true, count: 220, lists: 2 });
  } finally {
    flow.kill();
    await kapi.stop();
  }
});
