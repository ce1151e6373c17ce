import type { ObjectStore } from '../../registry/types';
import { jsonEqual } from '../../api/deep-equal';
import { isStatusError } from '../../api/errors';
import type { KubeObject } from '../../api/types';
import type { ControllerRevision } from '../../generated/types/apps/v1';
import type { PodTemplateSpec } from '../../generated/types/core/v1';
import type { RequestContext } from '../../registry/request-context';
import { withGoZeros } from '../../schema/go-zeros';
import { controllerRefOf } from '../pods/controller-ref';
import { systemReadContext } from '../../registry/request-context';
import { jsonClone } from '../../api/json-clone';
import { compareGoStrings } from '../../api/go-string-order';

/** history.ControllerRevisionHashLabel: the hash a StatefulSet's revisions carry. */
export const REVISION_HASH_LABEL = 'controller.kubernetes.io/hash';
/** apps.ControllerRevisionHashLabelKey: a pod's revision (StatefulSet and DaemonSet pods alike). */
export const POD_REVISION_LABEL = 'controller-revision-hash';

const SAFE_ALPHANUMS = 'bcdfghjklmnpqrstvwxz2456789';

/** rand.SafeEncodeString: no vowels, so a hash never spells a word. */
const safeEncode = (s: string): string => [...s].map((c) => SAFE_ALPHANUMS[c.charCodeAt(0) % SAFE_ALPHANUMS.length]).join('');

/** A JSON value with every object's keys sorted, as Go's json.Marshal writes a map. */
export function sortedJson<T>(value: T): T {
  if (Array.isArray(value)) return value.map(sortedJson) as T;
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) out[key] = sortedJson((value as Record<string, unknown>)[key]);
  return out as T;
}

/**
 * controller.ComputeHash and history.HashControllerRevision: FNV-32a of the value and the collision
 * count, safe-encoded. kube hashes Go's printed struct; this hashes the sorted JSON (a divergence).
 */
export function computeHash(value: unknown, collisionCount: number | undefined): string {
  let hash = 0x811c9dc5;
  const feed = (byte: number): void => {
    hash = Math.imul(hash ^ byte, 0x01000193) >>> 0;
  };
  for (const byte of Buffer.from(JSON.stringify(sortedJson(value)))) feed(byte);
  if (collisionCount !== undefined) for (let i = 0; i < 4; i++) feed((collisionCount >>> (8 * i)) & 0xff);
  return safeEncode(String(hash));
}

/**
 * The data kube keeps in a StatefulSet's or DaemonSet's revision (getPatch): the template as a
 * strategic merge patch that replaces it whole, keys sorted, so that kubectl's `rollout undo` can
 * apply it and compare it byte for byte with the one it makes from the live object (which Go's
 * encoder writes with its zero values: `creationTimestamp: null`, `resources: {}`).
 */
export const templatePatch = (template: PodTemplateSpec | undefined): Record<string, unknown> =>
  sortedJson({ spec: { template: { ...withGoZeros('k8s.io.api.core.v1.PodTemplateSpec', jsonClone(template ?? {})), $patch: 'replace' } } });

/** The template a revision holds (ApplyRevision: the patch replaces the whole template). */
export function templateOf(revision: ControllerRevision): PodTemplateSpec {
  const spec = (revision.data as { spec?: { template?: Record<string, unknown> } } | undefined)?.spec;
  const { $patch: _replace, ...template } = spec?.template ?? {};
  return template as PodTemplateSpec;
}

/** The revisions an owner controls, oldest revision number first, then oldest created, then by name (history.SortControllerRevisions). */
export function revisionsOf(revisions: ControllerRevision[], owner: KubeObject): ControllerRevision[] {
  return revisions
    .filter((r) => r.metadata.namespace === owner.metadata.namespace && controllerRefOf(r)?.uid === owner.metadata.uid)
    .sort(
      (a, b) =>
        (a.revision ?? 0) - (b.revision ?? 0) ||
        compareGoStrings(a.metadata.creationTimestamp ?? '', b.metadata.creationTimestamp ?? '') ||
        compareGoStrings(a.metadata.name ?? '', b.metadata.name ?? ''),
    );
}

/**
 * history.EqualRevision: the same data. (kube first compares hash labels parsed as numbers; its
 * safe-encoded hashes never parse, so data alone decides.)
 */
export const equalRevision = (a: ControllerRevision, b: ControllerRevision): boolean => jsonEqual(a.data, b.data);

/** nextRevision: one past the highest. */
export const nextRevision = (revisions: ControllerRevision[]): number => Math.max(0, ...revisions.map((r) => r.revision ?? 0)) + 1;

/** The revisions pods are at (their controller-revision-hash labels): history that must stay. */
export const podRevisionsInUse = (pods: KubeObject[]): Set<string> =>
  new Set(pods.map((pod) => pod.metadata.labels?.[POD_REVISION_LABEL]).filter((r): r is string => !!r));

/** Where a history writes: its store and the context of the controller's writes. */
export interface HistoryWriter {
  revisions: ObjectStore;
  context(namespace: string): RequestContext;
}

const NOT_DRY_RUN = { dryRun: false } as const;

/**
 * history.CreateControllerRevision: `build` names the revision from its hash and the collision
 * count; a name taken by a revision of other data is a collision, so the count goes up and the
 * revision is built again. Resolves the revision stored (a taken name of equal data is that
 * revision) and the collision count.
 */
export async function createRevision(
  writer: HistoryWriter,
  build: (collisionCount: number) => ControllerRevision,
  collisionCount: number,
): Promise<{ revision: ControllerRevision; collisionCount: number }> {
  for (let count = collisionCount; ; count++) {
    const candidate = build(count);
    const namespace = candidate.metadata.namespace ?? '';
    try {
      return { revision: (await writer.revisions.create(writer.context(namespace), candidate, NOT_DRY_RUN)) as ControllerRevision, collisionCount: count };
    } catch (err) {
      if (!isStatusError(err) || err.code !== 409) throw err;
      const existing = (await writer.revisions.get(systemReadContext(namespace), candidate.metadata.name ?? '', {
        resourceVersion: '',
        match: '',
      })) as ControllerRevision;
      if (equalRevision(existing, candidate) && controllerRefOf(existing)?.uid === controllerRefOf(candidate)?.uid) {
        return { revision: existing, collisionCount: count };
      }
    }
  }
}

/** history.UpdateControllerRevision: gives an existing revision a new number (a rollback to it makes it the newest). */
export async function renumberRevision(writer: HistoryWriter, revision: ControllerRevision, number: number): Promise<ControllerRevision> {
  if (revision.revision === number) return revision;
  const { object } = await writer.revisions.update(
    writer.context(revision.metadata.namespace ?? ''),
    revision.metadata.name ?? '',
    (current) => ({ ...current, revision: number }) as ControllerRevision,
    NOT_DRY_RUN,
  );
  return object as ControllerRevision;
}

/** Deletes a revision; one already gone is fine. */
export async function deleteRevision(writer: HistoryWriter, revision: ControllerRevision): Promise<void> {
  try {
    await writer.revisions.delete(writer.context(revision.metadata.namespace ?? ''), revision.metadata.name ?? '', { dryRun: false });
  } catch (err) {
    if (!isStatusError(err) || err.code !== 404) throw err;
  }
}

/**
 * truncateHistory (StatefulSet and DaemonSet alike): the revisions no live pod or status names are
 * history; all but the newest `limit` of them (default 10) are deleted, oldest first.
 */
export async function truncateHistory(writer: HistoryWriter, revisions: ControllerRevision[], live: Set<string>, limit = 10): Promise<void> {
  const history = revisions.filter((r) => !live.has(r.metadata.name ?? ''));
  for (const revision of history.slice(0, Math.max(0, history.length - limit))) await deleteRevision(writer, revision);
}
