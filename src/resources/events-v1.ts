import type { KubeObject } from '../api/types';
import type { Event } from '../generated/types/events/v1';
import { defineResource } from '../registry/resource-definition';
import { strategy } from '../registry/strategy';
import { validateEvent, validateStrictEventCreate, validateStrictEventUpdate } from './event-validation';
import { events } from './events';
import { coreEventFromV1, v1EventFromCore } from './events-v1-conversion';
import { jsonClone } from '../api/json-clone';

/**
 * events.k8s.io/v1 Events, which client-go's events recorder writes: the same objects as core/v1
 * Events (the storage version, under the same keys), converted on every read and write.
 * Validation and the printed columns are core's, on the converted object, as kube-apiserver
 * validates and prints its internal Event; writes through this version add the strict rules.
 */

const asCore = (event: KubeObject): KubeObject => coreEventFromV1(jsonClone(event));

export const eventsV1 = defineResource<Event>({
  group: 'events.k8s.io',
  version: 'v1',
  resource: 'events',
  kind: 'Event',
  namespaced: true,
  fieldLabelConversion: {},
  shortNames: events.shortNames,
  storagePath: events.storagePath,
  storageApiVersion: 'v1',
  conversion: { toStorage: coreEventFromV1, fromStorage: v1EventFromCore },
  strategy: strategy<Event>({
    ...events.strategy,
    validate: (event) => validateEvent(asCore(event)),
    validateCreate: (event) => validateStrictEventCreate(asCore(event)),
    validateUpdate: (next, prev) => validateStrictEventUpdate(asCore(next), asCore(prev)),
  }),
  printerColumns: events.printerColumns.map((column) => ({ ...column, cell: (event: KubeObject) => column.cell(asCore(event)) })),
});
