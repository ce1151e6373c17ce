import { Counter, Histogram, Registry } from 'prom-client';
import { LabeledCounter, LabeledHistogram } from './labeled-metrics';

const BUCKETS = [0.005, 0.1, 1, 5];
const OBSERVED: [Record<string, string>, number][] = [
  [{ verb: 'POST', resource: 'configmaps' }, 0.004],
  [{ verb: 'POST', resource: 'configmaps' }, 0.005],
  [{ verb: 'GET', resource: 'pods' }, 0.3],
  [{ verb: 'POST', resource: 'configmaps' }, 7],
  [{ verb: 'GET', resource: 'pods"x' }, 1],
];

/** The same observations through prom-client's own metrics and through the labeled ones give the same exposition. */
describe('labeled metrics', () => {
  it('write what prom-client writes, as text and as JSON', async () => {
    const theirs = new Registry();
    const ours = new Registry();
    const counter = new Counter({ name: 'requests_total', help: 'h', labelNames: ['verb', 'resource'], registers: [theirs] });
    const histogram = new Histogram({ name: 'latency_seconds', help: 'h', labelNames: ['verb', 'resource'], buckets: BUCKETS, registers: [theirs] });
    const labeledCounter = new LabeledCounter('requests_total', 'h', ['verb', 'resource'], ours);
    const labeledHistogram = new LabeledHistogram('latency_seconds', 'h', ['verb', 'resource'], BUCKETS, ours);
    for (const [labels, value] of OBSERVED) {
      counter.labels(labels).inc();
      histogram.labels(labels).observe(value);
      labeledCounter.of(labels).inc();
      labeledHistogram.of(labels).observe(value);
    }
    expect(await ours.metrics()).toBe(await theirs.metrics());
    expect(await ours.getMetricsAsJSON()).toEqual(await theirs.getMetricsAsJSON());
    ours.resetMetrics();
    theirs.resetMetrics();
    expect(await ours.metrics()).toBe(await theirs.metrics());
  });
});
