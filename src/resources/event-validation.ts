import { jsonEqual } from '../api/deep-equal';
import { field, type FieldErrorList } from '../api/field-errors';
import { stringOf as str } from '../api/json-read';
import { isQualifiedName } from '../api/name-validation';
import { isPlainObject, type KubeObject } from '../api/types';

/**
 * kube-apiserver's Event validation (pkg/apis/core/validation/events.go), on core/v1 Events: the
 * legacy rules every Event passes, and the strict ones for writes through events.k8s.io/v1.
 * Errors name core/v1 fields (involvedObject, message, source, ...) whichever version was written,
 * as kube validates its internal Event.
 */

const REPORTING_INSTANCE_LENGTH_LIMIT = 128;
const ACTION_LENGTH_LIMIT = 128;
const REASON_LENGTH_LIMIT = 128;
const NOTE_LENGTH_LIMIT = 1024;

type Obj = Record<string, unknown>;

const objectAt = (e: KubeObject, key: string): Obj => (isPlainObject(e[key]) ? (e[key] as Obj) : {});
/** Go's len(string) counts bytes. */
const byteLength = (s: string): number => Buffer.byteLength(s, 'utf8');

function atMost(path: string, value: string, limit: number): FieldErrorList {
  return byteLength(value) > limit ? [field.invalid(path, '', `can have at most ${limit} characters`)] : [];
}

/** legacyValidateEvent: what every Event, core/v1 or events.k8s.io/v1, must satisfy. */
export function validateEvent(e: KubeObject): FieldErrorList {
  const errs: FieldErrorList = [];
  const namespace = e.metadata.namespace ?? '';
  const involvedNamespace = str(objectAt(e, 'involvedObject').namespace);
  const mismatch = (): void => void errs.push(field.invalid('involvedObject.namespace', involvedNamespace, 'does not match event.namespace'));
  if (!str(e.eventTime)) {
    // Old-style Events: the namespace must agree with the involved object's ("default" stands for none).
    if (involvedNamespace === '' ? namespace !== '' && namespace !== 'default' : namespace !== involvedNamespace) mismatch();
    return errs;
  }
  if (involvedNamespace === '' && namespace !== 'default' && namespace !== 'kube-system') mismatch();
  const controller = str(e.reportingComponent);
  if (!controller) errs.push(field.required('reportingController'));
  for (const msg of isQualifiedName(controller)) errs.push(field.invalid('reportingController', controller, msg));
  const instance = str(e.reportingInstance);
  if (!instance) errs.push(field.required('reportingInstance'));
  errs.push(...atMost('reportingInstance', instance, REPORTING_INSTANCE_LENGTH_LIMIT));
  const action = str(e.action);
  if (!action) errs.push(field.required('action'));
  errs.push(...atMost('action', action, ACTION_LENGTH_LIMIT));
  const reason = str(e.reason);
  if (!reason) errs.push(field.required('reason'));
  errs.push(...atMost('reason', reason, REASON_LENGTH_LIMIT));
  errs.push(...atMost('message', str(e.message), NOTE_LENGTH_LIMIT));
  return errs;
}

function validateSeries(e: KubeObject): FieldErrorList {
  if (!isPlainObject(e.series)) return [];
  const errs: FieldErrorList = [];
  const count = typeof e.series.count === 'number' ? e.series.count : 0;
  if (count < 2) errs.push(field.invalid('series.count', '', 'should be at least 2'));
  if (!str(e.series.lastObservedTime)) errs.push(field.required('series.lastObservedTime'));
  return errs;
}

/** What ValidateEventCreate adds for events.k8s.io/v1: a new-style Event with none of core/v1's deprecated fields. */
export function validateStrictEventCreate(e: KubeObject): FieldErrorList {
  const errs = validateSeries(e);
  if (!str(e.eventTime)) errs.push(field.required('eventTime'));
  if (e.type !== 'Normal' && e.type !== 'Warning') errs.push(field.invalid('type', '', `has invalid value: ${str(e.type)}`));
  if (str(e.firstTimestamp)) errs.push(field.invalid('firstTimestamp', '', 'needs to be unset'));
  if (str(e.lastTimestamp)) errs.push(field.invalid('lastTimestamp', '', 'needs to be unset'));
  if (typeof e.count === 'number' && e.count !== 0) errs.push(field.invalid('count', '', 'needs to be unset'));
  const source = objectAt(e, 'source');
  if (str(source.component) || str(source.host)) errs.push(field.invalid('source', '', 'needs to be unset'));
  return errs;
}

/** In ValidateEventUpdate's order. */
const IMMUTABLE_FIELDS = [
  'involvedObject',
  'reason',
  'message',
  'source',
  'firstTimestamp',
  'lastTimestamp',
  'count',
  'type',
  'eventTime',
  'action',
  'related',
  'reportingComponent',
  'reportingInstance',
];

/** What ValidateEventUpdate adds for events.k8s.io/v1: a changed series is valid, and nothing else changes. */
export function validateStrictEventUpdate(next: KubeObject, prev: KubeObject): FieldErrorList {
  const errs = jsonEqual(next.series, prev.series) ? [] : validateSeries(next);
  for (const key of IMMUTABLE_FIELDS) {
    // kube names reportingComponent by its Go name, ReportingController, in the path.
    const path = key === 'reportingComponent' ? 'reportingController' : key;
    if (!jsonEqual(next[key], prev[key])) errs.push(field.invalid(path, next[key] ?? null, 'field is immutable'));
  }
  return errs;
}
