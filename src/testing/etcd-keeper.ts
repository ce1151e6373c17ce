import { appendFileSync, mkdtempSync, readdirSync, renameSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { EmbeddedEtcd } from '../server/embedded-etcd';
import { isAlive, readState, refsDir, stateFile, withLock } from './shared-etcd';

/**
 * The keeper of the shared etcd (see shared-etcd.ts), run detached as `node etcd-keeper.js DIR`:
 * starts etcd in a fresh data directory, says `ready <endpoint>` on stdout, then stops etcd and
 * removes its data once no live process has held a reference for KAPI_TESTING_ETCD_LINGER_MS.
 */

const dir = process.argv[2];
const lingerMs = Number(process.env.KAPI_TESTING_ETCD_LINGER_MS ?? 5000);
const log = (message: string): void => appendFileSync(path.join(dir, 'keeper.log'), `${new Date().toISOString()} ${process.pid} ${message}\n`);

/** Live references; those of processes that died are removed. */
function liveRefs(): number {
  let live = 0;
  for (const name of readdirSync(refsDir(dir))) {
    if (isAlive(Number(name.split('-')[0]))) live++;
    else rmSync(path.join(refsDir(dir), name), { force: true });
  }
  return live;
}

async function main(): Promise<void> {
  const dataDir = mkdtempSync(path.join(dir, 'etcd-'));
  let etcd: EmbeddedEtcd;
  try {
    etcd = await EmbeddedEtcd.start({ dataDir, progressNotifyInterval: '1s' });
  } catch (err) {
    rmSync(dataDir, { recursive: true, force: true });
    process.stdout.write(`error ${(err as Error).message.replace(/\n/g, ' ')}\n`);
    process.exit(1);
  }
  const tmp = `${stateFile(dir)}.${process.pid}`;
  writeFileSync(tmp, JSON.stringify({ endpoint: etcd.endpoint, keeperPid: process.pid }));
  renameSync(tmp, stateFile(dir));
  log(`etcd ${etcd.endpoint} in ${dataDir}`);
  process.stdout.write(`ready ${etcd.endpoint}\n`);

  let stopping = false;
  const stop = async (why: string): Promise<void> => {
    if (stopping) return;
    stopping = true;
    log(`stopping: ${why}`);
    clearInterval(timer);
    await etcd.stop();
    rmSync(dataDir, { recursive: true, force: true });
    process.exit(0);
  };
  /** Gives up the state file only if it is still ours and nobody took a reference meanwhile. */
  const retireIfIdle = (): Promise<boolean> =>
    withLock(dir, async () => {
      if (liveRefs() > 0) return false;
      if (readState(dir)?.keeperPid === process.pid) unlinkSync(stateFile(dir));
      return true;
    });
  let idleSince: number | null = null;
  const timer = setInterval(() => {
    if (stopping) return;
    if (!etcd.running) {
      if (readState(dir)?.keeperPid === process.pid) rmSync(stateFile(dir), { force: true });
      void stop('etcd exited');
      return;
    }
    if (liveRefs() > 0) {
      idleSince = null;
      return;
    }
    idleSince ??= Date.now();
    if (Date.now() - idleSince < lingerMs) return;
    retireIfIdle().then(
      (idle) => (idle ? stop('no references left') : (idleSince = null)),
      (err: unknown) => log(`cannot retire: ${String(err)}`),
    );
  }, 200);
  for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) {
    process.once(signal, () => {
      if (readState(dir)?.keeperPid === process.pid) rmSync(stateFile(dir), { force: true });
      void stop(signal);
    });
  }
}

void main();
