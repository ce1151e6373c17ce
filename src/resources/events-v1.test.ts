import type { KubeObject } from '../api/types';
import { fieldErrorMessage } from '../api/field-errors';
import { validateEvent, validateStrictEventCreate, validateStrictEventUpdate } from './event-validation';
import { coreEventFromV1, v1EventFromCore } from './events-v1-conversion';

const metadata = { name: 'web-1.18', namespace: 'default', uid: 'u1', resourceVersion: '7', creationTimestamp: '2024-05-06T07:08:09Z' };
const shared = {
  eventTime: '2024-05-06T07:08:09.123456Z',
  series: { count: 3, lastObservedTime: '2024-05-06T07:09:10.000001Z' },
  reportingInstance: 'sched-1',
  action: 'Binding',
  reason: 'Scheduled',
  related: { kind: 'Node', name: 'node-1', apiVersion: 'v1' },
  type: 'Normal',
};
const regarding = { kind: 'Pod', namespace: 'default', name: 'web-1', uid: 'u', apiVersion: 'v1' };

const v1: KubeObject = {
  apiVersion: 'events.k8s.io/v1',
  kind: 'Event',
  metadata,
  ...shared,
  reportingController: 'default-scheduler',
  regarding,
  note: 'Successfully assigned default/web-1 to node-1',
  deprecatedSource: { component: 'default-scheduler', host: 'node-1' },
  deprecatedFirstTimestamp: '2024-05-06T07:08:09Z',
  deprecatedLastTimestamp: '2024-05-06T07:09:10Z',
  deprecatedCount: 3,
};

const core: KubeObject = {
  apiVersion: 'events.k8s.io/v1',
  kind: 'Event',
  metadata,
  ...shared,
  reportingComponent: 'default-scheduler',
  involvedObject: regarding,
  message: 'Successfully assigned default/web-1 to node-1',
  source: { component: 'default-scheduler', host: 'node-1' },
  firstTimestamp: '2024-05-06T07:08:09Z',
  lastTimestamp: '2024-05-06T07:09:10Z',
  count: 3,
};

describe('events.k8s.io/v1 <-> core/v1 Event conversion', () => {
  test('events.k8s.io/v1 to core/v1 renames the seven fields and carries the rest', () => {
    expect(coreEventFromV1(v1)).toEqual(core);
  });

  test('core/v1 to events.k8s.io/v1 is the inverse', () => {
    expect(v1EventFromCore(core)).toEqual(v1);
  });

  test('round trips lose nothing, either way', () => {
    expect(v1EventFromCore(coreEventFromV1(v1))).toEqual(v1);
    expect(coreEventFromV1(v1EventFromCore(core))).toEqual(core);
  });

  test('an old-style core Event (no eventTime) converts too', () => {
    const old: KubeObject = {
      apiVersion: 'v1',
      kind: 'Event',
      metadata,
      involvedObject: regarding,
      reason: 'Pulled',
      message: 'pulled',
      count: 2,
      source: { component: 'kubelet' },
    };
    expect(v1EventFromCore(old)).toEqual({
      apiVersion: 'v1',
      kind: 'Event',
      metadata,
      regarding,
      reason: 'Pulled',
      note: 'pulled',
      deprecatedCount: 2,
      deprecatedSource: { component: 'kubelet' },
    });
  });
});

const messages = (errs: ReturnType<typeof validateEvent>): string[] => errs.map(fieldErrorMessage);

describe('Event validation, as kube-apiserver validates its internal Event', () => {
  const newStyle: KubeObject = {
    apiVersion: 'v1',
    kind: 'Event',
    metadata,
    ...shared,
    reportingComponent: 'default-scheduler',
    involvedObject: regarding,
    message: 'm',
  };

  test('a complete new-style Event passes both rule sets', () => {
    expect(validateEvent(newStyle)).toEqual([]);
    expect(validateStrictEventCreate(newStyle)).toEqual([]);
  });

  test('new-style Events need a reporter, an action and a reason, within limits, and a short message', () => {
    const e = { ...newStyle, reportingComponent: '', reportingInstance: 'i'.repeat(129), action: '', reason: 'r'.repeat(129), message: 'n'.repeat(1025) };
    expect(messages(validateEvent(e))).toEqual([
      'reportingController: Required value',
      'reportingController: Invalid value: "": name part must be non-empty',
      "reportingController: Invalid value: \"\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
      'reportingInstance: Invalid value: "": can have at most 128 characters',
      'action: Required value',
      'reason: Invalid value: "": can have at most 128 characters',
      'message: Invalid value: "": can have at most 1024 characters',
    ]);
  });

  test("old-style Events: the involved object's namespace must match", () => {
    const old: KubeObject = { apiVersion: 'v1', kind: 'Event', metadata: { ...metadata, namespace: 'team' }, involvedObject: { kind: 'Node', name: 'n' } };
    expect(messages(validateEvent(old))).toEqual(['involvedObject.namespace: Invalid value: "": does not match event.namespace']);
    expect(validateEvent({ ...old, metadata })).toEqual([]);
  });

  test('creates through events.k8s.io/v1: eventTime, a known type, a valid series, no deprecated fields', () => {
    const e = { ...newStyle, eventTime: undefined, type: 'Odd', series: { count: 1 }, firstTimestamp: '2024-05-06T07:08:09Z', count: 2, source: { host: 'h' } };
    expect(messages(validateStrictEventCreate(e))).toEqual([
      'series.count: Invalid value: "": should be at least 2',
      'series.lastObservedTime: Required value',
      'eventTime: Required value',
      'type: Invalid value: "": has invalid value: Odd',
      'firstTimestamp: Invalid value: "": needs to be unset',
      'count: Invalid value: "": needs to be unset',
      'source: Invalid value: "": needs to be unset',
    ]);
  });

  test('updates through events.k8s.io/v1 change only the series', () => {
    const next = { ...newStyle, series: { count: 4, lastObservedTime: '2024-05-06T07:10:00.000000Z' } };
    expect(validateStrictEventUpdate(next, newStyle)).toEqual([]);
    expect(messages(validateStrictEventUpdate({ ...newStyle, action: 'Other', reportingComponent: 'x' }, newStyle))).toEqual([
      'action: Invalid value: "Other": field is immutable',
      'reportingController: Invalid value: "x": field is immutable',
    ]);
  });
});
