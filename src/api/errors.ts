import { aggregateMessage, fieldErrorBody, fieldErrorMessage, goQuote, type FieldErrorList } from './field-errors';
import { qualifiedKind, qualifiedResource, type GroupKind, type GroupResource, type Status, type StatusDetails, type StatusReason } from './types';

/** The one error type clients ever see: a Kubernetes Status with its HTTP code. */
export class StatusError extends Error {
  readonly status: Status;
  /** Extra response headers, e.g. Retry-After. */
  readonly headers: Record<string, string>;

  constructor(code: number, reason: StatusReason, message: string, details?: StatusDetails, headers: Record<string, string> = {}) {
    super(message);
    this.name = 'StatusError';
    this.status = {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message,
      reason,
      ...(details ? { details } : {}),
      code,
    };
    this.headers = headers;
  }

  get code(): number {
    return this.status.code;
  }

  get reason(): StatusReason | undefined {
    return this.status.reason;
  }
}

export function isStatusError(err: unknown): err is StatusError {
  return err instanceof StatusError;
}

function resourceDetails(gr: GroupResource, name: string): StatusDetails {
  return compactDetails({ name, group: gr.group, kind: gr.resource });
}

function compactDetails(details: StatusDetails): StatusDetails {
  const out: StatusDetails = {};
  if (details.name) out.name = details.name;
  if (details.group) out.group = details.group;
  if (details.kind) out.kind = details.kind;
  if (details.uid) out.uid = details.uid;
  if (details.causes && details.causes.length > 0) out.causes = details.causes;
  if (details.retryAfterSeconds) out.retryAfterSeconds = details.retryAfterSeconds;
  return out;
}

export const OPTIMISTIC_LOCK_MESSAGE = 'the object has been modified; please apply your changes to the latest version and try again';

export function notFound(gr: GroupResource, name: string): StatusError {
  return new StatusError(404, 'NotFound', `${qualifiedResource(gr)} ${goQuote(name)} not found`, resourceDetails(gr, name));
}

/** What kube-apiserver answers for a path it does not serve. */
export function pathNotFound(): StatusError {
  return new StatusError(404, 'NotFound', 'the server could not find the requested resource', {});
}

export function alreadyExists(gr: GroupResource, name: string): StatusError {
  return new StatusError(409, 'AlreadyExists', `${qualifiedResource(gr)} ${goQuote(name)} already exists`, resourceDetails(gr, name));
}

/** CheckGeneratedNameError: a name made from generateName was taken; the client may try again at once. */
export function generateNameConflict(gr: GroupResource, name: string): StatusError {
  return new StatusError(
    409,
    'AlreadyExists',
    `${qualifiedResource(gr)} ${goQuote(name)} already exists, the server was not able to generate a unique name for the object`,
    compactDetails({ name, group: gr.group, kind: gr.resource, retryAfterSeconds: 1 }),
    { 'Retry-After': '1' },
  );
}

export function conflict(gr: GroupResource, name: string, cause: string): StatusError {
  return new StatusError(409, 'Conflict', `Operation cannot be fulfilled on ${qualifiedResource(gr)} ${goQuote(name)}: ${cause}`, resourceDetails(gr, name));
}

export function invalid(gk: GroupKind, name: string, errs: FieldErrorList): StatusError {
  const summary = errs.length === 0 ? '' : `: ${aggregateMessage(errs.map(fieldErrorMessage))}`;
  const details: StatusDetails = compactDetails({ name, group: gk.group, kind: gk.kind });
  // causes is omitempty in Go: an empty list is not written.
  if (errs.length > 0) details.causes = errs.map((e) => ({ reason: e.type, message: fieldErrorBody(e), field: e.field }));
  return new StatusError(422, 'Invalid', `${qualifiedKind(gk)} ${goQuote(name)} is invalid${summary}`, details);
}

/**
 * Options the issues specify as 400 where kube-apiserver answers 422 (an unknown dryRun value, the
 * unsafe delete option combined with others): Invalid's message and causes with BadRequest's code.
 */
export function badOptions(gk: GroupKind, errs: FieldErrorList): StatusError {
  const { status } = invalid(gk, '', errs);
  return new StatusError(400, 'BadRequest', status.message ?? '', status.details);
}

export function badRequest(message: string): StatusError {
  return new StatusError(400, 'BadRequest', message);
}

export function forbidden(gr: GroupResource, name: string, cause: string): StatusError {
  const what = name ? `${qualifiedResource(gr)} ${goQuote(name)}` : qualifiedResource(gr);
  return new StatusError(403, 'Forbidden', `${what} is forbidden: ${cause}`, resourceDetails(gr, name));
}

export function methodNotAllowed(): StatusError {
  return new StatusError(405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource', {});
}

export function methodNotSupported(gr: GroupResource, action: string): StatusError {
  return new StatusError(
    405,
    'MethodNotAllowed',
    `${action} is not supported on resources of kind "${qualifiedResource(gr)}"`,
    compactDetails({ group: gr.group, kind: gr.resource }),
  );
}

export function unsupportedMediaType(accepted: string[]): StatusError {
  return new StatusError(
    415,
    'UnsupportedMediaType',
    `the body of the request was in an unknown format - accepted media types include: ${accepted.join(', ')}`,
  );
}

export function notAcceptable(accepted: string[]): StatusError {
  return new StatusError(406, 'NotAcceptable', `only the following media types are accepted: ${accepted.join(', ')}`);
}

export function requestEntityTooLarge(limit: number): StatusError {
  return new StatusError(413, 'RequestEntityTooLarge', `Request entity too large: limit is ${limit}`);
}

export function gone(message: string): StatusError {
  return new StatusError(410, 'Gone', message);
}

export function resourceExpired(message: string): StatusError {
  return new StatusError(410, 'Expired', message);
}

export function timeout(message: string, retryAfterSeconds: number): StatusError {
  // ErrorNegotiated sets Retry-After only for a positive delay.
  const headers = retryAfterSeconds > 0 ? { 'Retry-After': String(retryAfterSeconds) } : undefined;
  return new StatusError(504, 'Timeout', `Timeout: ${message}`, compactDetails({ retryAfterSeconds }), headers);
}

export function tooManyRequests(message: string, retryAfterSeconds: number): StatusError {
  return new StatusError(429, 'TooManyRequests', message, compactDetails({ retryAfterSeconds }), {
    'Retry-After': String(retryAfterSeconds),
  });
}

export function serviceUnavailable(message: string): StatusError {
  return new StatusError(503, 'ServiceUnavailable', message);
}

/** What kube-apiserver answers for an error that is not a Status (ErrorToAPIStatus's default): 500, no reason, the error's text. */
export function notAStatus(message: string): StatusError {
  const err = new StatusError(500, '', message);
  delete err.status.reason;
  return err;
}

export function internalError(cause: string): StatusError {
  return new StatusError(500, 'InternalError', `Internal error occurred: ${cause}`, { causes: [{ message: cause }] });
}

/** Turns anything thrown into a StatusError; unknown faults become 500 and are reported to `log`. */
export function toStatusError(err: unknown, log: (err: unknown) => void = () => undefined): StatusError {
  if (err instanceof StatusError) return err;
  log(err);
  return internalError(err instanceof Error ? err.message : String(err));
}
