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
  // events.k8s.io's EventToSelectableFields, by their v1 names, read from the stored core/v1 Event
  selectableFields: {
    'regarding.kind': events.selectableFields['involvedObject.kind'],
    'regarding.namespace': events.selectableFields['involvedObject.namespace'],
    'regarding.name': events.selectableFields['involvedObject.name'],
    'regarding.uid': events.selectableFields['involvedObject.uid'],
    'regarding.apiVersion': events.selectableFields['involvedObject.apiVersion'],
    'regarding.resourceVersion': events.selectableFields['involvedObject.resourceVersion'],
    'regarding.fieldPath': events.selectableFields['involvedObject.fieldPath'],
    reason: events.selectableFields.reason,
    reportingController: events.selectableFields.reportingComponent,
    source: events.selectableFields.source,
    type: events.selectableFields.type,
  },
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
