import type { KubeObject } from '../../api/types';
import type { Pod, Service } from '../../generated/types/core/v1';
import { QueueController } from '../runtime/controller';
import type { ControllerDeps } from '../runtime/controller-deps';
import { type CachedInformer, objectKey } from '../runtime/informer';
import { WorkQueue } from '../work-queue';
import { selectsPods, serviceSelects } from './pod-endpoints';

const RETRY_MS = 1000;

/**
 * What the endpoints and endpointslice controllers share: a queue of service keys, fed by the
 * services themselves and by every pod change, for the services whose selector matches the pod's
 * labels before or after it (endpointsliceutil.GetServicesToUpdateOnPodChange).
 */
export abstract class ServicePodsController extends QueueController {
  protected readonly queue: WorkQueue;
  protected readonly services: CachedInformer;
  protected readonly pods: CachedInformer;

  constructor(protected readonly deps: ControllerDeps) {
    super();
    this.queue = new WorkQueue(
      (key) => this.sync(key),
      (key, err) => deps.log(`${this.name}: service ${key} failed`, err),
      RETRY_MS,
      deps.clock,
    );
    const enqueue = (obj: KubeObject): void => this.queue.add(objectKey(obj));
    this.services = deps.informers.informer(
      deps.store('', 'v1', 'services'),
      { added: enqueue, updated: (_, s) => enqueue(s), deleted: enqueue },
      { name: 'services' },
    );
    const podChanged = (...versions: Pod[]): void => {
      for (const service of this.services.list() as Service[]) {
        if (selectsPods(service) && versions.some((pod) => serviceSelects(service, pod))) enqueue(service);
      }
    };
    this.pods = deps.informers.informer(
      deps.store('', 'v1', 'pods'),
      { added: (pod) => podChanged(pod), updated: (old, pod) => podChanged(old, pod), deleted: (pod) => podChanged(pod) },
      { name: 'pods' },
    );
  }

  /** Resolves true once the service's objects are as they should be. */
  protected abstract sync(key: string): Promise<boolean>;

  protected podsSelectedBy(service: Service): Pod[] {
    return (this.pods.list() as Pod[]).filter((pod) => serviceSelects(service, pod));
  }
}
