import type { ObjectStore } from '../registry/types';
import type { NodePortAllocator } from '../registry/service-allocation/port-allocator';
import { nodePortsOf } from '../registry/service-allocation/service-allocator';
import { everything } from '../storage/interfaces';
import type { ControllerLog } from './runtime/informer';
import { REPAIRS_BEFORE_LEAK_CLEANUP } from './ip-repair';
import { SYSTEM_READ_ALL } from '../registry/request-context';

/**
 * kube's NodePort repair controller (portallocator/controller.Repair): the allocation bitmap is
 * rebuilt from the Services, every port a Service holds marked taken; a port marked but held by
 * no Service is freed only after being seen leaked for several passes (a create may be in flight).
 */
export class PortRepair {
  private readonly leaks = new Map<number, number>();

  constructor(
    private readonly services: ObjectStore,
    private readonly allocator: NodePortAllocator,
    private readonly log: ControllerLog,
  ) {}

  async pass(): Promise<void> {
    const bitmap = await this.allocator.read();
    const services = await this.services.list(SYSTEM_READ_ALL, { resourceVersion: '', match: '', predicate: everything });
    const used = new Set<number>();
    for (const svc of services.items) {
      for (const port of nodePortsOf(svc)) {
        if (!bitmap.contains(port)) {
          this.log(
            `Node port ${port} of Service ${svc.metadata.namespace ?? ''}/${svc.metadata.name ?? ''} is not within the port range ${this.allocator.range.base}-${this.allocator.range.base + this.allocator.range.size - 1}; please recreate the Service`,
          );
          continue;
        }
        if (used.has(port)) this.log(`Node port ${port} is held by more than one Service`);
        used.add(port);
      }
    }
    const free = new Set<number>();
    const seen = new Set<number>();
    for (const port of bitmap.ports()) {
      if (used.has(port)) continue;
      seen.add(port);
      const count = (this.leaks.get(port) ?? 0) + 1;
      this.leaks.set(port, count);
      if (count >= REPAIRS_BEFORE_LEAK_CLEANUP) free.add(port);
    }
    for (const port of [...this.leaks.keys()]) if (!seen.has(port) || free.has(port)) this.leaks.delete(port);
    await this.allocator.repair(used, free);
  }
}
