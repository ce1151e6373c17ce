import { isStatusError } from '../api/errors';
import { jsonEqual } from '../api/deep-equal';
import { fromLabelSelectorStruct, matchesLabels, type LabelSelectorStruct } from '../api/label-selector';
import { internalContext } from '../registry/request-context';
import { isPlainObject, type KubeObject } from '../api/types';
import type { GenericStore } from '../registry/generic-store';
import { everything } from '../storage/interfaces';
import { WorkQueue } from './work-queue';

type Log = (message: string, err?: unknown) => void;

const RETRY_MS = 1000;

function selectorsOf(role: KubeObject): LabelSelectorStruct[] | null {
  if (!isPlainObject(role.aggregationRule)) return null;
  const selectors = role.aggregationRule.clusterRoleSelectors;
  return Array.isArray(selectors) ? selectors.filter(isPlainObject) : [];
}

/**
 * The ClusterRole aggregation controller (pkg/controller/clusterroleaggregation): a role with an
 * aggregationRule gets the rules of every other cluster role its selectors match, in name order,
 * each rule once. It keeps its own copy of the cluster roles from a list and a watch.
 */
export class ClusterRoleAggregationController {
  private readonly roles = new Map<string, KubeObject>();
  private readonly queue: WorkQueue;
  private stopped = false;
  private close: (() => void) | null = null;

  constructor(
    private readonly clusterRoles: GenericStore,
    private readonly log: Log,
  ) {
    this.queue = new WorkQueue(
      async (name) => (await this.sync(name), true),
      (name, err) => this.log(`clusterrole aggregation: ${name} failed`, err),
      RETRY_MS,
    );
  }

  async start(): Promise<void> {
    const list = await this.clusterRoles.list('', { resourceVersion: '', match: '', predicate: everything });
    this.roles.clear();
    for (const role of list.items) this.roles.set(role.metadata.name!, role);
    await this.settle();
    const channel = await this.clusterRoles.watch('', { resourceVersion: list.metadata.resourceVersion ?? '', predicate: everything });
    this.close = () => channel.close();
    void (async () => {
      try {
        for await (const item of channel) {
          if (item.type === 'ADDED' || item.type === 'MODIFIED') this.roles.set(item.object.metadata.name!, item.object);
          else if (item.type === 'DELETED') this.roles.delete(item.object.metadata.name!);
          else continue;
          // Any change may add to or take from some aggregated role (kube's controller requeues them all).
          this.enqueueAggregated();
        }
        if (!this.stopped) throw new Error('watch closed');
      } catch (err) {
        if (this.stopped) return;
        this.log('clusterrole aggregation watch ended; restarting', err);
        setTimeout(() => void this.start().catch((e) => this.log('clusterrole aggregation restart failed', e)), RETRY_MS);
      }
    })();
  }

  stop(): void {
    this.stopped = true;
    this.close?.();
    this.queue.stop();
  }

  /**
   * Aggregates until nothing changes (view feeds edit, edit feeds admin) before the server
   * serves, so that a start leaves no aggregation writes behind it.
   */
  private async settle(): Promise<void> {
    const aggregated = [...this.roles.keys()].filter((name) => selectorsOf(this.roles.get(name)!) !== null).sort();
    for (let pass = 0; pass < aggregated.length + 1; pass++) {
      let changed = false;
      for (const name of aggregated) changed = (await this.sync(name)) === 'written' || changed;
      if (!changed) return;
    }
  }

  private enqueueAggregated(): void {
    for (const role of this.roles.values()) if (selectorsOf(role) !== null) this.queue.add(role.metadata.name!);
  }

  /** The rules `name` should have: those of the roles its selectors match, sorted by name, without repeats. */
  private aggregatedRules(name: string, selectors: LabelSelectorStruct[]): unknown[] {
    const parsed = selectors.map((s) => fromLabelSelectorStruct(s));
    const sources = [...this.roles.values()]
      .filter((r) => r.metadata.name !== name && parsed.some((sel) => matchesLabels(sel, r.metadata.labels)))
      .sort((a, b) => (a.metadata.name! < b.metadata.name! ? -1 : 1));
    const rules: unknown[] = [];
    for (const source of sources) {
      for (const rule of Array.isArray(source.rules) ? source.rules : []) if (!rules.some((r) => jsonEqual(r, rule))) rules.push(rule);
    }
    return rules;
  }

  /** Writes the aggregated rules of `name` when they differ; the written role replaces the known one. */
  private async sync(name: string): Promise<'written' | 'unchanged'> {
    const role = this.roles.get(name);
    const selectors = role ? selectorsOf(role) : null;
    if (!role || selectors === null) return 'unchanged';
    const rules = this.aggregatedRules(name, selectors);
    if (jsonEqual(rules, Array.isArray(role.rules) ? role.rules : [])) return 'unchanged';
    try {
      const { object } = await this.clusterRoles.update(
        internalContext({ namespace: '' }),
        name,
        (current) => {
          current.rules = rules;
          return current;
        },
        { dryRun: false },
      );
      this.roles.set(name, object);
    } catch (err) {
      if (isStatusError(err) && err.code === 404) return 'unchanged';
      throw err;
    }
    return 'written';
  }
}
