import {
  alreadyExists,
  badRequest,
  conflict,
  internalError,
  invalid,
  methodNotAllowed,
  methodNotSupported,
  notAcceptable,
  notFound,
  OPTIMISTIC_LOCK_MESSAGE,
  pathNotFound,
  requestEntityTooLarge,
  StatusError,
  timeout,
  toStatusError,
  unsupportedMediaType,
} from './errors';
import { aggregateMessage, field, fieldErrorBody, fieldErrorMessage } from './field-errors';

/** What kube-apiserver writes on the wire, key order included. */
const wire = (e: StatusError): string => JSON.stringify(e.status);

const pods = { group: '', resource: 'pods' };
const deployments = { group: 'apps', resource: 'deployments' };

describe('field errors (field.Error.Error / ErrorBody)', () => {
  test.each([
    [field.required('spec.x', ''), 'spec.x: Required value'],
    [field.required('spec.x', 'must be set'), 'spec.x: Required value: must be set'],
    [field.invalid('spec.x', 'v', 'bad'), 'spec.x: Invalid value: "v": bad'],
    [field.invalid('spec.x', -1, 'bad'), 'spec.x: Invalid value: -1: bad'],
    [field.invalid('spec.x', true, 'bad'), 'spec.x: Invalid value: true: bad'],
    [field.invalid('spec.x', null, 'bad'), 'spec.x: Invalid value: null: bad'],
    [field.invalid('spec.x', ['a', 'b'], 'bad'), 'spec.x: Invalid value: ["a","b"]: bad'],
    [field.invalid('spec.x', 'say "hi"', 'bad'), 'spec.x: Invalid value: "say \\"hi\\"": bad'],
    [field.forbidden('spec.x', 'no'), 'spec.x: Forbidden: no'],
    [field.duplicate('spec.x[1]', 'a'), 'spec.x[1]: Duplicate value: "a"'],
    [field.notFound('spec.x', 'a'), 'spec.x: Not found: "a"'],
    [field.notSupported('spec.x', 'Maybe', ['Always', 'Never']), 'spec.x: Unsupported value: "Maybe": supported values: "Always", "Never"'],
    [field.tooLong('spec.x', 10), 'spec.x: Too long: may not be more than 10 bytes'],
    [field.tooLong('spec.x', 1), 'spec.x: Too long: may not be more than 1 byte'],
    [field.tooMany('spec.x', 3, 2), 'spec.x: Too many: 3: must have at most 2 items'],
    [field.tooMany('spec.x', 3, 1), 'spec.x: Too many: 3: must have at most 1 item'],
  ])('%j', (e, message) => expect(fieldErrorMessage(e)).toBe(message));

  test('the body omits the field', () => {
    expect(fieldErrorBody(field.invalid('spec.x', 'v', 'bad'))).toBe('Invalid value: "v": bad');
  });

  test('aggregates: one bare, several bracketed, duplicates folded', () => {
    expect(aggregateMessage(['a'])).toBe('a');
    expect(aggregateMessage(['a', 'b', 'a'])).toBe('[a, b]');
    expect(aggregateMessage(['a', 'a'])).toBe('a');
  });
});

describe('Status bodies', () => {
  test('NotFound', () => {
    const e = notFound(deployments, 'web');
    expect(e.code).toBe(404);
    expect(wire(e)).toBe(
      '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"deployments.apps \\"web\\" not found","reason":"NotFound","details":{"name":"web","group":"apps","kind":"deployments"},"code":404}',
    );
  });

  test('NotFound for a core resource has no group, and names are Go-quoted', () => {
    expect(wire(notFound(pods, 'a"b'))).toBe(
      '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"pods \\"a\\\\\\"b\\" not found","reason":"NotFound","details":{"name":"a\\"b","kind":"pods"},"code":404}',
    );
  });

  test('an unserved path', () => {
    expect(wire(pathNotFound())).toBe(
      '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"the server could not find the requested resource","reason":"NotFound","details":{},"code":404}',
    );
  });

  test('AlreadyExists', () => {
    expect(wire(alreadyExists(pods, 'p'))).toBe(
      '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"pods \\"p\\" already exists","reason":"AlreadyExists","details":{"name":"p","kind":"pods"},"code":409}',
    );
  });

  test('Conflict', () => {
    expect(wire(conflict(deployments, 'web', OPTIMISTIC_LOCK_MESSAGE))).toBe(
      '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Operation cannot be fulfilled on deployments.apps \\"web\\": the object has been modified; please apply your changes to the latest version and try again","reason":"Conflict","details":{"name":"web","group":"apps","kind":"deployments"},"code":409}',
    );
  });

  test('Invalid with causes and the aggregated message', () => {
    const e = invalid({ group: 'apps', kind: 'Deployment' }, 'web', [
      field.required('spec.selector', ''),
      field.invalid('spec.replicas', -1, 'must be greater than or equal to 0'),
    ]);
    expect(wire(e)).toBe(
      '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Deployment.apps \\"web\\" is invalid: [spec.selector: Required value, spec.replicas: Invalid value: -1: must be greater than or equal to 0]","reason":"Invalid","details":{"name":"web","group":"apps","kind":"Deployment","causes":[{"reason":"FieldValueRequired","message":"Required value","field":"spec.selector"},{"reason":"FieldValueInvalid","message":"Invalid value: -1: must be greater than or equal to 0","field":"spec.replicas"}]},"code":422}',
    );
  });

  test('Invalid with a single error is not bracketed; with none there are no causes', () => {
    expect(invalid({ group: '', kind: 'ConfigMap' }, 'c', [field.required('data', '')]).status.message).toBe('ConfigMap "c" is invalid: data: Required value');
    const empty = invalid({ group: '', kind: 'ConfigMap' }, 'c', []);
    expect(empty.status.message).toBe('ConfigMap "c" is invalid');
    expect(empty.status.details).toEqual({ name: 'c', kind: 'ConfigMap' });
  });

  test('BadRequest has no details', () => {
    expect(wire(badRequest('bad'))).toBe(
      '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"bad","reason":"BadRequest","code":400}',
    );
  });

  test('MethodNotAllowed', () => {
    expect(wire(methodNotAllowed())).toBe(
      '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"the server does not allow this method on the requested resource","reason":"MethodNotAllowed","details":{},"code":405}',
    );
    expect(wire(methodNotSupported(deployments, 'create'))).toBe(
      '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"create is not supported on resources of kind \\"deployments.apps\\"","reason":"MethodNotAllowed","details":{"group":"apps","kind":"deployments"},"code":405}',
    );
  });

  test('415 and 406 list the media types', () => {
    expect(wire(unsupportedMediaType(['application/json', 'application/yaml']))).toBe(
      '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"the body of the request was in an unknown format - accepted media types include: application/json, application/yaml","reason":"UnsupportedMediaType","code":415}',
    );
    expect(wire(notAcceptable(['application/json', 'application/vnd.kubernetes.protobuf']))).toBe(
      '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"only the following media types are accepted: application/json, application/vnd.kubernetes.protobuf","reason":"NotAcceptable","code":406}',
    );
  });

  test('413', () => {
    expect(wire(requestEntityTooLarge(3145728))).toBe(
      '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Request entity too large: limit is 3145728","reason":"RequestEntityTooLarge","code":413}',
    );
  });

  test('internal errors carry the cause', () => {
    expect(wire(internalError('boom'))).toBe(
      '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Internal error occurred: boom","reason":"InternalError","details":{"causes":[{"message":"boom"}]},"code":500}',
    );
  });

  test('timeouts carry Retry-After', () => {
    const e = timeout('request did not complete within 60s', 2);
    expect(e.status).toMatchObject({
      code: 504,
      reason: 'Timeout',
      message: 'Timeout: request did not complete within 60s',
      details: { retryAfterSeconds: 2 },
    });
    expect(e.headers).toEqual({ 'Retry-After': '2' });
  });

  test('toStatusError keeps StatusErrors and turns anything else into a logged 500', () => {
    const logged: unknown[] = [];
    const known = badRequest('x');
    expect(toStatusError(known, (e) => logged.push(e))).toBe(known);
    const wrapped = toStatusError(new Error('disk on fire'), (e) => logged.push(e));
    expect(wrapped.status.message).toBe('Internal error occurred: disk on fire');
    expect(logged).toHaveLength(1);
  });
});
