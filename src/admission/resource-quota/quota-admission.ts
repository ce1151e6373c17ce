import { forbidden, isStatusError, type StatusError } from '../../api/errors';
import { isPlainObject, type KubeObject } from '../../api/types';
import type { AdmissionAttributes, AdmissionPlugin } from '../admission';
import {
  addLists,
  exceededNames,
  listsEqual,
  listText,
  maskList,
  resourceListJson,
  resourceListOf,
  subtractNonNegative,
  withoutZeros,
  type ResourceList,
} from './amounts';
import { evaluatorFor, quotaMatches, quotaScopes, type QuotaEvaluator } from './evaluators';

/** Reads and charges a namespace's quotas. */
export interface QuotaAccess {
  /** The namespace's quotas: from the watch cache, or from etcd when `live`. */
  list(namespace: string, live: boolean): Promise<KubeObject[]>;
  /** Writes status.used, guarded by the quota's resourceVersion; a StatusError 409 when it moved. */
  updateStatus(quota: KubeObject): Promise<KubeObject>;
}

/** controller.go: checkQuotas is tried this many more times after conflicts. */
const RETRIES = 3;
/** quotaAccessor's liveTTL: a namespace whose cache shows no quota is looked up live this often at most. */
const LIVE_TTL_MS = 30_000;
/** The size of quotaAccessor's LRUs (live lookups, quotas charged). */
const REMEMBERED = 10_000;

/** Sets a key in a map bounded to REMEMBERED entries, forgetting the oldest. */
function remember<T>(map: Map<string, T>, key: string, value: T): void {
  map.delete(key);
  map.set(key, value);
  if (map.size > REMEMBERED) map.delete(map.keys().next().value!);
}

/** A quota as admission works on it: its object, and hard and used parsed. */
interface Charge {
  quota: KubeObject;
  hard: ResourceList;
  used: ResourceList;
}

const chargeOf = (quota: KubeObject): Charge => {
  const status = isPlainObject(quota.status) ? quota.status : {};
  return { quota, hard: resourceListOf(status.hard), used: resourceListOf(status.used) };
};

/** etcd revisions, compared as numbers (storage's CompareResourceVersion). */
const newer = (a: KubeObject, b: KubeObject): boolean => BigInt(a.metadata.resourceVersion ?? '0') > BigInt(b.metadata.resourceVersion ?? '0');

/** admission.NewForbidden: named by the object's name, else its generateName, else "Unknown". */
function refuse(attrs: AdmissionAttributes, message: string): StatusError {
  const meta = attrs.object?.metadata;
  return forbidden({ group: attrs.def.group, resource: attrs.def.resource }, meta?.name || meta?.generateName || 'Unknown', message);
}

/**
 * kube's quota CheckRequest for one write: the quotas it falls under must know their usage, allow
 * what it adds, and (for cpu and memory) see it name what they limit. Returns the quotas charged.
 */
function checkRequest(charges: Charge[], attrs: AdmissionAttributes, evaluator: QuotaEvaluator, now: number): Charge[] {
  const object = attrs.object!;
  const interesting: number[] = [];
  charges.forEach((charge, i) => {
    const hardNames = [...charge.hard.keys()];
    if (!quotaMatches(evaluator, hardNames, quotaScopes(charge.quota), object)) return;
    const restricted = evaluator.matchingResources(hardNames);
    const problem = evaluator.constraints(restricted, object);
    if (problem) throw refuse(attrs, `failed quota: ${charge.quota.metadata.name}: ${problem}`);
    // hasUsageStats: a quota whose usage the controller has not counted yet cannot decide.
    if (restricted.some((r) => charge.hard.has(r) && !charge.used.has(r))) {
      throw refuse(attrs, `status unknown for quota: ${charge.quota.metadata.name}, resources: ${[...restricted].sort().join(',')}`);
    }
    interesting.push(i);
  });
  if (interesting.length === 0) return charges;
  const usage = evaluator.usage(object, now);
  const negative = [...usage].filter(([, a]) => a.nanos < 0n).map(([n]) => n);
  if (negative.length > 0) throw refuse(attrs, `quota usage is negative for resource(s): ${negative.sort().join(',')}`);
  const deltas = new Map<number, ResourceList>(interesting.map((i) => [i, usage]));
  if (attrs.operation === 'UPDATE' && attrs.oldObject?.metadata.resourceVersion) {
    // An update is charged what it adds to the stored object, for quotas the stored object was under.
    const delta = subtractNonNegative(usage, evaluator.usage(attrs.oldObject, now));
    for (const i of interesting) {
      if (quotaMatches(evaluator, charges[i].hard.keys(), quotaScopes(charges[i].quota), attrs.oldObject)) deltas.set(i, delta);
    }
  }
  const out = [...charges];
  for (const i of interesting) {
    const delta = withoutZeros(deltas.get(i)!);
    if (delta.size === 0) continue;
    const { quota, hard, used } = charges[i];
    const requested = maskList(delta, hard.keys());
    const next = addLists(used, requested);
    const exceeded = exceededNames(maskList(next, requested.keys()), hard);
    if (exceeded.length > 0) {
      throw refuse(
        attrs,
        `exceeded quota: ${quota.metadata.name}, requested: ${listText(maskList(requested, exceeded))}, used: ${listText(maskList(used, exceeded))}, limited: ${listText(maskList(hard, exceeded))}`,
      );
    }
    out[i] = { quota, hard, used: next };
  }
  return out;
}

/**
 * The ResourceQuota admission plugin (k8s.io/apiserver's plugin/resourcequota): a create or
 * update that adds usage under a namespace's quotas is refused when it would exceed one, and
 * otherwise charged to the quotas' status.used before it is stored, with writes guarded by
 * resourceVersion so that replicas admitting at once cannot both spend the last unit. Writes in one
 * namespace are checked one at a time in this process, as kube's per-namespace work queue does.
 */
export class ResourceQuotaAdmission implements AdmissionPlugin {
  readonly name = 'ResourceQuota';
  private readonly namespaceTurns = new Map<string, Promise<void>>();
  /** Quotas this process charged, newer than its cache may be yet (quotaAccessor.updatedQuotas). */
  private readonly charged = new Map<string, KubeObject>();
  private readonly liveLookups = new Map<string, { until: number; items: KubeObject[] }>();

  constructor(
    private readonly quotas: QuotaAccess,
    private readonly now: () => number = Date.now,
  ) {}

  async validate(attrs: AdmissionAttributes): Promise<void> {
    if (attrs.subresource !== '' || !attrs.namespace || !attrs.object) return;
    const evaluator = evaluatorFor(attrs.def.group, attrs.def.resource);
    if (!evaluator.handles(attrs.operation, attrs.subresource)) return;
    // A namespace without quotas needs no turn: nothing is charged there.
    if ((await this.list(attrs.namespace)).length === 0) return;
    await this.inTurn(attrs.namespace, () => this.evaluate(attrs, evaluator));
  }

  /** Runs `fn` after every earlier evaluation in the namespace has finished. */
  private async inTurn(namespace: string, fn: () => Promise<void>): Promise<void> {
    const before = this.namespaceTurns.get(namespace) ?? Promise.resolve();
    const mine = before.then(fn, fn);
    const settled = mine.then(
      () => undefined,
      () => undefined,
    );
    this.namespaceTurns.set(namespace, settled);
    try {
      await mine;
    } finally {
      if (this.namespaceTurns.get(namespace) === settled) this.namespaceTurns.delete(namespace);
    }
  }

  /** checkQuotas: charge every quota the write falls under; on a conflict, re-read those quotas live and try again. */
  private async evaluate(attrs: AdmissionAttributes, evaluator: QuotaEvaluator): Promise<void> {
    let current = (await this.list(attrs.namespace)).map(chargeOf);
    for (let retries = RETRIES; ; retries--) {
      if (current.length === 0) return;
      const next = checkRequest(current, attrs, evaluator, this.now());
      if (attrs.dryRun) return;
      const failed = new Set<string>();
      let lastError: unknown = null;
      for (let i = 0; i < next.length; i++) {
        if (listsEqual(next[i].used, current[i].used)) continue;
        try {
          await this.write(next[i]);
        } catch (err) {
          if (!isStatusError(err)) throw err;
          failed.add(next[i].quota.metadata.name!);
          lastError = err;
        }
      }
      if (failed.size === 0) return;
      if (retries <= 0) throw lastError;
      current = (await this.quotas.list(attrs.namespace, true)).filter((q) => failed.has(q.metadata.name!)).map(chargeOf);
    }
  }

  private async write(charge: Charge): Promise<void> {
    const quota = structuredClone(charge.quota);
    quota.status = { ...(isPlainObject(quota.status) ? quota.status : {}), used: resourceListJson(charge.used) };
    const written = await this.quotas.updateStatus(quota);
    remember(this.charged, `${written.metadata.namespace}/${written.metadata.name}`, written);
  }

  /** quotaAccessor.GetQuotas: the cache (a live read, now and then, when it has none), each replaced by what this process charged since. */
  private async list(namespace: string): Promise<KubeObject[]> {
    let items = await this.quotas.list(namespace, false);
    if (items.length === 0) {
      const now = this.now();
      let entry = this.liveLookups.get(namespace);
      if (!entry || entry.until < now) {
        entry = { until: now + LIVE_TTL_MS, items: await this.quotas.list(namespace, true) };
        remember(this.liveLookups, namespace, entry);
      }
      items = entry.items;
    }
    return items.map((quota) => {
      const key = `${namespace}/${quota.metadata.name}`;
      const mine = this.charged.get(key);
      if (!mine || mine.metadata.uid !== quota.metadata.uid || !newer(mine, quota)) {
        this.charged.delete(key);
        return quota;
      }
      return mine;
    });
  }
}
