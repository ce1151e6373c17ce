import { isStatusError } from '../api/errors';
import type { KubeObject } from '../api/types';
import type { GenericStore } from '../registry/generic-store';
import type { ResourceRegistry } from '../registry/resource-registry';
import { everything } from '../storage/interfaces';
import { NAMESPACE_FINALIZER, namespaceFinalizers } from '../resources/namespaces';

export interface ControllerLog {
  (message: string, err?: unknown): void;
}

const RETRY_MS = 1000;

/**
 * Empties terminating namespaces, then removes the "kubernetes" finalizer so that they go away.
 * Everything it knows comes from etcd (a list, then a watch), so it resumes after a restart.
 */
export class NamespaceController {
  private stopped = false;
  private readonly pending = new Set<string>();
  private timer: NodeJS.Timeout | null = null;
  private stopWatch: (() => void) | null = null;

  constructor(
    private readonly registry: ResourceRegistry,
    private readonly namespaces: GenericStore,
    private readonly log: ControllerLog,
  ) {}

  async start(): Promise<void> {
    const channel = await this.namespaces.watch('', { resourceVersion: '', predicate: everything });
    this.stopWatch = () => channel.close();
    void (async () => {
      try {
        for await (const item of channel) {
          if (item.type === 'ADDED' || item.type === 'MODIFIED') this.observe(item.object);
        }
      } catch (err) {
        if (!this.stopped) {
          this.log('namespace controller watch ended; restarting', err);
          setTimeout(() => void this.start().catch((e) => this.log('namespace controller restart failed', e)), RETRY_MS);
        }
      }
    })();
  }

  stop(): void {
    this.stopped = true;
    this.stopWatch?.();
    if (this.timer) clearTimeout(this.timer);
  }

  private observe(ns: KubeObject): void {
    if (ns.metadata.deletionTimestamp && namespaceFinalizers(ns).includes(NAMESPACE_FINALIZER)) {
      this.pending.add(ns.metadata.name!);
      this.schedule(0);
    }
  }

  private schedule(delayMs: number): void {
    if (this.timer || this.stopped) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.drain();
    }, delayMs);
  }

  private async drain(): Promise<void> {
    for (const name of [...this.pending]) {
      if (this.stopped) return;
      try {
        if (await this.finalize(name)) this.pending.delete(name);
      } catch (err) {
        this.log(`namespace controller: finalizing ${name} failed`, err);
      }
    }
    if (this.pending.size > 0) this.schedule(RETRY_MS);
  }

  private namespacedStores(): GenericStore[] {
    return this.registry.all().filter((s) => s.def.namespaced && s.def.verbs.includes('delete'));
  }

  /** Deletes what is left in the namespace; true once it is empty and finalized. */
  private async finalize(name: string): Promise<boolean> {
    let remaining = 0;
    for (const store of this.namespacedStores()) {
      const list = await store.list(name, { resourceVersion: '', match: '', predicate: everything });
      for (const item of list.items) {
        remaining++;
        if (item.metadata.deletionTimestamp) continue;
        try {
          await store.delete(name, item.metadata.name!, { dryRun: false });
        } catch (err) {
          if (!(isStatusError(err) && err.code === 404)) throw err;
        }
      }
    }
    if (remaining > 0) return false;
    try {
      await this.namespaces.update(
        '',
        name,
        (ns) => {
          const spec = (ns.spec ?? {}) as { finalizers?: string[] };
          ns.spec = { ...spec, finalizers: (spec.finalizers ?? []).filter((f) => f !== NAMESPACE_FINALIZER) };
          return ns;
        },
        { dryRun: false, subresource: 'finalize' },
      );
    } catch (err) {
      if (!(isStatusError(err) && err.code === 404)) throw err;
    }
    return true;
  }
}
