import type { KubeObject } from '../api/types';
import { informerAndQueueProblem, type Controller } from '../controllers/runtime/controller';
import type { CachedInformer } from '../controllers/runtime/informer';
import type { SharedInformers } from '../controllers/runtime/shared-informers';
import type { GenericStore } from '../registry/generic-store';
import { apiServiceView, type ApiServiceView } from '../resources/apiservices';

/**
 * Every replica's view of the APIServices (the aggregator's apiservice informer): which
 * group-versions are proxied, to where, and whether they are available. Listeners hear of every
 * change. A view of the process's shared informer of APIServices.
 */
export class ApiServiceIndex implements Controller {
  readonly name = 'poststarthook/apiservice-registration-controller';
  private readonly informer: CachedInformer;
  private readonly listeners: ((name: string) => void)[] = [];

  constructor(apiServices: GenericStore, informers: SharedInformers) {
    const changed = (obj: KubeObject): void => {
      for (const listener of this.listeners) listener(obj.metadata.name ?? '');
    };
    this.informer = informers.informer(apiServices, { added: changed, updated: (_, obj) => changed(obj), deleted: changed }, { name: 'apiservices' });
  }

  onChange(listener: (name: string) => void): void {
    this.listeners.push(listener);
  }

  async start(): Promise<void> {
    this.informer.start();
    await this.informer.waitForSync();
  }

  stop(): void {
    this.informer.stop();
  }

  problem(): string | null {
    return informerAndQueueProblem([this.informer], null);
  }

  all(): ApiServiceView[] {
    return this.informer.list().map(apiServiceView);
  }

  get(name: string): ApiServiceView | null {
    const obj = this.informer.get(name);
    return obj ? apiServiceView(obj) : null;
  }

  /** The APIService of a group-version served by an extension server, or null (kapi's own, or none). */
  remote(group: string, version: string): ApiServiceView | null {
    const view = this.get(`${version}.${group}`);
    return view?.service ? view : null;
  }
}
