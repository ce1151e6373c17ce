import { objectsIn, stringOf } from '../api/json-read';
import type { ComponentStatus } from '../generated/types/core/v1';
import type { KubeObject } from '../api/types';
import { defaultStrategy } from '../registry/strategy';
import { defineResource } from '../registry/resource-definition';
import { NAME_COLUMN } from '../registry/table';

/**
 * core/v1 ComponentStatus, computed at each request as pkg/registry/core/componentstatus does:
 * etcd-0 with the storage's health. kapi runs no scheduler or controller manager of its own to probe.
 */

const healthy = (o: KubeObject): Record<string, unknown> | undefined => objectsIn(o.conditions).find((c) => c.type === 'Healthy');

/** printComponentStatus's Status: Healthy, Unhealthy or Unknown from the Healthy condition. */
function statusCell(o: ComponentStatus): string {
  const c = healthy(o);
  return c?.status === 'True' ? 'Healthy' : c?.status === 'False' ? 'Unhealthy' : 'Unknown';
}

export const componentstatuses = defineResource<ComponentStatus>({
  group: '',
  version: 'v1',
  resource: 'componentstatuses',
  kind: 'ComponentStatus',
  namespaced: false,
  shortNames: ['cs'],
  verbs: ['get', 'list'],
  strategy: defaultStrategy,
  deprecationWarning: 'v1 ComponentStatus is deprecated in v1.19+',
  computeItems: async (services) => {
    let condition: Record<string, unknown>;
    try {
      await services.etcdHealth();
      condition = { type: 'Healthy', status: 'True', message: 'ok' };
    } catch (err) {
      condition = { type: 'Healthy', status: 'False', error: err instanceof Error ? err.message : String(err) };
    }
    return [{ apiVersion: 'v1', kind: 'ComponentStatus', metadata: { name: 'etcd-0', creationTimestamp: null }, conditions: [condition] }];
  },
  printerColumns: [
    NAME_COLUMN,
    { name: 'Status', type: 'string', description: 'Status of the component conditions', cell: statusCell },
    { name: 'Message', type: 'string', description: 'Message of the component conditions', cell: (o) => stringOf(healthy(o)?.message) },
    { name: 'Error', type: 'string', description: 'Error of the component conditions', cell: (o) => stringOf(healthy(o)?.error) },
  ],
});
