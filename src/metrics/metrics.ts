import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { LabeledCounter, LabeledHistogram } from './labeled-metrics';

/** kube-apiserver's latency buckets, so existing dashboards and alerts keep working. */
const REQUEST_BUCKETS = [0.005, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1.0, 1.25, 1.5, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 45, 60];
const ETCD_BUCKETS = [0.005, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1.0, 1.25, 1.5, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 45, 60];

/** What a watch cache reports about itself at scrape time. */
export interface CacheStats {
  group: string;
  version: string;
  resource: string;
  kind: string;
  eventsReceived: number;
  eventsHeld: number;
  watchers: number;
  revision: number;
}

const REQUEST_LABELS = ['verb', 'dry_run', 'group', 'version', 'resource', 'subresource', 'scope', 'component'] as const;

export type RequestLabels = Record<(typeof REQUEST_LABELS)[number], string>;

/**
 * Node's process metrics (prom-client's defaults) describe the process, not a server: collected
 * once however many servers it runs (startKapi's testing host runs many), since each collector
 * keeps GC observers and an event-loop histogram, and with them its registry, for good.
 */
let processRegistry: Registry | null = null;

/** How often the event loop's lag is sampled: cheap (ten timers a second), and fine enough to see a 100 ms stall. */
const LAG_SAMPLE_MS = 100;

/**
 * kapi_event_loop_lag_seconds: how late each sampling timer fires, i.e. how long the event loop
 * was kept from serving anything (probes, lease renewals, watches) by the work before it.
 */
function sampleEventLoopLag(register: Registry): void {
  const lag = new Histogram({
    name: 'kapi_event_loop_lag_seconds',
    help: 'How late a timer due every 100 ms fired: the time the event loop was busy with other work, in seconds.',
    buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [register],
  });
  let due = performance.now() + LAG_SAMPLE_MS;
  const tick = (): void => {
    const now = performance.now();
    lag.observe(Math.max(0, now - due) / 1000);
    due = now + LAG_SAMPLE_MS;
    setTimeout(tick, LAG_SAMPLE_MS).unref();
  };
  setTimeout(tick, LAG_SAMPLE_MS).unref();
}

function processMetrics(): Registry {
  if (!processRegistry) {
    processRegistry = new Registry();
    collectDefaultMetrics({ register: processRegistry });
    sampleEventLoopLag(processRegistry);
  }
  return processRegistry;
}

/** One server's metrics, with kube-apiserver's names and labels. */
export class ApiServerMetrics {
  readonly registry = new Registry();
  private readonly requests: LabeledCounter;
  private readonly latency: LabeledHistogram;
  private readonly etcdLatency: LabeledHistogram;
  private readonly longRunning: Gauge<string>;
  private readonly watchEvents: LabeledCounter;
  private readonly webhookLatency: Histogram<string>;
  private readonly webhookRejections: Counter<string>;
  private readonly clientCertificateExpiration: Histogram<string>;

  constructor(countObjects: () => Promise<Map<string, number>>, cacheStats: () => CacheStats[]) {
    processMetrics();
    this.requests = new LabeledCounter(
      'apiserver_request_total',
      'Counter of apiserver requests broken out for each verb, dry run value, group, version, resource, scope, component, and HTTP response code.',
      [...REQUEST_LABELS, 'code'],
      this.registry,
    );
    this.latency = new LabeledHistogram(
      'apiserver_request_duration_seconds',
      'Response latency distribution in seconds for each verb, dry run value, group, version, resource, subresource, scope and component.',
      REQUEST_LABELS,
      REQUEST_BUCKETS,
      this.registry,
    );
    this.etcdLatency = new LabeledHistogram(
      'etcd_request_duration_seconds',
      'Etcd request latency in seconds for each operation and object type.',
      ['operation', 'type'],
      ETCD_BUCKETS,
      this.registry,
    );
    this.longRunning = new Gauge({
      name: 'apiserver_longrunning_requests',
      help: 'Gauge of all active long-running apiserver requests broken out by verb, group, version, resource, scope and component.',
      labelNames: ['verb', 'group', 'version', 'resource', 'subresource', 'scope', 'component'],
      registers: [this.registry],
    });
    this.watchEvents = new LabeledCounter(
      'apiserver_watch_events_total',
      'Number of events sent in watch clients',
      ['group', 'version', 'resource'],
      this.registry,
    );
    this.webhookLatency = new Histogram({
      name: 'apiserver_admission_webhook_admission_duration_seconds',
      help: 'Admission webhook latency histogram in seconds, identified by name and broken out for each operation and API resource and type (validate or admit).',
      labelNames: ['name', 'type', 'operation', 'rejected'],
      buckets: [0.005, 0.025, 0.1, 0.5, 1.0, 2.5, 10, 25],
      registers: [this.registry],
    });
    this.webhookRejections = new Counter({
      name: 'apiserver_admission_webhook_rejection_count',
      help: 'Admission webhook rejection count, identified by name and broken out for each admission type (validating or admit) and operation. Additional labels specify an error type (calling_webhook_error or apiserver_internal_error if an error occurred; no_error otherwise) and optionally a non-zero rejection code if the webhook rejects the request with an HTTP status code (honored by the apiserver when the code is greater or equal to 400). Codes greater than 600 are truncated to 600, to keep the metrics cardinality bounded.',
      labelNames: ['name', 'type', 'operation', 'error_type', 'rejection_code'],
      registers: [this.registry],
    });
    this.clientCertificateExpiration = new Histogram({
      name: 'apiserver_client_certificate_expiration_seconds',
      help: 'Distribution of the remaining lifetime on the certificate used to authenticate a request.',
      // 30 minutes, 1, 2, 6 and 12 hours, 1, 2 and 4 days, a week, 1, 3 and 6 months, a year
      buckets: [0, 1800, 3600, 7200, 21600, 43200, 86400, 172800, 345600, 604800, 2592000, 7776000, 15552000, 31104000],
      registers: [this.registry],
    });
    const byResource = (c: CacheStats) => ({ group: c.group, resource: c.resource });
    const perCache: [typeof Counter | typeof Gauge, string, string, string[], (c: CacheStats) => Record<string, string>, (c: CacheStats) => number][] = [
      [
        Counter,
        'apiserver_watch_cache_events_received_total',
        'Counter of events received in watch cache broken by resource type.',
        ['group', 'resource'],
        byResource,
        (c) => c.eventsReceived,
      ],
      [
        Gauge,
        'apiserver_watch_cache_capacity',
        'Total capacity of watch cache broken by resource type: the events it holds for resuming watches.',
        ['group', 'resource'],
        byResource,
        (c) => c.eventsHeld,
      ],
      [
        Gauge,
        'apiserver_watch_cache_resource_version',
        'Current resource version of watch cache broken by resource type.',
        ['group', 'resource'],
        byResource,
        (c) => c.revision,
      ],
      [
        Gauge,
        'apiserver_registered_watchers',
        'Number of currently registered watchers for a given resources',
        ['group', 'version', 'kind'],
        (c) => ({ group: c.group, version: c.version, kind: c.kind }),
        (c) => c.watchers,
      ],
    ];
    // Read from the caches at scrape time; a counter is reset and raised to the cache's own total.
    for (const [Metric, name, help, labelNames, labelsOf, valueOf] of perCache) {
      new Metric({
        name,
        help,
        labelNames,
        registers: [this.registry],
        collect(this: Counter<string> | Gauge<string>) {
          this.reset();
          for (const c of cacheStats()) this.inc(labelsOf(c), valueOf(c));
        },
      });
    }
    new Gauge({
      name: 'apiserver_storage_objects',
      help: 'Number of stored objects at the time of last check split by kind.',
      labelNames: ['resource'],
      registers: [this.registry],
      async collect() {
        this.reset();
        for (const [resource, count] of await countObjects()) this.set({ resource }, count);
      },
    });
  }

  /** The text `/metrics` serves: the process's metrics, then this server's. */
  async exposition(): Promise<string> {
    const [process, server] = await Promise.all([processMetrics().metrics(), this.registry.metrics()]);
    return `${process}${process.endsWith('\n') ? '' : '\n'}${server}`;
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  observeRequest(labels: RequestLabels, code: number, seconds: number): void {
    this.requests.of(labels, 'code', String(code)).inc();
    if (labels.verb !== 'WATCH' && labels.verb !== 'CONNECT') this.latency.of(labels).observe(seconds);
  }

  observeWatchEvent(group: string, version: string, resource: string): void {
    this.watchEvents.of({ group, version, resource }).inc();
  }

  /** The remaining lifetime of a client certificate the x509 authenticator is given (x509.Authenticator's histogram). */
  observeClientCertificateExpiration(seconds: number): void {
    this.clientCertificateExpiration.observe(seconds);
  }

  observeEtcd(operation: string, type: string, seconds: number): void {
    this.etcdLatency.of({ operation, type }).observe(seconds);
  }

  /** One admission webhook call (the WebhookObserver of the webhook admission plugin). */
  observeWebhook(name: string, type: string, operation: string, rejected: boolean, seconds: number): void {
    this.webhookLatency.observe({ name, type, operation, rejected: String(rejected) }, seconds);
  }

  webhookRejection(name: string, type: string, operation: string, errorType: string, code: number): void {
    this.webhookRejections.inc({ name, type, operation, error_type: errorType, rejection_code: String(Math.min(code, 600)) });
  }

  /** Whether each feature gate is on, labelled with its stage (component-base's featuregate metric; GA is the empty stage). */
  recordFeatureGates(gates: { name: string; stage: string; enabled: boolean }[]): void {
    const gauge = new Gauge({
      name: 'kubernetes_feature_enabled',
      help: 'This metric records the data about the stage and enablement of a k8s feature.',
      labelNames: ['name', 'stage'],
      registers: [this.registry],
    });
    for (const { name, stage, enabled } of gates) gauge.set({ name, stage }, enabled ? 1 : 0);
  }

  /** Counts a long-running request until the returned function is called. */
  trackLongRunning(labels: RequestLabels): () => void {
    const { dry_run: _d, ...rest } = labels;
    this.longRunning.inc(rest);
    return () => this.longRunning.dec(rest);
  }
}
