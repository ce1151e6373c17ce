import { isStatusError } from '../api/errors';
import { objectOf, objectsIn } from '../api/json-read';
import type { KubeObject } from '../api/types';
import type { PemPair } from '../auth/certificates';
import { QueueController } from '../controllers/runtime/controller';
import type { CachedInformer } from '../controllers/runtime/informer';
import type { SharedInformers } from '../controllers/runtime/shared-informers';
import { WorkQueue } from '../controllers/work-queue';
import type { GenericStore } from '../registry/generic-store';
import { systemContext, SERVER_OWN_WRITE } from '../registry/request-context';
import { nowTimestamp } from '../registry/time';
import type { ApiServiceView } from '../resources/apiservices';
import type { Logger } from '../server/logger';
import { backendGet, resolveBackend, type ResolveService } from './backend';
import type { ApiServiceIndex } from './apiservice-index';

export interface Availability {
  status: 'True' | 'False';
  reason: string;
  message: string;
}

/** How long the discovery check waits for the backend (the availability controller's 5 s). */
const CHECK_TIMEOUT_MS = 5000;

/** The reason and message of a Service that cannot be resolved to an endpoint, by what the resolver says. */
function unresolved(view: ApiServiceView, err: unknown): Availability {
  const { namespace, name, port } = view.service!;
  const text = err instanceof Error ? err.message : String(err);
  if (text.includes('not found') && text.startsWith('service'))
    return { status: 'False', reason: 'ServiceNotFound', message: `service/${name} in "${namespace}" is not present` };
  if (text.startsWith('no service port'))
    return { status: 'False', reason: 'ServicePortError', message: `service/${name} in "${namespace}" is not listening on port ${port}` };
  return { status: 'False', reason: 'MissingEndpoints', message: `endpoints for service/${name} in "${namespace}" have no addresses with port ${port}` };
}

/**
 * What available_controller.go's sync decides: a local APIService is always available; a remote
 * one needs its Service, an endpoint, and a 2xx answer to GET /apis/<group>/<version> from it.
 */
export async function checkAvailability(view: ApiServiceView, resolve: ResolveService, clientCert: PemPair | null): Promise<Availability> {
  if (!view.service) return { status: 'True', reason: 'Local', message: 'Local APIServices are always available' };
  let backend;
  try {
    backend = await resolveBackend(view, resolve, clientCert);
  } catch (err) {
    return unresolved(view, err);
  }
  const url = `https://${backend.host}:${backend.port}/apis/${view.group}/${view.version}`;
  try {
    const answer = await backendGet(backend, `/apis/${view.group}/${view.version}`, 'application/json', CHECK_TIMEOUT_MS);
    if (answer.status < 200 || answer.status >= 300) {
      return { status: 'False', reason: 'FailedDiscoveryCheck', message: `failing or missing response from ${url}: bad status from ${url}: ${answer.status}` };
    }
  } catch (err) {
    return { status: 'False', reason: 'FailedDiscoveryCheck', message: `failing or missing response from ${url}: ${(err as Error).message}` };
  }
  return { status: 'True', reason: 'Passed', message: 'all checks passed' };
}

/** The APIService with its Available condition set; lastTransitionTime moves only when the status does. */
function withAvailability(obj: KubeObject, a: Availability): KubeObject {
  const status = objectOf(obj.status);
  const conditions = objectsIn(status.conditions);
  const old = conditions.find((c) => c.type === 'Available');
  const condition = {
    type: 'Available',
    status: a.status,
    lastTransitionTime: old && old.status === a.status ? old.lastTransitionTime : nowTimestamp(),
    reason: a.reason,
    message: a.message,
  };
  obj.status = { ...status, conditions: [...conditions.filter((c) => c.type !== 'Available'), condition] };
  return obj;
}

/** The stores whose changes make an APIService's availability worth checking again: its Service and that Service's endpoints. */
export interface ServiceStores {
  services: GenericStore;
  endpoints: GenericStore;
  endpointSlices: GenericStore;
}

/**
 * kube-aggregator's AvailableConditionController (leader only): keeps every APIService's
 * Available condition, on each change of an APIService, of a Service or of its endpoints
 * (Endpoints, EndpointSlices), and every `resyncMs` (which notices backends that changed).
 */
export class AvailabilityController extends QueueController {
  readonly name = 'poststarthook/apiservice-status-available-controller';
  protected readonly queue: WorkQueue;
  protected readonly informers: CachedInformer[];
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly index: ApiServiceIndex,
    private readonly apiServices: GenericStore,
    serviceStores: ServiceStores,
    private readonly resolve: ResolveService,
    private readonly clientCert: PemPair | null,
    private readonly resyncMs: number,
    private readonly log: Logger,
    informers: SharedInformers,
  ) {
    super();
    this.queue = new WorkQueue(
      (name) => this.sync(name),
      (name, err) => this.log(`apiservice availability: ${name} failed`, err),
    );
    index.onChange((name) => this.queue.add(name));
    const byName = (obj: KubeObject): void => this.enqueueFor(obj.metadata.namespace ?? '', obj.metadata.name ?? '');
    const bySlice = (obj: KubeObject): void => this.enqueueFor(obj.metadata.namespace ?? '', obj.metadata.labels?.['kubernetes.io/service-name'] ?? '');
    // Views of the shared informers the endpoints and endpointslice controllers read too.
    const watch = (store: GenericStore, name: string, handler: (obj: KubeObject) => void): CachedInformer =>
      informers.informer(store, { added: handler, updated: (_, obj) => handler(obj), deleted: handler }, { name });
    this.informers = [
      watch(serviceStores.services, 'services', byName),
      watch(serviceStores.endpoints, 'endpoints', byName),
      watch(serviceStores.endpointSlices, 'endpointslices', bySlice),
    ];
  }

  /** The APIServices that name a Service: each is checked again. */
  private enqueueFor(namespace: string, name: string): void {
    for (const view of this.index.all()) {
      if (view.service?.namespace === namespace && view.service.name === name) this.queue.add(view.name);
    }
  }

  /** Every APIService now and each resync period (which notices backends that changed). */
  protected override synced(): void {
    const all = (): void => {
      for (const view of this.index.all()) this.queue.add(view.name);
    };
    all();
    this.timer = setInterval(all, this.resyncMs);
    this.timer.unref();
  }

  override stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    super.stop();
  }

  private async sync(name: string): Promise<boolean> {
    const view = this.index.get(name);
    if (!view) return true;
    const availability = await checkAvailability(view, this.resolve, this.clientCert);
    const current = view.available;
    if (current && current.status === availability.status && current.reason === availability.reason && current.message === availability.message) return true;
    try {
      await this.apiServices.update(
        systemContext({ namespace: '', name, subresource: 'status' }, SERVER_OWN_WRITE),
        name,
        (obj) => withAvailability(obj, availability),
        {
          dryRun: false,
        },
      );
    } catch (err) {
      if (isStatusError(err) && (err.code === 404 || err.code === 409)) return err.code === 404;
      throw err;
    }
    return true;
  }
}
