import type { Registry } from 'prom-client';

/**
 * Counters and histograms observed on every request. prom-client validates and hashes the label
 * set on each observation, even through a child from `labels()`; a server observes the same few
 * label sets all day, so these keep one plain accumulator per set, found by its values, and give
 * prom-client's registry the same values at scrape time (its metric interface: get and reset).
 */

type Labels = Record<string, string>;

/** One value as prom-client's registry formats it: the label set in sharedLabels, `le` in labels. */
interface MetricValue {
  labels: Record<string, string | number>;
  sharedLabels: Labels;
  value: number;
  /** The series' name where it is not the metric's (a histogram's _bucket, _sum, _count). */
  metricName?: string;
  /** prom-client's buckets carry an exemplar slot; kapi records none. */
  exemplar?: null;
}

interface MetricData {
  name: string;
  help: string;
  type: 'counter' | 'histogram';
  values: MetricValue[] | Omit<MetricValue, 'sharedLabels'>[];
  aggregator: 'sum';
}

/** The key of a label set (with `extra`, one label given apart): its values in the metric's label order. */
function keyOf(labelNames: readonly string[], labels: Labels, extra?: string, extraValue?: string): string {
  let key = '';
  for (const name of labelNames) key += `${(name === extra ? extraValue : labels[name]) ?? ''}\0`;
  return key;
}

abstract class LabeledMetric<C extends { labels: Labels }> {
  protected readonly children = new Map<string, C>();
  readonly aggregator = 'sum';

  constructor(
    readonly name: string,
    readonly help: string,
    protected readonly labelNames: readonly string[],
    registry: Registry,
  ) {
    registry.registerMetric(this as never);
  }

  protected abstract create(labels: Labels): C;

  /**
   * The accumulator of a label set, `extra` set to `extraValue` if given (a request's labels and
   * its code, without a merged copy per request); the labels are copied once, when the set is first seen.
   */
  of(labels: Labels, extra?: string, extraValue?: string): C {
    const key = keyOf(this.labelNames, labels, extra, extraValue);
    let child = this.children.get(key);
    if (!child) {
      const own: Labels = {};
      for (const name of this.labelNames) own[name] = (name === extra ? extraValue : labels[name]) ?? '';
      child = this.create(own);
      this.children.set(key, child);
    }
    return child;
  }

  reset(): void {
    this.children.clear();
  }

  protected abstract values(): MetricValue[];

  /** What the registry writes as text. */
  getForPromString(): MetricData & { values: MetricValue[] } {
    return { name: this.name, help: this.help, type: this.type, values: this.values(), aggregator: this.aggregator };
  }

  /** The JSON form (`getMetricsAsJSON`): shared labels merged into each value's, as prom-client's metrics give it. */
  get(): MetricData {
    const data = this.getForPromString();
    return { ...data, values: data.values.map(({ sharedLabels, labels, ...v }) => ({ ...v, labels: { ...sharedLabels, ...labels } })) };
  }

  abstract readonly type: 'counter' | 'histogram';
}

export class CounterChild {
  value = 0;
  constructor(readonly labels: Labels) {}

  inc(by = 1): void {
    this.value += by;
  }
}

export class LabeledCounter extends LabeledMetric<CounterChild> {
  readonly type = 'counter';

  protected create(labels: Labels): CounterChild {
    return new CounterChild(labels);
  }

  protected values(): MetricValue[] {
    return [...this.children.values()].map((c) => ({ labels: {}, sharedLabels: c.labels, value: c.value }));
  }
}

export class HistogramChild {
  /** Observations per bucket (not cumulative); the last counts those above every bound. */
  readonly counts: Float64Array;
  sum = 0;
  count = 0;

  constructor(
    readonly labels: Labels,
    private readonly bounds: readonly number[],
  ) {
    this.counts = new Float64Array(bounds.length + 1);
  }

  observe(value: number): void {
    let i = 0;
    while (i < this.bounds.length && value > this.bounds[i]) i++;
    this.counts[i]++;
    this.sum += value;
    this.count++;
  }
}

export class LabeledHistogram extends LabeledMetric<HistogramChild> {
  readonly type = 'histogram';

  constructor(
    name: string,
    help: string,
    labelNames: readonly string[],
    private readonly bounds: readonly number[],
    registry: Registry,
  ) {
    super(name, help, labelNames, registry);
  }

  protected create(labels: Labels): HistogramChild {
    return new HistogramChild(labels, this.bounds);
  }

  /** As prom-client writes a histogram: cumulative buckets with `le`, then +Inf, _sum and _count. */
  protected values(): MetricValue[] {
    const values: MetricValue[] = [];
    const bucket = `${this.name}_bucket`;
    for (const c of this.children.values()) {
      let cumulative = 0;
      this.bounds.forEach((bound, i) => {
        cumulative += c.counts[i];
        values.push({ labels: { le: bound }, sharedLabels: c.labels, value: cumulative, metricName: bucket, exemplar: null });
      });
      values.push({ labels: { le: '+Inf' }, sharedLabels: c.labels, value: c.count, metricName: bucket, exemplar: null });
      values.push({ labels: {}, sharedLabels: c.labels, value: c.sum, metricName: `${this.name}_sum` });
      values.push({ labels: {}, sharedLabels: c.labels, value: c.count, metricName: `${this.name}_count` });
    }
    return values;
  }
}
