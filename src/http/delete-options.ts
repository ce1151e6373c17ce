import { badOptions, badRequest, invalid } from '../api/errors';
import { field, type FieldErrorList } from '../api/field-errors';
import { isPlainObject } from '../api/types';
import { DecodeError } from '../codec/decode-error';
import { negotiateInput, type Encoding } from '../codec/negotiate';
import { decodeBody } from './decode-object';
import type { PropagationPolicy } from '../registry/deletion-finalizers';
import { boolParam, intParam } from './query';

export interface DeleteOptions {
  gracePeriodSeconds?: number;
  preconditions?: { uid?: string; resourceVersion?: string };
  orphanDependents?: boolean;
  propagationPolicy?: PropagationPolicy;
  dryRun: boolean;
  /** Unsafe deletion of an object that cannot be read (AllowUnsafeMalformedObjectDeletion). */
  ignoreStoreReadErrorWithClusterBreakingPotential?: boolean;
}

const POLICIES = ['Foreground', 'Background', 'Orphan'];
const UNSAFE_OPTION = 'ignoreStoreReadErrorWithClusterBreakingPotential';
const DELETE_OPTIONS = { group: 'meta.k8s.io', kind: 'DeleteOptions' };

function fromBody(body: Buffer, contentType: string | undefined, encodings: Encoding[]): Record<string, unknown> {
  const encoding = negotiateInput(contentType, encodings);
  let value: unknown;
  try {
    value = decodeBody(body, encoding);
  } catch (err) {
    if (err instanceof DecodeError) throw badRequest(err.message);
    throw err;
  }
  if (!isPlainObject(value)) throw badRequest('decoded object cannot be converted to DeleteOptions');
  if (value.kind !== undefined && value.kind !== 'DeleteOptions') {
    throw badRequest(`decoded object cannot be converted to DeleteOptions: got kind ${JSON.stringify(value.kind)}`);
  }
  return value;
}

/**
 * DeleteOptions from the query, as url.Values convert to them: `uid` and `resourceVersion` are the
 * preconditions (Convert_url_Values_To_v1_DeleteOptions). A collection's handler decodes its query
 * so too, so there `resourceVersion` is its list's and each item's precondition alike.
 */
function fromQuery(query: URLSearchParams): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const grace = intParam(query, 'gracePeriodSeconds');
  if (grace !== undefined) out.gracePeriodSeconds = grace;
  if (query.has('orphanDependents')) out.orphanDependents = boolParam(query, 'orphanDependents');
  if (query.has('propagationPolicy')) out.propagationPolicy = query.get('propagationPolicy');
  if (query.has('dryRun')) out.dryRun = query.getAll('dryRun');
  const uid = query.get('uid');
  const rv = query.get('resourceVersion');
  if (uid || rv) out.preconditions = { ...(uid ? { uid } : {}), ...(rv ? { resourceVersion: rv } : {}) };
  if (query.has(UNSAFE_OPTION)) out[UNSAFE_OPTION] = boolParam(query, UNSAFE_OPTION);
  return out;
}

/** With the unsafe option set, no option that shapes a normal deletion may be. */
function unsafeOptionConflicts(raw: Record<string, unknown>): FieldErrorList {
  const errs: FieldErrorList = [];
  const set = (v: unknown): boolean => v !== undefined && v !== null && !(Array.isArray(v) && v.length === 0);
  for (const name of ['dryRun', 'gracePeriodSeconds', 'orphanDependents', 'preconditions', 'propagationPolicy']) {
    if (set(raw[name])) errs.push(field.invalid(name, raw[name], `can not be set together with ${UNSAFE_OPTION}`));
  }
  return errs;
}

function typeError(name: string, goType: string): Error {
  return badRequest(`json: cannot unmarshal into Go struct field DeleteOptions.${name} of type ${goType}`);
}

/**
 * DeleteOptions from the body when there is one, else from the query; validated as kube-apiserver
 * does, except where issues 5 and 6 ask for 400: an unknown dryRun value, and the unsafe option
 * combined with other options or (set true) without the AllowUnsafeMalformedObjectDeletion gate.
 */
export function parseDeleteOptions(
  body: Buffer,
  contentType: string | undefined,
  query: URLSearchParams,
  encodings: Encoding[],
  unsafeDeletionGate: boolean,
): DeleteOptions {
  const raw = body.length > 0 ? fromBody(body, contentType, encodings) : fromQuery(query);
  const opts: DeleteOptions = { dryRun: false };
  if (raw.gracePeriodSeconds !== undefined && raw.gracePeriodSeconds !== null) {
    if (typeof raw.gracePeriodSeconds !== 'number' || !Number.isSafeInteger(raw.gracePeriodSeconds)) throw typeError('gracePeriodSeconds', 'int64');
    // Negative grace periods mean "as soon as possible", which the delete path treats as one second.
    opts.gracePeriodSeconds = raw.gracePeriodSeconds < 0 ? 1 : raw.gracePeriodSeconds;
  }
  if (raw.preconditions !== undefined && raw.preconditions !== null) {
    if (!isPlainObject(raw.preconditions)) throw typeError('preconditions', 'v1.Preconditions');
    const { uid, resourceVersion } = raw.preconditions;
    if ((uid !== undefined && typeof uid !== 'string') || (resourceVersion !== undefined && typeof resourceVersion !== 'string')) {
      throw typeError('preconditions', 'v1.Preconditions');
    }
    opts.preconditions = { ...(uid ? { uid } : {}), ...(resourceVersion ? { resourceVersion } : {}) };
  }
  if (raw.orphanDependents !== undefined && raw.orphanDependents !== null) {
    if (typeof raw.orphanDependents !== 'boolean') throw typeError('orphanDependents', 'bool');
    opts.orphanDependents = raw.orphanDependents;
  }
  const errs: FieldErrorList = [];
  if (raw.propagationPolicy !== undefined && raw.propagationPolicy !== null) {
    if (typeof raw.propagationPolicy !== 'string') throw typeError('propagationPolicy', 'v1.DeletionPropagation');
    if (!POLICIES.includes(raw.propagationPolicy)) errs.push(field.notSupported('propagationPolicy', raw.propagationPolicy, [...POLICIES, 'nil']));
    else opts.propagationPolicy = raw.propagationPolicy as PropagationPolicy;
  }
  if (opts.orphanDependents !== undefined && raw.propagationPolicy) {
    errs.push(field.invalid('propagationPolicy', raw.propagationPolicy, 'orphanDependents and deletionPropagation cannot be both set'));
  }
  const refused: FieldErrorList = [];
  if (raw.dryRun !== undefined && raw.dryRun !== null) {
    if (!Array.isArray(raw.dryRun) || !raw.dryRun.every((v) => typeof v === 'string')) throw typeError('dryRun', '[]string');
    for (const v of raw.dryRun as string[]) if (v !== 'All' && v !== '') refused.push(field.notSupported('dryRun', v, ['All']));
    opts.dryRun = raw.dryRun.length > 0;
  }
  const unsafe = raw[UNSAFE_OPTION];
  if (unsafe !== undefined && unsafe !== null) {
    if (typeof unsafe !== 'boolean') throw typeError(UNSAFE_OPTION, 'bool');
    if (unsafe && !unsafeDeletionGate) {
      refused.push(field.forbidden(UNSAFE_OPTION, 'requires the AllowUnsafeMalformedObjectDeletion feature gate'));
    } else if (unsafe) {
      opts.ignoreStoreReadErrorWithClusterBreakingPotential = true;
      refused.push(...unsafeOptionConflicts(raw));
    }
  }
  if (refused.length > 0) throw badOptions(DELETE_OPTIONS, refused);
  if (errs.length > 0) throw invalid(DELETE_OPTIONS, '', errs);
  return opts;
}
