import type { ObjectStore } from '../registry/types';
import { isStatusError } from '../api/errors';
import { jsonEqual } from '../api/deep-equal';
import { fromLabelSelectorStruct, matchesLabels, type LabelSelectorStruct } from '../api/label-selector';
import { isPlainObject, type KubeObject } from '../api/types';
import { SYSTEM_READ_ALL, systemContext, SERVER_OWN_WRITE } from '../registry/request-context';
import { everything } from '../storage/interfaces';
import { QueueController } from './runtime/controller';
import { CachedInformer } from './runtime/informer';
import { systemClock, type Clock } from './runtime/clock';
import { WorkQueue } from './work-queue';
import type { SharedInformers } from './runtime/shared-informers';

type Log = (message: string, err?: unknown) => void;

const RETRY_MS = 1000;

function selectorsOf(role: KubeObject): LabelSelectorStruct[] | null {
  if (!isPlainObject(role.aggregationRule)) return null;
  const selectors = role.aggregationRule.clusterRoleSelectors;
  return Array.isArray(selectors) ? selectors.filter(isPlainObject) : [];
}

/** The rules `name` should have: those of the roles its selectors match, in name order, each rule once. */
function aggregatedRules(name: string, selectors: LabelSelectorStruct[], roles: Iterable<KubeObject>): unknown[] {
  const parsed = selectors.map((s) => fromLabelSelectorStruct(s));
  const sources = [...roles]
    .filter((r) => r.metadata.name !== name && parsed.some((sel) => matchesLabels(sel, r.metadata.labels)))
    .sort((a, b) => (a.metadata.name! < b.metadata.name! ? -1 : 1));
  const rules: unknown[] = [];
  for (const source of sources) {
    for (const rule of Array.isArray(source.rules) ? source.rules : []) if (!rules.some((r) => jsonEqual(r, rule))) rules.push(rule);
  }
  return rules;
}

/** Writes the aggregated rules of `role` when they differ; the written role, or null when nothing was written. */
async function aggregate(clusterRoles: ObjectStore, role: KubeObject, roles: Iterable<KubeObject>): Promise<KubeObject | null> {
  const name = role.metadata.name!;
  const selectors = selectorsOf(role);
  if (selectors === null) return null;
  const rules = aggregatedRules(name, selectors, roles);
  if (jsonEqual(rules, Array.isArray(role.rules) ? role.rules : [])) return null;
  try {
    const { object } = await clusterRoles.update(
      systemContext({ namespace: '' }, SERVER_OWN_WRITE),
      name,
      (current) => {
        current.rules = rules;
        return current;
      },
      { dryRun: false },
    );
    return object;
  } catch (err) {
    if (isStatusError(err) && err.code === 404) return null;
    throw err;
  }
}

/**
 * Aggregates until nothing changes (view feeds edit, edit feeds admin), once at start beside the
 * bootstrap policy's reconciliation, so that a start leaves no aggregation writes behind it.
 */
export async function settleAggregation(clusterRoles: ObjectStore): Promise<void> {
  const list = await clusterRoles.list(SYSTEM_READ_ALL, { resourceVersion: '', match: '', predicate: everything });
  const roles = new Map(list.items.map((r) => [r.metadata.name!, r]));
  const aggregated = [...roles.values()]
    .filter((r) => selectorsOf(r) !== null)
    .map((r) => r.metadata.name!)
    .sort();
  for (let pass = 0; pass < aggregated.length + 1; pass++) {
    let changed = false;
    for (const name of aggregated) {
      const written = await aggregate(clusterRoles, roles.get(name)!, roles.values());
      if (written) roles.set(name, written);
      changed = written !== null || changed;
    }
    if (!changed) return;
  }
}

/**
 * The ClusterRole aggregation controller (pkg/controller/clusterroleaggregation), on the shared
 * runtime: any change of a cluster role requeues every role with an aggregationRule, which then
 * gets the rules of every other cluster role its selectors match.
 */
export class ClusterRoleAggregationController extends QueueController {
  readonly name = 'clusterrole-aggregation-controller';
  private readonly informer: CachedInformer;
  protected readonly queue: WorkQueue;

  constructor(
    private readonly clusterRoles: ObjectStore,
    informers: SharedInformers,
    private readonly log: Log,
    clock: Clock = systemClock,
  ) {
    super();
    this.queue = new WorkQueue(
      async (name) => {
        const role = this.informer.get(name);
        if (role) await aggregate(this.clusterRoles, role, this.informer.list());
        return true;
      },
      (name, err) => this.log(`clusterrole aggregation: ${name} failed`, err),
      RETRY_MS,
      clock,
    );
    const requeue = (): void => this.enqueueAggregated();
    this.informer = informers.informer(clusterRoles, { added: requeue, updated: requeue, deleted: requeue }, { name: 'clusterroles' });
  }

  protected get informers(): CachedInformer[] {
    return [this.informer];
  }

  protected override synced(): void {
    this.enqueueAggregated();
  }

  private enqueueAggregated(): void {
    for (const role of this.informer.list()) if (selectorsOf(role) !== null) this.queue.add(role.metadata.name!);
  }
}
