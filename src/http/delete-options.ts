import { badRequest } from '../api/errors';
import { field, type FieldErrorList } from '../api/field-errors';
import { isPlainObject } from '../api/types';
import { DecodeError } from '../codec/decode-error';
import { negotiateInput, type Encoding } from '../codec/negotiate';
import { decodeBody, typeMetaFieldsUnreadable, typeMetaUnreadable } from './decode-object';
import type { PropagationPolicy } from '../registry/deletion-finalizers';
import { validateDeleteOptions, type DecodedDeleteOptions } from '../registry/delete-options-validation';
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

const UNSAFE_OPTION = 'ignoreStoreReadErrorWithClusterBreakingPotential';

function fromBody(body: Buffer, contentType: string | undefined, encodings: Encoding[]): Record<string, unknown> {
  const encoding = negotiateInput(contentType, encodings);
  let value: unknown;
  try {
    value = decodeBody(body, encoding);
  } catch (err) {
    if (err instanceof DecodeError) throw badRequest(err.message);
    throw err;
  }
  // json.Serializer.Decode: a null body decodes to empty options; other JSON that is not an
  // object, or an apiVersion or kind that is not a string, fails SimpleMetaFactory.Interpret.
  if (value === null) return {};
  if (!isPlainObject(value)) throw badRequest(typeMetaUnreadable(value));
  const typeMeta = typeMetaFieldsUnreadable(value);
  if (typeMeta) throw badRequest(typeMeta);
  if (value.kind !== undefined && value.kind !== null && value.kind !== '' && value.kind !== 'DeleteOptions') {
    throw badRequest(`decoded object cannot be converted to DeleteOptions: got kind ${JSON.stringify(value.kind)}`);
  }
  const typeError = goTypeError(value, 'DeleteOptions', DELETE_OPTIONS_FIELDS, []);
  if (typeError) throw badRequest(typeError);
  return value;
}

/** A field's Go type, as the JSON decoder checks it, and as its errors name it. */
type GoField = { go: 'int64' | 'bool' | 'string' | '[]string'; name: string } | { go: 'struct'; name: string; struct: string; fields: Record<string, GoField> };

const PRECONDITIONS: Record<string, GoField> = {
  uid: { go: 'string', name: 'types.UID' },
  resourceVersion: { go: 'string', name: 'string' },
};

const DELETE_OPTIONS_FIELDS: Record<string, GoField> = {
  gracePeriodSeconds: { go: 'int64', name: 'int64' },
  preconditions: { go: 'struct', name: 'v1.Preconditions', struct: 'Preconditions', fields: PRECONDITIONS },
  orphanDependents: { go: 'bool', name: 'bool' },
  propagationPolicy: { go: 'string', name: 'v1.DeletionPropagation' },
  dryRun: { go: '[]string', name: '[]string' },
  [UNSAFE_OPTION]: { go: 'bool', name: 'bool' },
};

/** The value kinds encoding/json names in an UnmarshalTypeError (literalStore, array, object). */
function valueKind(v: unknown, into: GoField['go']): string {
  if (typeof v === 'number') return into === 'int64' ? `number ${v}` : 'number';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'boolean') return 'bool';
  return typeof v;
}

/**
 * encoding/json's first UnmarshalTypeError decoding `obj` into a struct, in the order of the
 * body: the innermost struct's name, then the path of fields from the top (decodeState.addErrorContext).
 * Nulls decode to nothing; fields the struct lacks are ignored.
 */
function goTypeError(obj: Record<string, unknown>, struct: string, fields: Record<string, GoField>, path: string[]): string | undefined {
  for (const [key, value] of Object.entries(obj)) {
    const f = fields[key];
    if (!f || value === null) continue;
    const at = [...path, key];
    const error = (kind: string, type: string) => `json: cannot unmarshal ${kind} into Go struct field ${struct}.${at.join('.')} of type ${type}`;
    switch (f.go) {
      case 'struct':
        if (!isPlainObject(value)) return error(valueKind(value, f.go), f.name);
        {
          const inner = goTypeError(value, f.struct, f.fields, at);
          if (inner) return inner;
        }
        break;
      case '[]string':
        if (!Array.isArray(value)) return error(valueKind(value, f.go), f.name);
        // An element's error names the slice's field and the element's type.
        for (const item of value) if (item !== null && typeof item !== 'string') return error(valueKind(item, 'string'), 'string');
        break;
      case 'int64':
        if (!Number.isSafeInteger(value)) return error(valueKind(value, f.go), f.name);
        break;
      case 'bool':
        if (typeof value !== 'boolean') return error(valueKind(value, f.go), f.name);
        break;
      case 'string':
        if (typeof value !== 'string') return error(valueKind(value, f.go), f.name);
        break;
    }
  }
  return undefined;
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
  // Past fromBody and fromQuery, every option set has its Go type.
  if (typeof raw.gracePeriodSeconds === 'number') {
    // Negative grace periods mean "as soon as possible", which the delete path treats as one second.
    opts.gracePeriodSeconds = raw.gracePeriodSeconds < 0 ? 1 : raw.gracePeriodSeconds;
  }
  if (isPlainObject(raw.preconditions)) {
    const { uid, resourceVersion } = raw.preconditions as { uid?: string | null; resourceVersion?: string | null };
    opts.preconditions = { ...(uid ? { uid } : {}), ...(resourceVersion ? { resourceVersion } : {}) };
  }
  if (typeof raw.orphanDependents === 'boolean') opts.orphanDependents = raw.orphanDependents;
  if (typeof raw.propagationPolicy === 'string') opts.propagationPolicy = raw.propagationPolicy as PropagationPolicy;
  if (Array.isArray(raw.dryRun)) opts.dryRun = raw.dryRun.length > 0;
  const refused: FieldErrorList = [];
  const unsafe = raw[UNSAFE_OPTION];
  if (typeof unsafe === 'boolean') {
    if (unsafe && !unsafeDeletionGate) {
      refused.push(field.forbidden(UNSAFE_OPTION, 'requires the AllowUnsafeMalformedObjectDeletion feature gate'));
    } else if (unsafe) {
      opts.ignoreStoreReadErrorWithClusterBreakingPotential = true;
      refused.push(...unsafeOptionConflicts(raw));
    }
  }
  validateDeleteOptions(raw as DecodedDeleteOptions, refused, body.length === 0);
  return opts;
}
