import { milliValue, parseAmount } from '../../admission/resource-quota/amounts';
import { goDuration } from '../../server/duration';
import type { UserInfo } from '../../auth/user';
import type { AggregatedApis } from '../runtime/controller-deps';
import { MetricsError, type PodMetricsInfo } from './replica-calculator';

const METRICS_PATH = '/apis/metrics.k8s.io/v1beta1';
const FETCH_TIMEOUT_MS = 10_000;

/** metrics.k8s.io/v1beta1 PodMetrics, as metrics-server serves it. */
interface PodMetrics {
  metadata?: { name?: string; namespace?: string };
  timestamp?: string;
  window?: string;
  containers?: { name?: string; usage?: Record<string, string> }[];
}

/** The text client-go gives a failed request whose body it does not take for a Status (NewGenericServerResponse), naming what was asked. */
function clientError(status: number, body: Buffer): string {
  try {
    const parsed = JSON.parse(body.toString('utf8')) as { kind?: string; message?: string };
    if (parsed.kind === 'Status' && status !== 404 && parsed.message) return parsed.message;
  } catch {
    // Not JSON: the generic text below.
  }
  const generic: Record<number, string> = {
    400: 'the server rejected our request for an unknown reason',
    401: 'the server has asked for the client to provide credentials',
    403: 'the server does not allow access to the requested resource',
    404: 'the server could not find the requested resource',
    429: 'the server has received too many requests and has asked us to try again later',
    503: 'the server is currently unable to handle the request',
    504: 'the server was unable to return a response in the time allotted, but may still be processing the request',
  };
  const text = generic[status] ?? `an error on the server (${JSON.stringify(body.toString('utf8').trim())}) has prevented the request from succeeding`;
  return `${text} (get pods.metrics.k8s.io)`;
}

/**
 * metricsclient's resourceMetricsClient: the PodMetrics of the pods a selector picks, from
 * metrics.k8s.io through the aggregator, summed per pod (or for the one container named).
 */
export class ResourceMetricsClient {
  constructor(
    private readonly apis: AggregatedApis,
    private readonly user: UserInfo,
  ) {}

  /** GetResourceMetric: pod name → usage in milli-units, and the first sample's time. */
  async podMetrics(resource: string, namespace: string, selector: string, container: string): Promise<{ metrics: PodMetricsInfo; timestampMs: number }> {
    const path = `${METRICS_PATH}/namespaces/${encodeURIComponent(namespace)}/pods${selector ? `?labelSelector=${encodeURIComponent(selector)}` : ''}`;
    const answer = await this.apis.get(path, this.user, FETCH_TIMEOUT_MS);
    if (answer.status !== 200) throw new MetricsError(`unable to fetch metrics from resource metrics API: ${clientError(answer.status, answer.body)}`);
    let items: PodMetrics[];
    try {
      items = (JSON.parse(answer.body.toString('utf8')) as { items?: PodMetrics[] }).items ?? [];
    } catch (err) {
      throw new MetricsError(`unable to fetch metrics from resource metrics API: ${(err as Error).message}`);
    }
    if (items.length === 0) throw new MetricsError('no metrics returned from resource metrics API');
    const metrics = container ? containerMetrics(items, resource, container) : podSums(items, resource);
    return { metrics, timestampMs: Date.parse(items[0].timestamp ?? '') || 0 };
  }
}

const sample = (m: PodMetrics, value: number) => ({
  timestampMs: Date.parse(m.timestamp ?? '') || 0,
  windowMs: m.window ? (goDuration(m.window) ?? 0) : 0,
  value,
});

const usageOf = (usage: Record<string, string> | undefined, resource: string): number | null => {
  const amount = parseAmount(usage?.[resource]);
  return amount ? Number(milliValue(amount)) : null;
};

/** getPodMetrics: a pod missing the resource in any container, or with no containers, has no metric. */
function podSums(items: PodMetrics[], resource: string): PodMetricsInfo {
  const out: PodMetricsInfo = new Map();
  for (const m of items) {
    const containers = m.containers ?? [];
    let sum = 0;
    let missing = containers.length === 0;
    for (const c of containers) {
      const value = usageOf(c.usage, resource);
      if (value === null) {
        missing = true;
        break;
      }
      sum += value;
    }
    if (!missing) out.set(m.metadata?.name ?? '', sample(m, sum));
  }
  return out;
}

/** getContainerMetrics: the named container's usage; a pod without that container is an error. */
function containerMetrics(items: PodMetrics[], resource: string, container: string): PodMetricsInfo {
  const out: PodMetricsInfo = new Map();
  for (const m of items) {
    const c = (m.containers ?? []).find((c) => c.name === container);
    if (!c) {
      throw new MetricsError(
        `failed to get container metrics: container ${container} not present in metrics for pod ${m.metadata?.namespace ?? ''}/${m.metadata?.name ?? ''}`,
      );
    }
    const value = usageOf(c.usage, resource);
    if (value !== null) out.set(m.metadata?.name ?? '', sample(m, value));
  }
  return out;
}
