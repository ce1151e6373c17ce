import type { ObjectStore } from '../registry/types';
import type { ServiceAllocation } from '../registry/service-allocation/build';
import { IpRepair } from './ip-repair';
import { PortRepair } from './port-repair';
import type { ControllerLog } from './runtime/informer';
import { PeriodicController } from './runtime/periodic';

/**
 * kube-apiserver's start-service-ip-repair-controllers: the cluster IP and node port repairs, one
 * pass of each at start and then every interval (the leader only: one repairer at a time).
 */
export class ServiceRepairControllers extends PeriodicController {
  readonly name = 'poststarthook/start-service-ip-repair-controllers';
  private readonly ips: IpRepair;
  private readonly ports: PortRepair;

  constructor(services: ObjectStore, addresses: ObjectStore, allocation: ServiceAllocation, intervalMs: number, log: ControllerLog) {
    super(intervalMs, log);
    this.ips = new IpRepair(services, addresses, allocation.ips, log);
    this.ports = new PortRepair(services, allocation.ports, log);
  }

  protected async pass(): Promise<void> {
    await this.ips.pass();
    await this.ports.pass();
  }
}
