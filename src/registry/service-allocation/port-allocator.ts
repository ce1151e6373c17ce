import { randomInt } from 'node:crypto';
import type { KubeObject } from '../../api/types';
import type { Storage } from '../../storage/interfaces';
import { isStorageError } from '../../storage/storage-error';
import { nowTimestamp } from '../time';

/** portallocator's errors, with its messages. */
export class PortAllocationError extends Error {
  static allocated = (): PortAllocationError => new PortAllocationError('provided port is already allocated');
  static full = (): PortAllocationError => new PortAllocationError('range is full');
  static notInRange = (range: PortRange): PortAllocationError =>
    new PortAllocationError(`provided port is not in the valid range. The range of valid ports is ${formatPortRange(range)}`);
}

/** --service-node-port-range: base and size, as utilnet.PortRange. */
export interface PortRange {
  base: number;
  size: number;
}

export function parsePortRange(text: string): PortRange | null {
  const m = /^\s*(\d+)\s*(?:[-+]\s*(\d+))?\s*$/.exec(text);
  if (!m) return null;
  const low = Number(m[1]);
  const high = m[2] === undefined ? low : text.includes('+') ? low + Number(m[2]) : Number(m[2]);
  if (low < 0 || high > 65535 || high < low) return null;
  return { base: low, size: high - low + 1 };
}

export function formatPortRange(range: PortRange): string {
  return `${range.base}-${range.base + range.size - 1}`;
}

/** calculateRangeOffset of the port allocator: min(max(16, size/32), 128), 0 below 16 ports. */
function staticBand(size: number): number {
  if (size < 16) return 0;
  return Math.min(Math.max(16, Math.floor(size / 32)), 128);
}

/**
 * The allocation bitmap kube keeps at /registry/services/nodeports: a RangeAllocation whose data
 * is the big-endian bytes of a big integer with bit i set when port base+i is taken.
 */
export class PortBitmap {
  private constructor(
    readonly range: PortRange,
    private readonly bits: Uint8Array,
  ) {}

  static empty(range: PortRange): PortBitmap {
    return new PortBitmap(range, new Uint8Array(Math.ceil(range.size / 8)));
  }

  /** Reads a stored RangeAllocation; ports outside this range (a changed flag) are dropped. */
  static read(stored: KubeObject | null, range: PortRange): PortBitmap {
    const bitmap = PortBitmap.empty(range);
    const data = typeof stored?.data === 'string' ? Buffer.from(stored.data, 'base64') : Buffer.alloc(0);
    const old = typeof stored?.range === 'string' ? parsePortRange(stored.range) : null;
    if (!old) return bitmap;
    for (let i = 0; i < data.length * 8; i++) {
      const byte = data[data.length - 1 - (i >> 3)];
      if (byte & (1 << (i & 7))) bitmap.set(old.base + i, true);
    }
    return bitmap;
  }

  contains(port: number): boolean {
    return port >= this.range.base && port < this.range.base + this.range.size;
  }

  has(port: number): boolean {
    if (!this.contains(port)) return false;
    const i = port - this.range.base;
    return (this.bits[this.bits.length - 1 - (i >> 3)] & (1 << (i & 7))) !== 0;
  }

  set(port: number, taken: boolean): void {
    if (!this.contains(port)) return;
    const i = port - this.range.base;
    const at = this.bits.length - 1 - (i >> 3);
    this.bits[at] = taken ? this.bits[at] | (1 << (i & 7)) : this.bits[at] & ~(1 << (i & 7));
  }

  /** Every taken port. */
  ports(): number[] {
    const out: number[] = [];
    for (let p = this.range.base; p < this.range.base + this.range.size; p++) if (this.has(p)) out.push(p);
    return out;
  }

  /** A free port, the upper band first from a random place, then the static band; null when full. */
  next(): number | null {
    const band = staticBand(this.range.size);
    const dynamic = this.range.size - band;
    const start = dynamic > 0 ? randomInt(dynamic) : 0;
    for (let i = 0; i < this.range.size; i++) {
      const offset = i < dynamic ? band + ((start + i) % dynamic) : i - dynamic;
      const port = this.range.base + offset;
      if (!this.has(port)) return port;
    }
    return null;
  }

  toObject(previous: KubeObject | null): KubeObject {
    let first = 0;
    while (first < this.bits.length && this.bits[first] === 0) first++;
    return {
      kind: 'RangeAllocation',
      apiVersion: 'v1',
      metadata: previous?.metadata ?? { creationTimestamp: nowTimestamp() },
      range: formatPortRange(this.range),
      data: Buffer.from(this.bits.subarray(first)).toString('base64'),
    };
  }
}

type PortOp =
  { kind: 'allocate'; port: number } | { kind: 'next' } | { kind: 'release'; port: number } | { kind: 'repair'; used: Set<number>; free: Set<number> };

interface Pending {
  op: PortOp;
  resolve(port: number): void;
  reject(err: unknown): void;
}

/**
 * Node ports from --service-node-port-range, kept in one etcd key as kube does, changed only by
 * updates guarded by the key's revision: two replicas racing for a port cannot both win. A
 * replica's concurrent requests are batched into one guarded update, so the key sees at most
 * one writer per replica at a time.
 */
export class NodePortAllocator {
  private queue: Pending[] = [];
  private running = false;

  constructor(
    private readonly storage: Storage,
    private readonly key: string,
    readonly range: PortRange,
  ) {}

  allocate(port: number, dryRun: boolean): Promise<void> {
    if (port < this.range.base || port >= this.range.base + this.range.size) return Promise.reject(PortAllocationError.notInRange(this.range));
    if (dryRun) return this.read().then((b) => (b.has(port) ? Promise.reject(PortAllocationError.allocated()) : undefined));
    return this.submit({ kind: 'allocate', port }).then(() => undefined);
  }

  allocateNext(dryRun: boolean): Promise<number> {
    if (dryRun) return this.read().then((b) => b.next() ?? Promise.reject(PortAllocationError.full()));
    return this.submit({ kind: 'next' });
  }

  async release(ports: number[]): Promise<void> {
    await Promise.all(ports.filter((p) => p > 0).map((port) => this.submit({ kind: 'release', port })));
  }

  /** The repair controller's one write: `used` set, `free` cleared (leaks seen long enough). */
  async repair(used: Set<number>, free: Set<number>): Promise<void> {
    await this.submit({ kind: 'repair', used, free });
  }

  async read(): Promise<PortBitmap> {
    try {
      return PortBitmap.read(await this.storage.get(this.key, { resourceVersion: '', match: '' }), this.range);
    } catch (err) {
      if (isStorageError(err, 'KeyNotFound')) return PortBitmap.empty(this.range);
      throw err;
    }
  }

  private submit(op: PortOp): Promise<number> {
    return new Promise((resolve, reject) => {
      this.queue.push({ op, resolve, reject });
      if (!this.running) void this.drain();
    });
  }

  private async drain(): Promise<void> {
    this.running = true;
    while (this.queue.length > 0) {
      const batch = this.queue;
      this.queue = [];
      let outcomes: ({ port: number } | { error: unknown })[] = [];
      try {
        await this.storage.guaranteedUpdate(
          this.key,
          async (current) => {
            const bitmap = PortBitmap.read(current, this.range);
            outcomes = batch.map(({ op }) => apply(bitmap, op, this.range));
            return bitmap.toObject(current);
          },
          { ignoreNotFound: true },
        );
      } catch (err) {
        outcomes = batch.map(() => ({ error: err }));
      }
      batch.forEach((p, i) => {
        const outcome = outcomes[i];
        if ('error' in outcome) p.reject(outcome.error);
        else p.resolve(outcome.port);
      });
    }
    this.running = false;
  }
}

function apply(bitmap: PortBitmap, op: PortOp, range: PortRange): { port: number } | { error: unknown } {
  switch (op.kind) {
    case 'allocate':
      if (!bitmap.contains(op.port)) return { error: PortAllocationError.notInRange(range) };
      if (bitmap.has(op.port)) return { error: PortAllocationError.allocated() };
      bitmap.set(op.port, true);
      return { port: op.port };
    case 'next': {
      const port = bitmap.next();
      if (port === null) return { error: PortAllocationError.full() };
      bitmap.set(port, true);
      return { port };
    }
    case 'release':
      bitmap.set(op.port, false);
      return { port: op.port };
    case 'repair':
      for (const port of op.used) bitmap.set(port, true);
      for (const port of op.free) if (!op.used.has(port)) bitmap.set(port, false);
      return { port: 0 };
  }
}
