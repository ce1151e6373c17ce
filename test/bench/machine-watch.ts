import { readFileSync, readdirSync } from 'node:fs';
import { Etcd3Kv } from '../../src/storage/etcd/etcd3-kv';
import { percentile, processStat } from './harness';

/**
 * What else happened on the machine while a bench measured kapi: the CPU used by processes outside
 * the bench's own process tree, how long the disk went busy without finishing a request, etcd's
 * WAL fsyncs, and etcd's own latency for the read the measured request makes. kapi's GET of an
 * object with no resourceVersion is a linearizable etcd read (as kube's is), which cannot be
 * answered while etcd waits for its WAL fsync or for a core: a target missed while these are high
 * is the machine's, not kapi's (session 17 in docs/performance.md).
 */

export interface MachineReport {
  /** Cores used by processes outside this bench's process tree (other sessions' work). */
  otherCores: number;
  /** Cores used by this bench's tree: the load generator, kapi processes, etcd. */
  ownCores: number;
  /** The longest stretch the disk had requests in flight and finished none, ms. */
  diskStallMaxMs: number;
  /** etcd's WAL fsyncs that took longer than 128 ms, and the mean of all of them. */
  walFsyncsOver128Ms: number;
  walFsyncMeanMs: number;
  /** A linearizable get of `key` straight from etcd every 20 ms, on its own client. */
  etcdGetP50Ms: number;
  etcdGetP99Ms: number;
  etcdGetMaxMs: number;
}

const CPU_EVERY_MS = 200;
const DISK_EVERY_MS = 25;
const GET_EVERY_MS = 20;

/** utime + stime (clock ticks) and parent of every process now. */
function processTicks(): Map<number, { ppid: number; ticks: number }> {
  const out = new Map<number, { ppid: number; ticks: number }>();
  for (const name of readdirSync('/proc')) {
    const pid = Number(name);
    if (!Number.isInteger(pid)) continue;
    try {
      out.set(pid, processStat(pid));
    } catch {
      // exited meanwhile
    }
  }
  return out;
}

const DISKS = new Set(readdirSync('/sys/block').filter((d) => !/^(loop|ram|zram)/.test(d)));

/** Completed requests and io_ticks (ms with requests in flight) summed over whole disks. */
function diskCounters(): { done: number; busyMs: number } {
  let done = 0;
  let busyMs = 0;
  for (const line of readFileSync('/proc/diskstats', 'utf8').split('\n')) {
    const f = line.trim().split(/\s+/);
    if (f.length < 14 || !DISKS.has(f[2])) continue;
    done += Number(f[3]) + Number(f[7]);
    busyMs += Number(f[12]);
  }
  return { done, busyMs };
}

async function walFsyncs(etcdUrl: string): Promise<{ count: number; sum: number; under128: number }> {
  const text = await (await fetch(`${etcdUrl}/metrics`)).text();
  const value = (prefix: string): number =>
    Number(
      text
        .split('\n')
        .find((l) => l.startsWith(prefix))
        ?.split(' ')[1] ?? NaN,
    );
  return {
    count: value('etcd_disk_wal_fsync_duration_seconds_count '),
    sum: value('etcd_disk_wal_fsync_duration_seconds_sum '),
    under128: value('etcd_disk_wal_fsync_duration_seconds_bucket{le="0.128"} '),
  };
}

/** Starts watching; `stop` ends it and reports. */
export async function watchMachine(etcdUrl: string, key: string): Promise<{ stop(): Promise<MachineReport> }> {
  const started = performance.now();
  const fsyncsBefore = await walFsyncs(etcdUrl);
  let ownTicks = 0;
  let otherTicks = 0;
  let seen = processTicks();
  const cpuTimer = setInterval(() => {
    const now = processTicks();
    const own = new Set([process.pid]);
    // Descendants of the bench (kapi processes, etcd), whatever the order of their pids.
    for (let grew = true; grew;) {
      grew = false;
      for (const [pid, { ppid }] of now)
        if (!own.has(pid) && own.has(ppid)) {
          own.add(pid);
          grew = true;
        }
    }
    for (const [pid, { ticks }] of now) {
      const delta = ticks - (seen.get(pid)?.ticks ?? ticks);
      if (own.has(pid)) ownTicks += delta;
      else otherTicks += delta;
    }
    seen = now;
  }, CPU_EVERY_MS);

  let disk = diskCounters();
  let stallMs = 0;
  let diskStallMaxMs = 0;
  let diskAt = performance.now();
  const diskTimer = setInterval(() => {
    const now = diskCounters();
    const at = performance.now();
    const busy = now.busyMs - disk.busyMs;
    // Busy the whole interval and nothing finished: the stall goes on.
    if (now.done === disk.done && busy >= 0.8 * (at - diskAt)) stallMs += at - diskAt;
    else stallMs = 0;
    diskStallMaxMs = Math.max(diskStallMaxMs, stallMs);
    disk = now;
    diskAt = at;
  }, DISK_EVERY_MS);

  const kv = new Etcd3Kv({ endpoints: [etcdUrl] });
  const gets: number[] = [];
  let getting = true;
  const getter = (async () => {
    while (getting) {
      const t = performance.now();
      await kv.get(key);
      gets.push(performance.now() - t);
      await new Promise((r) => setTimeout(r, GET_EVERY_MS));
    }
  })();

  return {
    stop: async () => {
      clearInterval(cpuTimer);
      clearInterval(diskTimer);
      getting = false;
      await getter;
      await kv.close();
      const fsyncs = await walFsyncs(etcdUrl);
      const seconds = (performance.now() - started) / 1000;
      gets.sort((a, b) => a - b);
      const count = fsyncs.count - fsyncsBefore.count;
      return {
        otherCores: otherTicks / 100 / seconds,
        ownCores: ownTicks / 100 / seconds,
        diskStallMaxMs,
        walFsyncsOver128Ms: count - (fsyncs.under128 - fsyncsBefore.under128),
        walFsyncMeanMs: count > 0 ? ((fsyncs.sum - fsyncsBefore.sum) * 1000) / count : 0,
        etcdGetP50Ms: percentile(gets, 50),
        etcdGetP99Ms: percentile(gets, 99),
        etcdGetMaxMs: gets.length > 0 ? gets[gets.length - 1] : 0,
      };
    },
  };
}
