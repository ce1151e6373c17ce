import { forbidden, isStatusError, type StatusError } from '../../api/errors';
import { andThen, isPromise, type MaybePromise } from '../../api/maybe-promise';
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
import { LiveLookup, remember, type NamespaceList } from './live-lookup';
import { jsonClone } from '../../api/json-clone';

/** Reads and charges a namespace's quotas. */
export interface QuotaAccess {
  list: NamespaceList;
  /** Writes status.used, guarded by the quota's resourceVersion; a StatusError 409 when it moved. */
  updateStatus(quota: KubeObject): Promise<KubeObject>;
}

/** controller.go: checkQuotas is tried this many more times after conflicts. */
const RETRIES = 3;

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

/** One write waiting for its namespace's evaluation (admissionWaiter); `result` null once admitted. */
interface Waiter {
  attrs: AdmissionAttributes;
  evaluator: QuotaEvaluator;
  result: unknown;
  done: (err: unknown) => void;
}

/** defaultDeny: a waiter whose charge has not been written yet. */
const PENDING = Symbol('pending');

/**
 * The ResourceQuota admission plugin (k8s.io/apiserver's plugin/resourcequota): a create or
 * update that adds usage under a namespace's quotas is refused when it would exceed one, and
 * otherwise charged to the quotas' status.used before it is stored, with writes guarded by
 * resourceVersion so that replicas admitting at once cannot both spend the last unit. As kube's
 * quotaEvaluator, a namespace's writes are evaluated by one worker at a time, every write that
 * waited meanwhile in one batch with one status write per quota.
 */
export class ResourceQuotaAdmission implements AdmissionPlugin {
  readonly name = 'ResourceQuota';
  private readonly waiting = new Map<string, Waiter[]>();
  private readonly busy = new Set<string>();
  /** Quotas this process charged, newer than its cache may be yet (quotaAccessor.updatedQuotas). */
  private readonly charged = new Map<string, KubeObject>();
  private readonly lookup: LiveLookup;

  constructor(
    private readonly quotas: QuotaAccess,
    private readonly now: () => number = Date.now,
  ) {
    this.lookup = new LiveLookup(quotas.list, now);
  }

  validate(attrs: AdmissionAttributes): Promise<void> | void {
    if (attrs.subresource !== '' || !attrs.namespace || !attrs.object) return;
    const evaluator = evaluatorFor(attrs.def.group, attrs.def.resource);
    if (!evaluator.handles(attrs.operation, attrs.subresource)) return;
    // A namespace without quotas needs no turn: nothing is charged there.
    const quotas = this.list(attrs.namespace);
    if (!isPromise(quotas) && quotas.length === 0) return;
    return this.evaluate(attrs, evaluator, quotas);
  }

  /** Waits for the namespace's turn (admissionWaiter): the write is checked and charged with the others that waited meanwhile. */
  private async evaluate(attrs: AdmissionAttributes, evaluator: QuotaEvaluator, quotas: MaybePromise<KubeObject[]>): Promise<void> {
    if ((await quotas).length === 0) return;
    await new Promise<void>((resolve, reject) => {
      const waiter: Waiter = { attrs, evaluator, result: PENDING, done: (err) => (err === null ? resolve() : reject(err)) };
      const queue = this.waiting.get(attrs.namespace) ?? [];
      queue.push(waiter);
      this.waiting.set(attrs.namespace, queue);
      void this.work(attrs.namespace);
    });
  }

  /** doWork for one namespace: batches of what waited, until none is left. */
  private async work(namespace: string): Promise<void> {
    if (this.busy.has(namespace)) return;
    this.busy.add(namespace);
    try {
      for (let batch = this.waiting.get(namespace); batch; batch = this.waiting.get(namespace)) {
        this.waiting.delete(namespace);
        try {
          const quotas = (await this.list(namespace)).map(chargeOf);
          await this.checkQuotas(quotas, batch, RETRIES);
        } catch (err) {
          for (const w of batch) if (w.result === PENDING) w.result = err;
        }
        for (const w of batch) w.done(w.result === PENDING ? null : w.result);
      }
    } finally {
      this.busy.delete(namespace);
    }
  }

  /**
   * checkQuotas: each waiter is checked against the quotas as the ones before it left them; the
   * quotas that changed are written; on conflicts those quotas are read again from etcd and the
   * batch is checked against them once more.
   */
  private async checkQuotas(quotas: Charge[], waiters: Waiter[], retries: number): Promise<void> {
    const original = quotas;
    let running = quotas;
    let changed = false;
    for (const w of waiters) {
      let next: Charge[];
      try {
        next = checkRequest(running, w.attrs, w.evaluator, this.now());
      } catch (err) {
        w.result = err;
        continue;
      }
      if (w.attrs.dryRun) {
        w.result = null;
        continue;
      }
      if (next.some((c, i) => !listsEqual(c.used, running[i].used))) changed = true;
      else w.result = null;
      running = next;
    }
    if (!changed) return;
    const failed = new Set<string>();
    let lastError: unknown = null;
    for (let i = 0; i < running.length; i++) {
      if (listsEqual(running[i].used, original[i].used)) continue;
      try {
        await this.write(running[i]);
      } catch (err) {
        if (!isStatusError(err)) throw err;
        failed.add(running[i].quota.metadata.name!);
        lastError = err;
      }
    }
    const settle = (result: unknown): void => {
      for (const w of waiters) if (w.result === PENDING) w.result = result;
    };
    if (failed.size === 0) return settle(null);
    if (retries <= 0) return settle(lastError);
    const fresh = (await this.quotas.list(waiters[0].attrs.namespace, true)).filter((q) => failed.has(q.metadata.name!)).map(chargeOf);
    await this.checkQuotas(fresh, waiters, retries - 1);
  }

  private async write(charge: Charge): Promise<void> {
    const quota = jsonClone(charge.quota);
    quota.status = { ...(isPlainObject(quota.status) ? quota.status : {}), used: resourceListJson(charge.used) };
    const written = await this.quotas.updateStatus(quota);
    remember(this.charged, `${written.metadata.namespace}/${written.metadata.name}`, written);
  }

  /** quotaAccessor.GetQuotas: each quota replaced by the version this process charged, when that is newer. */
  private list(namespace: string): MaybePromise<KubeObject[]> {
    return andThen(this.lookup.get(namespace), (quotas) => this.asCharged(namespace, quotas));
  }

  private asCharged(namespace: string, quotas: KubeObject[]): KubeObject[] {
    return quotas.map((quota) => {
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
