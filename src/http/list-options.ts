import type { CallSignal } from '../api/request-abort';
import { badRequest, invalid } from '../api/errors';
import { parseLabelSelector, parseLabelSelectorInSlices } from '../api/label-selector';
import { parseFieldSelector } from '../api/field-selector';
import { loopSlices } from '../api/loop-slices';
import { field, type FieldErrorList } from '../api/field-errors';
import { groupResource, type ResourceDefinition } from '../registry/resource-definition';
import { interpretStorageError } from '../registry/storage-errors';
import { selectionPredicate } from '../registry/predicate';
import { decodeContinue } from '../storage/continue-token';
import type { ListOptions } from '../storage/interfaces';
import { parseRequestedRevision, parseRevision } from '../storage/revision';
import { MAX_TIMER_MS } from './filters/request-deadline';
import { boolParam, intParam } from './query';

export interface WatchListOptions extends ListOptions {
  allowWatchBookmarks: boolean;
  /** undefined when the client did not send the parameter. */
  sendInitialEvents: boolean | undefined;
  timeoutSeconds: number | undefined;
}

function optionalBool(query: URLSearchParams, name: string): boolean | undefined {
  return query.has(name) ? boolParam(query, name) : undefined;
}

/**
 * metainternalversion.SetListOptionsDefaults, with the WatchList gate on (as by default since 1.34): a watch from
 * "" or "0" that asks for neither sendInitialEvents nor a resourceVersionMatch becomes a streaming list
 * (sendInitialEvents=true, NotOlderThan). Its initial events then end with the initial-events-end bookmark, and
 * its continue parameter meets validation's "resourceVersionMatch is forbidden when continue is provided".
 */
function setListOptionsDefaults(opts: WatchListOptions): void {
  if (opts.sendInitialEvents !== undefined || opts.match !== '') return;
  if (opts.resourceVersion === '' || opts.resourceVersion === '0') {
    opts.sendInitialEvents = true;
    opts.match = 'NotOlderThan';
  }
}

/** ListOptions validation (metainternalversion), for list and for watch. */
function validate(opts: WatchListOptions, watch: boolean, watchListEnabled: boolean): FieldErrorList {
  const errs: FieldErrorList = [];
  const { resourceVersion } = opts;
  const match: string = opts.match;
  if (watch) {
    if (opts.sendInitialEvents !== undefined && match !== 'NotOlderThan') {
      errs.push(field.forbidden('resourceVersionMatch', 'sendInitialEvents requires setting resourceVersionMatch to NotOlderThan'));
    }
    if (opts.sendInitialEvents !== undefined && !watchListEnabled) {
      errs.push(field.forbidden('sendInitialEvents', 'sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled'));
    }
    if (match) {
      if (opts.sendInitialEvents === undefined) {
        errs.push(field.forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided'));
      }
      if (match !== 'NotOlderThan') errs.push(field.notSupported('resourceVersionMatch', match, ['NotOlderThan']));
      if (opts.continue) errs.push(field.forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden when continue is provided'));
    }
    return errs;
  }
  if (match) {
    if (!resourceVersion) errs.push(field.forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden unless resourceVersion is provided'));
    if (opts.continue) errs.push(field.forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden when continue is provided'));
    if (match !== 'Exact' && match !== 'NotOlderThan') errs.push(field.notSupported('resourceVersionMatch', match, ['Exact', 'NotOlderThan', '']));
    if (match === 'Exact' && resourceVersion === '0') {
      errs.push(field.forbidden('resourceVersionMatch', 'resourceVersionMatch "exact" is forbidden for resourceVersion "0"'));
    }
  }
  if (opts.sendInitialEvents !== undefined) errs.push(field.forbidden('sendInitialEvents', 'sendInitialEvents is forbidden for list'));
  return errs;
}

/** timeoutSeconds as an int64; a watch longer than a node timer can wait (some 24 days) lasts that long. */
function watchTimeoutSeconds(query: URLSearchParams): number | undefined {
  const seconds = intParam(query, 'timeoutSeconds');
  return seconds === undefined ? undefined : Math.min(seconds, Math.floor(MAX_TIMER_MS / 1000));
}

/** Reads and validates list/watch query parameters, with kube-apiserver's 400 and 422 answers. */
/** `signal` is the request's, carried to storage (the read ends with the request). */
/** Label selectors longer than this are parsed in slices (400,000 terms took 0.3-1.2 s in one piece). */
const LONG_LABEL_SELECTOR = 16 * 1024;

/** storage.DecodeContinue's verdict on a token, as the registry words a storage error. */
function validContinue(token: string, def: ResourceDefinition): void {
  try {
    decodeContinue(token);
  } catch (err) {
    throw interpretStorageError(err, groupResource(def), '', 'list');
  }
}

/**
 * Which request reads the options. A DELETE on a collection decodes ListOptions, watch parameter
 * included, and defaults and validates them as kube's DeleteCollection handler does: as a watch's
 * when watch is set. The store then lists with them.
 */
export type ListOptionsReader = 'list' | 'watch' | 'deletecollection';

export async function parseListOptions(
  query: URLSearchParams,
  def: ResourceDefinition,
  reader: ListOptionsReader,
  signal: CallSignal,
  /** The WatchList feature gate, which turns on SetListOptionsDefaults. */
  watchListEnabled = false,
): Promise<WatchListOptions> {
  const watch = reader === 'watch';
  const watchOptions = watch || (reader === 'deletecollection' && boolParam(query, 'watch'));
  // listOpts (handlers/get.go; DeleteCollection alike) answers in three steps. First DecodeParameters, whose 400s
  // come in the order url.Values convert to v1.ListOptions (timeoutSeconds, then limit) and then to the internal
  // ListOptions (the label selector, then the field selector).
  const timeoutSeconds = watchTimeoutSeconds(query);
  const limit = intParam(query, 'limit');
  const labelSelector = query.get('labelSelector') ?? '';
  const labels = labelSelector.length > LONG_LABEL_SELECTOR ? await parseLabelSelectorInSlices(labelSelector, loopSlices()) : parseLabelSelector(labelSelector);
  const fieldSelector = query.get('fieldSelector') ?? '';
  const fields = parseFieldSelector(fieldSelector);
  const opts: WatchListOptions = {
    resourceVersion: query.get('resourceVersion') ?? '',
    // any string until validate() refuses what is neither Exact nor NotOlderThan, with the other problems
    match: (query.get('resourceVersionMatch') ?? '') as WatchListOptions['match'],
    limit: limit !== undefined && limit > 0 ? limit : undefined,
    continue: query.get('continue') ?? undefined,
    // placeholder until the field labels are converted, after validation
    predicate: { empty: true, matches: () => true },
    allowWatchBookmarks: boolParam(query, 'allowWatchBookmarks'),
    sendInitialEvents: optionalBool(query, 'sendInitialEvents'),
    timeoutSeconds,
    signal,
  };
  if (watchOptions && watchListEnabled) setListOptionsDefaults(opts);
  // Then ValidateListOptions, every problem in one 422; then the field-label conversion (400).
  const errs = validate(opts, watchOptions, watchListEnabled);
  if (errs.length > 0) throw invalid({ group: 'meta.k8s.io', kind: 'ListOptions' }, '', errs);
  opts.predicate = selectionPredicate(def, labelSelector, fieldSelector, labels, fields);
  // cacher.Watch reads it as storage does; a list's is checked by storage.ValidateListOptions, after a continue token.
  if (watch) parseRevision(opts.resourceVersion);
  else if (!opts.continue) parseRequestedRevision(opts.resourceVersion);
  if (opts.continue && opts.resourceVersion !== '' && opts.resourceVersion !== '0') {
    // storage.ValidateListOptions decodes a list's continue token before it looks at the resourceVersion beside it.
    if (!watch) validContinue(opts.continue, def);
    throw badRequest('specifying resource version is not allowed when using continue');
  }
  return opts;
}
