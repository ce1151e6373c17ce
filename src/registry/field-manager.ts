import { jsonEqual } from '../api/deep-equal';
import { jsonClone } from '../api/json-clone';
import { deepFreeze } from '../api/deep-freeze';
import { noSlices } from '../api/loop-slices';
import { StatusError } from '../api/errors';
import { goJsonMarshal, goJsonMarshalOf } from '../api/go-json';
import { apiVersionOf, isPlainObject, type KubeObject, type ManagedFieldsEntry, type StatusCause } from '../api/types';
import { child, elements, fieldElement, FieldSet, type FieldPath } from '../schema/field-set';
import { changedFieldsV1, compare, compareInSlices, fieldSetOf, merge, prunedPathsOf, removePaths, type PrunedPaths } from '../schema/typed-ops';
import type { ObjectNode } from '../schema/typed-schema';
import { withGoZerosOfKind } from '../schema/go-zeros';
import { apiVersionOfDefinition, type ResourceDefinition } from './resource-definition';
import { exclusivePaths, ownedPath, subresourceView, type Subresource } from './subresources';
import { timestampAt } from './time';

/**
 * Field ownership (metadata.managedFields) as kube-apiserver's field manager keeps it: every
 * write records what it set under its manager; server-side apply merges a configuration,
 * removes what the applier stopped applying when no one else owns it, and refuses to change
 * fields another manager owns unless forced.
 */

interface Entry {
  manager: string;
  operation: 'Apply' | 'Update';
  apiVersion: string;
  time: string;
  subresource: string;
  set: FieldSet;
}

/** Fields no manager ever owns (stripMeta). */
const STRIPPED_PATHS: FieldPath[] = [
  'f:apiVersion',
  'f:kind',
  ...[
    'name',
    'namespace',
    'creationTimestamp',
    'selfLink',
    'uid',
    'generation',
    'managedFields',
    'resourceVersion',
    'deletionTimestamp',
    'deletionGracePeriodSeconds',
  ].map((f) => child(fieldElement('metadata'), fieldElement(f))),
];

const STRIPPED = FieldSet.of(STRIPPED_PATHS);

/** metadata itself, which is never owned: its fields are. */
const METADATA = FieldSet.of([fieldElement('metadata')]);
const METADATA_ELEMENTS: ReadonlySet<string> = new Set([fieldElement('metadata')]);

/** kubectl's client-side apply keeps what it applied here; its server-side apply takes over from it. */
const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';
const UNKNOWN_MANAGER = 'unknown';

/** The manager `kubectl apply --server-side` uses unless told otherwise. */
const KUBECTL = 'kubectl';

/** buildLastApplied: the applied configuration without the annotation itself. */
function lastAppliedOf(config: KubeObject): string {
  const copy = jsonClone(config);
  const annotations = copy.metadata.annotations;
  if (annotations) delete annotations[LAST_APPLIED];
  // runtime.Encode with the unstructured JSON scheme: encoding/json's Encoder, so newline-terminated.
  return `${goJsonMarshal(copy)}\n`;
}

function withoutManagedFields(meta: KubeObject['metadata']): KubeObject['metadata'] {
  const { managedFields: _managed, ...rest } = meta;
  return rest;
}

/** The entries without their times, in an order that does not depend on them. */
function withoutTimes(entries: ManagedFieldsEntry[]): ManagedFieldsEntry[] {
  const key = (e: ManagedFieldsEntry): string => `${e.manager ?? ''}\0${e.operation ?? ''}\0${e.subresource ?? ''}`;
  return entries.map(({ time: _time, ...rest }) => rest).sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
}

/**
 * IgnoreManagedFieldsTimestampsTransformer: an update whose object differs from the stored one only
 * in managedFields' times keeps the stored times, so it writes nothing (an unchanged re-apply).
 */
export function keepTimesOfNoOp(next: KubeObject, prev: KubeObject): void {
  const now = next.metadata.managedFields;
  const before = prev.metadata.managedFields;
  if (!now || !before || now.length !== before.length || !jsonEqual(withoutTimes(now), withoutTimes(before))) return;
  const { managedFields: _n, resourceVersion: _nrv, ...nextMeta } = next.metadata;
  const { managedFields: _p, resourceVersion: _prv, ...prevMeta } = prev.metadata;
  if (jsonEqual({ ...next, metadata: nextMeta }, { ...prev, metadata: prevMeta })) next.metadata.managedFields = before;
}

function pathOf(parts: string[]): FieldPath {
  return parts.reduce<FieldPath>((p, part) => child(p, fieldElement(part)), '');
}

/** fieldpath.Path.String(): ".spec.containers[name=\"c\"].image". */
export function describePath(path: FieldPath): string {
  return elements(path)
    .map((e) => {
      const body = e.slice(2);
      switch (e[0]) {
        case 'f':
          return `.${body}`;
        case 'k': {
          const keys = JSON.parse(body) as Record<string, unknown>;
          return `[${Object.entries(keys)
            .map(([k, v]) => `${k}=${JSON.stringify(v)}`)
            .join(',')}]`;
        }
        case 'v':
          return `[=${body}]`;
        default:
          return `[${body}]`;
      }
    })
    .join('');
}

function printManager(e: Entry): string {
  let s = JSON.stringify(e.manager);
  if (e.subresource) s += ` with subresource ${JSON.stringify(e.subresource)}`;
  if (e.operation === 'Update') s += ` using ${e.apiVersion}`;
  return s;
}

function conflictError(conflicts: { entry: Entry; path: FieldPath }[]): StatusError {
  const causes: StatusCause[] = conflicts.map((c) => ({
    reason: 'FieldManagerConflict',
    message: `conflict with ${printManager(c.entry)}`,
    field: describePath(c.path),
  }));
  let message: string;
  if (conflicts.length === 1) {
    message = `Apply failed with 1 conflict: conflict with ${printManager(conflicts[0].entry)}: ${describePath(conflicts[0].path)}`;
  } else {
    // getConflictMessage groups by the manager's identifier and sorts by it, not by the printed name.
    const byManager = new Map<string, { printed: string; paths: string[] }>();
    for (const c of conflicts) {
      const id = identifierOf(c.entry);
      const group = byManager.get(id) ?? { printed: printManager(c.entry), paths: [] };
      group.paths.push(describePath(c.path));
      byManager.set(id, group);
    }
    const lines: string[] = [];
    for (const id of [...byManager.keys()].sort(byBytes)) {
      const { printed, paths } = byManager.get(id)!;
      lines.push(`conflicts with ${printed}:`);
      for (const p of paths) lines.push(`- ${p}`);
    }
    message = `Apply failed with ${conflicts.length} conflicts: ${lines.join('\n')}`;
  }
  return new StatusError(409, 'Conflict', message, { causes });
}

export class FieldManager {
  /** What a write of the main resource never claims: stripped metadata and the subresources' exclusive parts (the kind's resetFields). */
  private readonly untracked: FieldSet;
  /** The same paths as a tree, for a create's one walk. */
  private readonly untrackedTree: PrunedPaths;
  /** The part each subresource owns, as a path. */
  private readonly owned = new Map<Subresource, FieldPath>();
  /** The kind's new Go object, built on first use and shared (frozen) by every create's comparison. */
  private empty: KubeObject | null = null;

  constructor(
    private readonly def: ResourceDefinition,
    private readonly schema: ObjectNode,
    /** The time a managed fields entry records: the store's clock. */
    private readonly nowTimestamp: () => string,
  ) {
    const untracked = [...STRIPPED_PATHS, ...exclusivePaths(def).map(pathOf)];
    this.untracked = FieldSet.of(untracked);
    this.untrackedTree = prunedPathsOf(untracked);
  }

  /** Paths a write through `subresource` never claims: stripped metadata, and what other parts own. */
  private tracked(set: FieldSet, subresource: '' | Subresource): FieldSet {
    if (set.empty) return set;
    if (!subresource) return set.withoutPrefixes(this.untracked).difference(METADATA);
    let owned = this.owned.get(subresource);
    if (owned === undefined) this.owned.set(subresource, (owned = pathOf(ownedPath(this.def, subresource))));
    return set.withoutPrefixes(STRIPPED).difference(METADATA).onlyPrefixes([owned]);
  }

  /**
   * Through a subresource with a kind of its own (scale), kube-apiserver converts every entry to
   * that kind's version before applying, so conflicts name it: "kubectl" using autoscaling/v1.
   */
  private asSeenThrough(conflicts: { entry: Entry; path: FieldPath }[], subresource: '' | Subresource): { entry: Entry; path: FieldPath }[] {
    const view = subresourceView(this.def, subresource);
    if (!view) return conflicts;
    const apiVersion = apiVersionOf(view.kind);
    return conflicts.map((c) => ({ ...c, entry: { ...c.entry, apiVersion } }));
  }

  private decode(entries: ManagedFieldsEntry[] | undefined): Entry[] {
    return (entries ?? []).map((e) => ({
      manager: e.manager ?? '',
      operation: e.operation ?? 'Update',
      apiVersion: e.apiVersion ?? apiVersionOfDefinition(this.def),
      // metav1.Time: read as RFC 3339, kept as UTC seconds
      time: e.time && !Number.isNaN(Date.parse(e.time)) ? timestampAt(Date.parse(e.time) / 1000) : '',
      subresource: e.subresource ?? '',
      set: FieldSet.fromFieldsV1(e.fieldsV1),
    }));
  }

  private store(obj: KubeObject, entries: Entry[]): void {
    const kept = keptInOrder(entries);
    written(
      obj,
      kept,
      kept.map((e) => e.set.toFieldsV1()),
    );
  }

  /** store, yielding to the event loop while it writes the FieldsV1 of a huge object. */
  private async storeInSlices(obj: KubeObject, entries: Entry[], slice: () => Promise<void>): Promise<void> {
    const kept = keptInOrder(entries);
    const trees: Record<string, unknown>[] = [];
    for (const e of kept) trees.push(await e.set.toFieldsV1InSlices(slice));
    written(obj, kept, trees);
  }

  /**
   * The ownership a write starts from, as kube's decodeLiveOrNew: the client's own managedFields
   * when it sent some through the main resource ([] or [{}] resets), else the live object's. Sent entries DecodeManagedFields
   * refuses are not an error but ignored whole, so a client that mangles managedFields cannot lose them.
   */
  private starting(next: KubeObject, live: KubeObject | null, subresource: '' | Subresource): Entry[] {
    // ignoreManagedFieldsFromRequestObject: through a subresource, managedFields cannot be written.
    if (subresource) return this.decode(live?.metadata.managedFields);
    const sent = next.metadata.managedFields;
    if (sent && sent.length === 1 && isPlainObject(sent[0]) && Object.keys(sent[0]).length === 0) return [];
    return this.decode(sent && sent.every(decodable) ? sent : live?.metadata.managedFields);
  }

  /**
   * What kube-apiserver compares a create with: a new Go object of the kind, whose non-pointer
   * structs are there already, so a create owns `f:spec` without a `.` of its own.
   */
  private emptyObject(): KubeObject {
    return (this.empty ??= deepFreeze(withGoZerosOfKind(apiVersionOfDefinition(this.def), this.def.kind, { metadata: {} } as KubeObject)));
  }

  /**
   * Records a create, update or patch by the `requested` manager (operation Update) in next.metadata.managedFields;
   * `slice` lets the event loop in between the comparison and the bookkeeping of a huge object.
   */
  async update(live: KubeObject | null, next: KubeObject, requested: string, subresource: '' | Subresource, slice = noSlices): Promise<void> {
    // buildManagerInfo: a request that names no manager (no fieldManager, no user agent) is recorded as `unknown`
    const manager = requested || UNKNOWN_MANAGER;
    const entries = this.starting(next, live, subresource);
    // The typed objects kube compares carry Go's zero values on both sides.
    withGoZerosOfKind(apiVersionOfDefinition(this.def), this.def.kind, next);
    if (!live && !subresource && entries.length === 0 && this.createdAtOnce(next, manager)) return;
    await slice();
    const cmp = await compareInSlices(live ?? this.emptyObject(), next, this.schema, slice);
    await slice();
    const changed = this.tracked(cmp.added.union(cmp.modified), subresource);
    const removed = this.tracked(cmp.removed, subresource);
    for (const e of entries) e.set = e.set.difference(changed).difference(removed);
    if (!changed.empty) {
      // BuildManagerIdentifier: an updater's entry is its manager's at the request's version, so a write through another version starts one of its own.
      const apiVersion = apiVersionOfDefinition(this.def);
      let own = entries.find((e) => e.manager === manager && e.operation === 'Update' && e.subresource === subresource && e.apiVersion === apiVersion);
      if (!own) entries.push((own = { manager, operation: 'Update', apiVersion, time: '', subresource, set: new FieldSet() }));
      own.set = own.set.union(changed);
      own.time = this.nowTimestamp();
    }
    await slice();
    await this.storeInSlices(next, capUpdateManagers(entries.filter((e) => !e.set.empty)), slice);
  }

  /**
   * A create that brings no managedFields owns what it sets over the kind's new object, under one
   * Update entry: written in one walk when the object is small enough to walk at once (false otherwise).
   */
  private createdAtOnce(next: KubeObject, manager: string): boolean {
    const tree = changedFieldsV1(this.emptyObject(), next, this.schema, this.untrackedTree, METADATA_ELEMENTS);
    if (tree === undefined) return false;
    const entry = {
      manager,
      operation: 'Update' as const,
      apiVersion: apiVersionOfDefinition(this.def),
      time: tree ? this.nowTimestamp() : '',
      subresource: '',
    };
    written(next, tree ? [entry] : [], tree ? [tree] : []);
    return true;
  }

  /**
   * Server-side apply of `config` onto `live` (absent for a create). Returns the merged object with
   * its managedFields, or throws a 409 naming every conflicting field unless `force`.
   */
  apply(live: KubeObject | null, config: KubeObject, manager: string, force: boolean, subresource: '' | Subresource): KubeObject {
    const entries = this.decode(live?.metadata.managedFields);
    const base = live ? jsonClone(live) : undefined;
    if (base) delete base.metadata.managedFields;
    const merged = merge(base, config, this.schema) as KubeObject;
    const applied = this.tracked(fieldSetOf(config, this.schema), subresource);
    const own = entries.find((e) => e.manager === manager && e.operation === 'Apply' && e.subresource === subresource);
    const others = entries.filter((e) => e !== own);
    if (own) {
      const dropped = [...own.set.difference(applied).paths].filter((p) => !others.some((o) => o.set.touches(p)) && !applied.touches(p));
      removePaths(merged, dropped, this.schema);
    }
    // managedFields are the field manager's own record, not a field anyone applies.
    const before = live ? { ...live, metadata: withoutManagedFields(live.metadata) } : this.emptyObject();
    const cmp = compare(before, merged, this.schema);
    const changed = this.tracked(cmp.added.union(cmp.modified), subresource);
    const conflicts = others.flatMap((e) =>
      e.set
        .intersection(changed)
        .inIterationOrder()
        .map((path) => ({ entry: e, path })),
    );
    if (conflicts.length > 0 && !force) {
      const remaining = this.notFromClientSideApply(live, manager, conflicts);
      if (remaining.length > 0) throw conflictError(this.asSeenThrough(remaining, subresource));
    }
    const removed = this.tracked(cmp.removed, subresource);
    for (const e of others) e.set = e.set.difference(changed).difference(removed);
    const entry: Entry = own ?? { manager, operation: 'Apply', apiVersion: '', time: '', subresource, set: new FieldSet() };
    // An applier has one entry whatever version it applies through, recorded at the last one (Updater.Apply's NewVersionedSet).
    entry.apiVersion = apiVersionOfDefinition(this.def);
    entry.set = applied;
    // managedFieldsUpdater.Apply stamps the time only when the object changed: an apply that only
    // takes ownership keeps its time (a first one has none), and a re-apply is a no-op.
    if (!(cmp.added.empty && cmp.modified.empty && cmp.removed.empty)) entry.time = this.nowTimestamp();
    this.store(merged, own ? entries : [...entries, entry]);
    // lastAppliedUpdater: a later client-side apply must see what kubectl last applied, whichever way.
    if (manager === KUBECTL && merged.metadata.annotations?.[LAST_APPLIED] !== undefined) merged.metadata.annotations[LAST_APPLIED] = lastAppliedOf(config);
    return merged;
  }

  /**
   * lastAppliedManager: the manager kubectl may take, without conflict, the fields its
   * client-side apply last applied that still hold the applied values (the last-applied
   * annotation's field set less what changed since); the conflicts left are reported.
   */
  private notFromClientSideApply<C extends { path: FieldPath }>(live: KubeObject | null, manager: string, conflicts: C[]): C[] {
    const text = live?.metadata.annotations?.[LAST_APPLIED];
    if (manager !== KUBECTL || !text) return conflicts;
    let lastApplied: KubeObject;
    try {
      lastApplied = JSON.parse(text) as KubeObject;
    } catch {
      return conflicts;
    }
    if (typeof lastApplied !== 'object' || lastApplied === null || lastApplied.apiVersion !== apiVersionOfDefinition(this.def)) return conflicts;
    // Fields that differ between the annotation and the live object, either way, were not kubectl's.
    // The annotation is compared as the server stored it: defaulted (a fieldRef's apiVersion v1).
    const stored = jsonClone(lastApplied);
    this.def.strategy.applyDefaults(stored);
    const since = compare(withGoZerosOfKind(apiVersionOfDefinition(this.def), this.def.kind, stored), live!, this.schema);
    const allowed = fieldSetOf(lastApplied, this.schema).difference(since.modified).difference(since.added).difference(since.removed);
    return conflicts.filter((c) => !allowed.has(c.path));
  }
}

/** DefaultMaxUpdateManagers: Update entries beyond these are merged into `ancient-changes`. */
const MAX_UPDATE_MANAGERS = 10;
const ANCIENT_CHANGES = 'ancient-changes';

/** DecodeManagedFields' checks of an entry: a known operation, an apiVersion and FieldsV1. */
function decodable(e: ManagedFieldsEntry): boolean {
  return isPlainObject(e) && (e.operation === 'Apply' || e.operation === 'Update') && !!e.apiVersion && e.fieldsType === 'FieldsV1';
}

/** BuildManagerIdentifier: the entry's JSON without time and fields (and apiVersion for an applier), which breaks ties in time. */
function identifierOf(e: Entry): string {
  // a Go struct: fields in their declared order, empty ones left out
  return goJsonMarshalOf(
    {
      manager: e.manager || undefined,
      operation: e.operation,
      apiVersion: e.operation === 'Apply' ? undefined : e.apiVersion || undefined,
      subresource: e.subresource || undefined,
    },
    () => false,
  );
}

/** Go's string order: by UTF-8 bytes. */
function byBytes(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a), Buffer.from(b));
}

function secondsOf(time: string): number {
  return Math.floor(Date.parse(time) / 1000) || 0;
}

/**
 * capManagersManager: past 10 Update entries, the oldest (by second, then identifier) are merged
 * into one `ancient-changes` entry per apiVersion, taking the time of the last merged. As kube's,
 * the first old entry of a version becomes that bucket when a second one comes and none exists.
 */
function capUpdateManagers(entries: Entry[]): Entry[] {
  const updaters = entries.filter((e) => e.operation === 'Update');
  if (updaters.length <= MAX_UPDATE_MANAGERS) return entries;
  updaters.sort((a, b) => secondsOf(a.time) - secondsOf(b.time) || byBytes(identifierOf(a), identifierOf(b)));
  const firstOfVersion = new Map<string, Entry>();
  const merged = new Set<Entry>();
  let kept = updaters.length;
  for (const e of updaters) {
    if (kept <= MAX_UPDATE_MANAGERS) break;
    const first = firstOfVersion.get(e.apiVersion);
    if (!first) {
      firstOfVersion.set(e.apiVersion, e);
      continue;
    }
    let bucket = entries.find(
      (b) => !merged.has(b) && b.manager === ANCIENT_CHANGES && b.operation === 'Update' && b.apiVersion === e.apiVersion && !b.subresource,
    );
    if (!bucket) {
      bucket = first;
      first.manager = ANCIENT_CHANGES;
      first.subresource = '';
    }
    bucket.set = e.set.union(bucket.set);
    bucket.time = e.time;
    merged.add(e);
    kept--;
  }
  return entries.filter((e) => !merged.has(e));
}

/** The entries with fields, in the order sortEncodedManagedFields keeps them: by operation, second, manager, apiVersion, subresource. */
function keptInOrder(entries: Entry[]): Entry[] {
  const kept = entries.filter((e) => !e.set.empty);
  kept.sort(
    (p, q) =>
      byBytes(p.operation, q.operation) ||
      secondsOf(p.time) - secondsOf(q.time) ||
      byBytes(p.manager, q.manager) ||
      byBytes(p.apiVersion, q.apiVersion) ||
      byBytes(p.subresource, q.subresource),
  );
  return kept;
}

/** Sets obj's managedFields to the kept entries with their FieldsV1 trees (none: no managedFields). */
function written(obj: KubeObject, kept: Omit<Entry, 'set'>[], trees: Record<string, unknown>[]): void {
  if (kept.length === 0) {
    delete obj.metadata.managedFields;
    return;
  }
  obj.metadata.managedFields = kept.map((e, i) => ({
    manager: e.manager,
    operation: e.operation,
    apiVersion: e.apiVersion,
    ...(e.time ? { time: e.time } : {}),
    fieldsType: 'FieldsV1',
    fieldsV1: trees[i],
    ...(e.subresource ? { subresource: e.subresource } : {}),
  }));
}
