import { availableParallelism } from 'node:os';
import { setFlagsFromString } from 'node:v8';

/** A node flag that already says how V8's scavenger runs. */
const SCAVENGE_FLAG = /^--(no-)?parallel[-_]scavenge$/;

/**
 * Whether V8's young-generation collector (the scavenger, which runs every 13 MB or so a create
 * load allocates) should work on the main thread alone: on a machine of two cores or fewer, unless
 * a node flag (on the command line or in NODE_OPTIONS) already says how it runs. Measured under a
 * create load beside etcd and its clients on two cores: with its helper threads a scavenge paused
 * the main thread as long (about 7 ms) and added some 11 ms of CPU on the helpers, time they took
 * from etcd and the clients.
 */
export function scavengesOnOneThread(execArgv: readonly string[], nodeOptions: string, cores: number): boolean {
  const given = [...execArgv, ...nodeOptions.split(/\s+/)].some((arg) => SCAVENGE_FLAG.test(arg.split('=')[0]));
  return !given && cores <= 2;
}

/** For the kapi binary (and the bench's floor server), not the library: a library leaves its host process's V8 flags alone. */
export function tuneScavengerThreads(): void {
  if (scavengesOnOneThread(process.execArgv, process.env.NODE_OPTIONS ?? '', availableParallelism())) setFlagsFromString('--no-parallel-scavenge');
}
