import { stringOf as str } from '../api/json-read';
import type { Event } from '../generated/types/core/v1';
import { isPlainObject, type KubeObject } from '../api/types';
import { defineResource } from '../registry/resource-definition';
import { strategy } from '../registry/strategy';
import { age, NAME_COLUMN } from '../registry/table';
import { validateEvent } from './event-validation';

type Obj = Record<string, unknown>;

const involved = (e: KubeObject): Obj => (isPlainObject(e.involvedObject) ? e.involvedObject : {});
const source = (e: KubeObject): Obj => (isPlainObject(e.source) ? e.source : {});
const series = (e: KubeObject): Obj | null => (isPlainObject(e.series) ? e.series : null);

function lastSeen(e: Event): string {
  const s = series(e);
  if (s && typeof s.lastObservedTime === 'string') return age(s.lastObservedTime);
  const t = str(e.lastTimestamp) || str(e.firstTimestamp) || str(e.eventTime);
  return t ? age(t) : '<unknown>';
}

function eventSource(e: Event): string {
  const component = str(source(e).component) || str(e.reportingComponent);
  const host = str(source(e).host) || str(e.reportingInstance);
  return host ? `${component}, ${host}` : component;
}

export const events = defineResource<Event>({
  group: '',
  version: 'v1',
  resource: 'events',
  kind: 'Event',
  namespaced: true,
  shortNames: ['ev'],
  strategy: strategy<Event>({ allowCreateOnUpdate: true, validate: validateEvent, garbageCollectionPolicy: 'Unsupported' }),
  fieldLabelConversion: {},
  selectableFields: {
    'involvedObject.kind': (e) => str(involved(e).kind),
    'involvedObject.namespace': (e) => str(involved(e).namespace),
    'involvedObject.name': (e) => str(involved(e).name),
    'involvedObject.uid': (e) => str(involved(e).uid),
    'involvedObject.apiVersion': (e) => str(involved(e).apiVersion),
    'involvedObject.resourceVersion': (e) => str(involved(e).resourceVersion),
    'involvedObject.fieldPath': (e) => str(involved(e).fieldPath),
    reason: (e) => str(e.reason),
    reportingComponent: (e) => str(e.reportingComponent),
    source: (e) => str(source(e).component) || str(e.reportingComponent),
    type: (e) => str(e.type),
  },
  printerColumns: [
    { name: 'Last Seen', type: 'string', description: 'Time when this Event was last seen', cell: lastSeen },
    { name: 'Type', type: 'string', description: 'Type of this event (Normal, Warning), new types could be added in the future.', cell: (e) => str(e.type) },
    {
      name: 'Reason',
      type: 'string',
      description: "This should be a short, machine understandable string that gives the reason for the transition into the object's current status.",
      cell: (e) => str(e.reason),
    },
    {
      name: 'Object',
      type: 'string',
      description: 'The object that this event is about.',
      cell: (e) => {
        const kind = str(involved(e).kind).toLowerCase();
        const name = str(involved(e).name);
        return name ? `${kind}/${name}` : kind;
      },
    },
    { name: 'Subobject', type: 'string', priority: 1, description: 'The subobject of the involved object.', cell: (e) => str(involved(e).fieldPath) },
    { name: 'Source', type: 'string', priority: 1, description: 'The component reporting this event.', cell: eventSource },
    { name: 'Message', type: 'string', description: 'A human-readable description of the status of this operation.', cell: (e) => str(e.message).trim() },
    {
      name: 'First Seen',
      type: 'string',
      priority: 1,
      description: 'The time at which the event was first recorded.',
      cell: (e) => (str(e.firstTimestamp) || str(e.eventTime) ? age(str(e.firstTimestamp) || str(e.eventTime)) : '<unknown>'),
    },
    {
      name: 'Count',
      type: 'string',
      priority: 1,
      description: 'The number of times this event has occurred.',
      cell: (e) => {
        const s = series(e);
        if (s && typeof s.count === 'number') return s.count;
        return typeof e.count === 'number' && e.count > 0 ? e.count : 1;
      },
    },
    { ...NAME_COLUMN, priority: 1 },
  ],
});
