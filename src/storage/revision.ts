import { badRequest, notAStatus } from '../api/errors';
import { field, fieldErrorMessage, goQuote } from '../api/field-errors';

/**
 * A resourceVersion as kube reads it, a uint64 (APIObjectVersioner.ParseResourceVersion): a number
 * up to 2^53, a bigint beyond. kapi's revisions are numbers, so a bigint is one etcd has not
 * reached; it is never rounded to a nearby revision nor sent to etcd.
 */
export type Revision = number | bigint;

const UINT64_MAX = 2n ** 64n - 1n;
const LEADING_DIGITS = /^[0-9]*/;

/**
 * strconv.ParseUint(s, 10, 64), or its error: it reads digit by digit, so digits past 2^64-1 are
 * out of range even when something else follows them.
 */
function parseUint64(s: string): Revision | { error: string } {
  const digits = LEADING_DIGITS.exec(s)![0];
  if (digits === s && s !== '') {
    const revision = Number(s);
    if (Number.isSafeInteger(revision)) return revision;
  }
  if (digits !== '' && BigInt(digits) > UINT64_MAX) return { error: `strconv.ParseUint: parsing ${goQuote(s)}: value out of range` };
  if (digits !== s || s === '') return { error: `strconv.ParseUint: parsing ${goQuote(s)}: invalid syntax` };
  return BigInt(s);
}

/** ParseResourceVersion's error: storage's InvalidError on `resourceVersion`. */
function parsedResourceVersion(resourceVersion: string): Revision | { error: string } {
  if (resourceVersion === '') return 0;
  const parsed = parseUint64(resourceVersion);
  if (typeof parsed !== 'object') return parsed;
  return { error: fieldErrorMessage(field.invalid('resourceVersion', resourceVersion, parsed.error)) };
}

/**
 * A resourceVersion as the cacher and etcd3 store's Get and Watch read it (ParseResourceVersion):
 * "" and "0" are 0; what is not a uint64 is storage's InvalidError, which is not a Status, so the
 * handlers answer a 500 without a reason (ErrorToAPIStatus).
 */
export function parseRevision(resourceVersion: string): Revision {
  const parsed = parsedResourceVersion(resourceVersion);
  if (typeof parsed === 'object') throw notAStatus(parsed.error);
  return parsed;
}

/** A list's resourceVersion (storage.ValidateListOptions) or etcd3 store's Get's minimum (validateMinimumResourceVersion): their 400. */
export function parseRequestedRevision(resourceVersion: string): Revision {
  const parsed = parsedResourceVersion(resourceVersion);
  if (typeof parsed === 'object') throw badRequest(`invalid resource version: ${parsed.error}`);
  return parsed;
}

/** An object's resourceVersion as Store.Update reads it (ObjectResourceVersion): "" is 0; strconv's own error a 500 without a reason. */
export function objectRevision(resourceVersion: string | undefined): Revision {
  if (resourceVersion === undefined || resourceVersion === '') return 0;
  const parsed = parseUint64(resourceVersion);
  if (typeof parsed === 'object') throw notAStatus(parsed.error);
  return parsed;
}

/**
 * A watch's options with a resourceVersion that reads as 0 ("00") spelled "0": Cacher.Watch and the
 * etcd3 watcher compare the parsed number, so "00" starts from the current state as "0" does.
 */
export function zeroAsZero<T extends { resourceVersion: string }>(opts: T): T {
  const rv = opts.resourceVersion;
  return rv !== '' && rv !== '0' && rv.charCodeAt(0) === 0x30 && parseRevision(rv) === 0 ? { ...opts, resourceVersion: '0' } : opts;
}
