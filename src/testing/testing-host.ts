import { appendFileSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Socket } from 'node:net';
import path from 'node:path';
import type { EmbeddedEtcd } from '../server/embedded-etcd';
import type { Logger } from '../server/logger';
import type { Instance } from './instance';
import { buildIdentity, clearOwnState, withLock, writeState } from './host-state';
import { onLines, send, type HostRequest, type KapiAddresses, type Reply, type StartRequest } from './host-protocol';

/**
 * The testing host, run detached as `node testing-host.js DIR [embedded]` by the first startKapi()
 * on the machine (host-connection.ts): it owns the shared etcd and runs every process's kapi
 * instances, so a test file loads a small client instead of the server's modules, and a server of
 * the kind it asks for is usually already running (instance-pool.ts). It says `ready <socket>` (or
 * `error <message>`) on stdout once it listens, and retires (stopping etcd and removing its data)
 * once no client has been connected for KAPI_TESTING_ETCD_LINGER_MS.
 */

const dir = process.argv[2];
const lingerMs = Number(process.env.KAPI_TESTING_ETCD_LINGER_MS ?? 5000);
const socketPath = path.join(dir, `host-${process.pid}.sock`);
const log = (message: string): void => appendFileSync(path.join(dir, 'host.log'), `${new Date().toISOString()} ${process.pid} ${message}\n`);

// The server's modules are most of a cold start: they load while etcd starts.
const modules = Promise.all([import('./instance'), import('./instance-pool'), import('./crds'), import('../server/feature-gates')]);

let etcd: Promise<EmbeddedEtcd> | null = null;
let etcdDataDir: string | null = null;
let etcdStarted: EmbeddedEtcd | null = null;

const errorText = (err: unknown): string => (err instanceof Error ? (err.stack ?? err.message) : String(err));

function sharedEtcd(): Promise<EmbeddedEtcd> {
  return (etcd ??= (async () => {
    const { EmbeddedEtcd } = await import('../server/embedded-etcd');
    etcdDataDir = mkdtempSync(path.join(dir, 'etcd-'));
    const started = await EmbeddedEtcd.start({ dataDir: etcdDataDir, progressNotifyInterval: '1s', shortTicks: true });
    log(`etcd ${started.endpoint} in ${etcdDataDir}`);
    etcdStarted = started;
    return started;
  })());
}

async function main(): Promise<void> {
  const [{ Instance: InstanceClass }, { InstancePool }, { loadCrds }, { parseFeatureGates, KNOWN_FEATURE_GATES }] = await modules;
  const pool = new InstancePool((key) => InstanceClass.start(key.etcdEndpoint, parseFeatureGates(key.featureGates), null, key.simulatedNodes));
  /** Each connection's instances, by key prefix. */
  const clients = new Map<Socket, Map<string, Instance>>();

  async function start(socket: Socket, req: StartRequest): Promise<KapiAddresses> {
    const gates = parseFeatureGates(req.featureGates);
    const featureGates = Object.entries(gates)
      .filter(([name, on]) => KNOWN_FEATURE_GATES[name as keyof typeof KNOWN_FEATURE_GATES] !== on)
      .map(([name, on]) => `${name}=${on}`)
      .sort()
      .join(',');
    const crds = req.crds.length === 0 ? [] : loadCrds(req.crds);
    const etcdEndpoint = req.etcd ?? (await sharedEtcd()).endpoint;
    // A caller that wants the log gets a server of its own, started with its logger attached.
    const logger = req.log === null ? null : forwardLog(socket, req.log);
    const use = async (instance: Instance): Promise<KapiAddresses> => {
      const owned = clients.get(socket);
      try {
        // The client may have left while its instance started.
        if (!owned) throw new Error('the client disconnected');
        owned.set(instance.etcdPrefix, instance);
        await instance.installCrds(crds);
        return instance.addresses(req.secure);
      } catch (err) {
        owned?.delete(instance.etcdPrefix);
        await instance.stop().catch(() => undefined);
        throw err;
      }
    };
    const simulatedNodes = req.simulatedNodes ?? 0;
    if (logger) return use(await InstanceClass.start(etcdEndpoint, gates, logger, simulatedNodes));
    return pool.serve({ etcdEndpoint, featureGates, simulatedNodes }, use);
  }

  function forwardLog(socket: Socket, tag: string): Logger {
    return (message, err) => {
      if (!socket.destroyed) send(socket, { log: tag, message, ...(err === undefined ? {} : { error: errorText(err) }) });
    };
  }

  async function stop(socket: Socket, etcdPrefix: string): Promise<null> {
    const instance = clients.get(socket)?.get(etcdPrefix);
    if (!instance) throw new Error(`no instance ${etcdPrefix} was started through this connection`);
    await instance.stop();
    clients.get(socket)?.delete(etcdPrefix);
    return null;
  }

  function handle(socket: Socket, req: HostRequest): Promise<unknown> {
    switch (req.op) {
      case 'hello':
        return Promise.resolve(null);
      case 'etcd':
        return sharedEtcd().then((e) => e.endpoint);
      case 'start':
        return start(socket, req);
      case 'stop':
        return stop(socket, req.etcdPrefix);
    }
  }

  const server = createServer((socket) => {
    clients.set(socket, new Map());
    onLines<HostRequest & { id: number }>(socket, (req) => {
      handle(socket, req).then(
        (result) => reply(socket, { id: req.id, ok: true, result }),
        (err: unknown) => {
          // A failed start leaves nothing behind: its instance, if any, was stopped by start().
          if (req.op === 'start') log(`start failed: ${String(err)}`);
          reply(socket, { id: req.id, ok: false, error: err instanceof Error ? err.message : String(err) });
        },
      );
    });
    socket.on('error', () => undefined);
    socket.on('close', () => {
      const owned = clients.get(socket);
      clients.delete(socket);
      for (const instance of owned?.values() ?? []) instance.stop().catch((err: unknown) => log(`stopping ${instance.etcdPrefix}: ${String(err)}`));
    });
  });
  const reply = (socket: Socket, message: Reply): void => {
    if (!socket.destroyed) send(socket, message);
  };

  rmSync(socketPath, { force: true });
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(socketPath, resolve));
  if (process.argv[3] === 'embedded') await sharedEtcd();
  writeState(dir, { socket: socketPath, hostPid: process.pid, build: buildIdentity() });
  log(`ready on ${socketPath}`);
  process.stdout.write(`ready ${socketPath}\n`);

  let stopping = false;
  const retire = async (why: string): Promise<void> => {
    if (stopping) return;
    stopping = true;
    log(`stopping: ${why}`);
    clearInterval(timer);
    clearOwnState(dir);
    server.close();
    await pool.close();
    await Promise.all([...clients.values()].flatMap((owned) => [...owned.values()].map((i) => i.stop().catch(() => undefined))));
    await (await etcd?.catch(() => null))?.stop();
    if (etcdDataDir) rmSync(etcdDataDir, { recursive: true, force: true });
    rmSync(socketPath, { force: true });
    process.exit(0);
  };
  /** Stops taking clients only if none connected meanwhile: clients connect under the same lock. */
  const retireIfIdle = (): Promise<boolean> =>
    withLock(dir, async () => {
      if (clients.size > 0) return false;
      clearOwnState(dir);
      server.close();
      return true;
    });
  let idleSince: number | null = null;
  const timer = setInterval(() => {
    if (stopping) return;
    if (etcdStarted && !etcdStarted.running) {
      void retire('etcd exited');
      return;
    }
    if (clients.size > 0) {
      idleSince = null;
      return;
    }
    idleSince ??= Date.now();
    if (Date.now() - idleSince < lingerMs) return;
    retireIfIdle().then(
      (idle) => (idle ? retire('no client left') : (idleSince = null)),
      (err: unknown) => log(`cannot retire: ${String(err)}`),
    );
  }, 200);
  for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) process.once(signal, () => void retire(signal));
}

main().catch((err: unknown) => {
  log(`cannot start: ${String(err)}`);
  clearOwnState(dir);
  process.stdout.write(`error ${String((err as Error)?.message ?? err).replace(/\n/g, ' ')}\n`);
  process.exit(1);
});
