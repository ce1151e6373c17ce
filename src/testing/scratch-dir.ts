import { accessSync, constants, statSync } from 'node:fs';
import { tmpdir } from 'node:os';

const SHM = '/dev/shm';

/**
 * Where a throwaway etcd keeps its data: Linux's /dev/shm when it is a writable directory, since
 * etcd syncs its log to disk on every write and tests and startKapi() need no durability past the
 * machine's uptime (on a disk a sync costs about a millisecond; on tmpfs, microseconds); else the
 * OS's temporary directory.
 */
export function scratchDir(): string {
  try {
    if (!statSync(SHM).isDirectory()) return tmpdir();
    accessSync(SHM, constants.W_OK);
    return SHM;
  } catch {
    return tmpdir();
  }
}
