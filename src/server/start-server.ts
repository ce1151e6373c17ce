import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { IMMORTAL_NAMESPACES } from '../admission/namespace-lifecycle';
import { ensureSystemPriorityClasses } from '../resources/priorityclasses';
import { isStatusError } from '../api/errors';
import type { ServeResource } from '../controllers/crd-controller';
import { systemClock } from '../api/clock';
import { startControllers } from '../controllers/controller-set';
import { SharedInformers } from '../controllers/runtime/shared-informers';
import { buildAdmission } from '../admission/plugins';
import { mediaTypeOf, type Encoding } from '../codec/negotiate';
import { createApp, type VersionInfo } from '../http/app';
import { InFlightRequests } from '../http/filters/in-flight-requests';
import { MaxInFlight } from '../http/filters/max-in-flight';
import { serveFirst } from '../controllers/runtime/turn-budget';
import { ApiServerMetrics } from '../metrics/metrics';
import { buildAuthorizer } from '../auth/authorizer/modes';
import { startNodeAuthorization } from '../auth/node/node-authorization';
import { PolicyCache } from '../auth/authorizer/policy-cache';
import { RbacAuthorizer } from '../auth/authorizer/rbac';
import { reconcileBootstrapPolicy } from '../auth/authorizer/reconcile-policy';
import { INSECURE_SUPERUSER } from '../auth/user';
import { openAuditSink } from '../audit/log-backend';
import { loadAuditPolicy } from '../audit/policy';
import { settleAggregation } from '../controllers/clusterrole-aggregation';
import { writeAdminKubeconfig } from '../auth/admin-kubeconfig';
import type { IssuerDiscovery } from '../auth/oidc-discovery';
import { userOf, withAuthentication, withUser } from '../http/filters/authentication';
import { withInsecurePortGuard } from '../http/filters/insecure-port-guard';
import { withProbabilisticGoaway } from '../http/filters/goaway';
import { ComputedStore } from '../registry/computed-store';
import type { ServerServices } from '../registry/types';
import { GenericStore } from '../registry/generic-store';
import { resourceRoot } from '../registry/storage-keys';
import type { ValidationOptions } from '../registry/strategy';
import { buildServiceAllocation } from '../registry/service-allocation/build';
import type { OwnSchema, ResourceDefinition, ServedKind } from '../registry/resource-definition';
import type { SchemaSource } from '../http/openapi';
import { ResourceRegistry } from '../registry/resource-registry';
import { BUILT_IN_RESOURCES } from '../resources';
import { servedResources } from './runtime-config';
import { openApiDefinitions, patchSchemaFor, protoDefinitionName } from '../schema/proto-schema';
import { Etcd3Kv } from '../storage/etcd/etcd3-kv';
import { Compactor } from '../storage/etcd/compactor';
import { StorageCodec } from '../storage/etcd/storage-codec';
import { EtcdStorage } from '../storage/etcd/etcd-storage';
import { loadEncryptionConfig } from '../storage/etcd/transformers/encryption-config';
import { transformerByKey } from '../storage/etcd/transformers/key-transformers';
import type { ValueTransformer } from '../storage/etcd/transformers/value-transformer';
import type { KV } from '../storage/etcd/kv';
import { WatchCache } from '../storage/cache/watch-cache';
import type { Storage } from '../storage/interfaces';
import type { Config } from './config';
import { EmbeddedEtcd } from './embedded-etcd';
import { applyListenerLimits, type ListenerConnections } from './listener';
import type { SecurePortServer } from './http2-compat';
import { serveUpgrades } from '../http/handlers/proxy-upgrade';
import { loadKubeletClient } from '../registry/proxy/kubelet';
import { systemContext, SERVER_OWN_WRITE } from '../registry/request-context';
import { etcdTls, loadAuthentication } from './authentication';
import { createSecureServer, dialableHost, isLoopback } from './tls';
import { withAccessLog } from './access-log';
import { leveled, type Logger } from './logger';
import { Aggregator } from '../aggregator/aggregator';
import { authenticationData, publishAuthenticationConfigMap } from '../aggregator/authentication-configmap';

import { KUBERNETES_VERSION, kapiGitVersion } from './kubernetes-version';
import { featureStagesAt } from './feature-gates';
import { BodyDecoder } from '../http/body-decoder';
import { deltaOf, emulationVersionInfo, minCompatibilityOf } from './emulated-version';

export { KUBERNETES_VERSION };

/** kube-apiserver's --etcd-readycheck-timeout default. */
const ETCD_READYCHECK_TIMEOUT_MS = 2000;
/** How often the aggregator checks APIServices' availability and fetches extension servers' discovery again. */
const AGGREGATOR_RESYNC_MS = 10_000;
/** How long a request waits for a (re)initializing watch cache before its 429. */
const CACHE_READY_WAIT_MS = 3000;

export interface RunningServer {
  /** The insecure port's http://host:port when it is on, else the secure port's https://host:port. */
  url: string;
  /** https://host:port */
  secureUrl: string;
  /** `<data-dir>/admin.kubeconfig`, or null when kapi cannot sign client certificates (a --client-ca-file of its own). */
  adminKubeconfig: string | null;
  etcdEndpoints: string[];
  close(): Promise<void>;
}

/** version.Info as compatibility.effectiveVersion.Info fills it: major and minor are the binary's, the emulation version beside them. */
function versionInfo(config: Pick<Config, 'emulatedVersion' | 'minCompatibilityVersion'>): VersionInfo {
  const { major, minor } = KUBERNETES_VERSION;
  return {
    major,
    minor,
    ...emulationVersionInfo(config.emulatedVersion, minCompatibilityOf(config.emulatedVersion, config.minCompatibilityVersion)),
    gitVersion: kapiGitVersion(),
    gitCommit: process.env.KAPI_GIT_COMMIT ?? 'unknown',
    gitTreeState: 'clean',
    buildDate: process.env.KAPI_BUILD_DATE ?? '1970-01-01T00:00:00Z',
    goVersion: `node${process.versions.node}`,
    compiler: 'tsc',
    platform: `${process.platform}/${process.arch === 'x64' ? 'amd64' : process.arch}`,
  };
}

/** etcd fixed its progress notifications in 3.4.31 and 3.5.13; before that the cache cannot prove it is current. */
export function consistentReadsFromCacheSupported(version: string): boolean {
  const [major, minor, patch] = version.split('.').map((p) => Number.parseInt(p, 10));
  if (major !== 3) return major > 3;
  if (minor === 4) return patch >= 31;
  if (minor === 5) return patch >= 13;
  return minor > 5;
}

async function waitForEtcd(kv: KV, endpoints: string[], timeoutMs: number, healthKey: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      // A read that needs the leader, bounded by what is left of the start-up timeout.
      await kv.checkHealth(healthKey, Math.max(deadline - Date.now(), 100));
      return;
    } catch (err) {
      last = err;
      await new Promise((r) => setTimeout(r, 200));
    }
  }
  throw new Error(`cannot reach etcd at ${endpoints.join(',')}: ${last instanceof Error ? last.message : String(last)}`);
}

/** The namespaces every cluster has from its first start. */
async function ensureSystemNamespaces(namespaces: GenericStore): Promise<void> {
  for (const name of IMMORTAL_NAMESPACES) {
    try {
      await namespaces.create(
        systemContext({ namespace: '' }, SERVER_OWN_WRITE),
        { apiVersion: 'v1', kind: 'Namespace', metadata: { name } },
        { dryRun: false },
      );
    } catch (err) {
      if (!(isStatusError(err) && err.code === 409)) throw err;
    }
  }
}

/** The port the plain-HTTP listener binds (0: the system picks), or null for none: 0 is off, as kube-apiserver's old flag had it. */
function insecureListenPort(port: Config['insecurePort']): number | null {
  if (port === 'ephemeral') return 0;
  return port || null;
}

function listen(server: Server | SecurePortServer, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

/** Encryption at rest: the transformer of each resource's key space, built-in or custom, from --encryption-provider-config. */
function transformersByKey(config: Config): ((key: string) => ValueTransformer | undefined) | undefined {
  if (!config.encryptionProviderConfig) return undefined;
  const builtIns = BUILT_IN_RESOURCES.filter((def) => !def.compute && !def.computeItems).map((def) => ({
    root: resourceRoot(config.etcdPrefix, def),
    group: def.group,
    resource: def.resource,
  }));
  return transformerByKey(loadEncryptionConfig(config.encryptionProviderConfig), config.etcdPrefix, builtIns);
}

function ownSchemaOf(kind: ServedKind): OwnSchema | undefined {
  return (kind as Partial<ResourceDefinition>).ownSchema;
}

/**
 * OpenAPI definitions: from the .proto files, or the kind's own schema (custom resources, CRDs).
 * Under --emulated-version they are still the binary's, as kube's getDefinitions are: only the
 * kinds served differ, and the definitions are those the served kinds reach.
 */
const KIND_SCHEMAS: SchemaSource = {
  definitionName: (kind) => ownSchemaOf(kind)?.definitionName ?? protoDefinitionName(kind),
  definitions: (kinds) => {
    const out = openApiDefinitions(kinds);
    for (const kind of kinds) {
      const own = ownSchemaOf(kind);
      if (own) out[own.definitionName] = own.openApi;
    }
    return out;
  },
};

/** The composition root: etcd, storage, registry, admission, controllers and the HTTP server. */
/** Events (core/v1 and events.k8s.io/v1, one storage) expire --event-ttl after each write, as kube's event REST storage's TTLFunc has them. */
function ttlSecondsOf(def: ResourceDefinition, config: Config): number {
  const isEvent = def.resource === 'events' && (def.group === '' || def.group === 'events.k8s.io');
  return isEvent ? Math.trunc(config.eventTtlMs / 1000) : 0;
}

export async function startServer(config: Config, log: Logger): Promise<RunningServer> {
  const transformerFor = transformersByKey(config);
  // A bad audit policy stops the start before anything runs.
  const auditPolicy = config.auditLogPath && config.auditPolicyFile ? loadAuditPolicy(config.auditPolicyFile) : null;
  // Certificates, keys and authenticators first: a bad file stops kapi before etcd starts.
  const auth = loadAuthentication(
    config,
    (group, resource) => store(group, resource),
    (seconds) => metrics?.observeClientCertificateExpiration(seconds),
    log,
  );
  let etcd: EmbeddedEtcd | null = null;
  let endpoints = config.etcdServers;
  if (endpoints.length === 0) {
    etcd = await EmbeddedEtcd.start({ dataDir: path.join(config.dataDir, 'etcd') });
    endpoints = [etcd.endpoint];
    log(`embedded etcd serving at ${etcd.endpoint}`);
  }
  const registry = new ResourceRegistry();
  let metrics: ApiServerMetrics | null = null;
  const resourceOfKey = (key: string): string => {
    const store = registry.storeOfKey(key);
    return store ? (store.def.group ? `${store.def.resource}.${store.def.group}` : store.def.resource) : '';
  };
  let etcdLog: Logger = () => undefined;
  const kv = new Etcd3Kv({
    endpoints,
    tls: etcdTls(config, endpoints),
    observe: (operation, key, seconds) => metrics?.observeEtcd(operation, resourceOfKey(key), seconds),
    log: (message, err) => etcdLog(message, err),
  });
  try {
    await waitForEtcd(kv, endpoints, config.storageInitializationTimeoutMs, `${config.etcdPrefix}/health`);
    // From here on etcd faults are logged; before, failing to start says it in one line.
    etcdLog = log;
  } catch (err) {
    await kv.close();
    await etcd?.stop();
    throw err;
  }
  const etcdStorage = new EtcdStorage(kv, `${config.etcdPrefix}/`, {
    transformerFor,
    unsafeCorruptObjectDeletion: config.featureGates.AllowUnsafeMalformedObjectDeletion,
    codec: new StorageCodec(config.storageMediaType),
  });
  const etcdVersion = (await kv.status()).version;
  const consistentReads = consistentReadsFromCacheSupported(etcdVersion);
  log(`etcd ${etcdVersion}: consistent reads ${consistentReads ? 'from the watch cache' : 'from etcd'}`);
  const caches: { def: ResourceDefinition; cache: WatchCache }[] = [];
  /** A resource's storage: a watch cache of its key range (started here), or etcd itself. */
  const storageFor = (def: ResourceDefinition): { storage: Storage; cache: WatchCache | null } => {
    if (!config.watchCache) return { storage: etcdStorage, cache: null };
    const cache = new WatchCache(etcdStorage, resourceRoot(config.etcdPrefix, def), {
      historyMs: config.watchCacheHistoryMs,
      maxEvents: 100_000,
      bookmarkIntervalMs: config.watchBookmarkIntervalMs,
      freshnessTimeoutMs: 3000,
      consistentReads,
      watcherBuffer: 1000,
      snapshots: config.featureGates.ListFromCacheSnapshot,
      readyWaitMs: CACHE_READY_WAIT_MS,
      log,
    });
    caches.push({ def, cache });
    return { storage: cache, cache };
  };
  // Versions of one resource (autoscaling/v1 and v2 HPAs) share one storage.
  const storageByPath = new Map<string, Storage>();
  const store: ServerServices['store'] = (group, resource) => {
    const found = registry.stored().find((s) => s.def.group === group && s.def.resource === resource);
    if (!found) throw new Error(`${resource}.${group} is not served`);
    return found;
  };
  const validation: ValidationOptions = { allowLoopbackEndpoints: config.allowLoopbackEndpoints, featureGates: config.featureGates };
  const services: ServerServices = {
    store,
    tokens: auth.tokens,
    reviewToken: auth.reviewToken,
    etcdHealth: () => kv.checkHealth(`${config.etcdPrefix}/health`, ETCD_READYCHECK_TIMEOUT_MS),
    kubelet: loadKubeletClient(
      { cert: config.kubeletClientCertificate, key: config.kubeletClientKey, ca: config.kubeletCertificateAuthority },
      config.kubeletPreferredAddressTypes,
      config.allowLoopbackEndpoints,
    ),
  };
  const emulated = deltaOf(config.emulatedVersion);
  for (const def of servedResources(BUILT_IN_RESOURCES, config.runtimeConfig, config.featureGates, emulated)) {
    if (def.compute || def.computeItems) {
      registry.add(new ComputedStore(def, services));
      continue;
    }
    let storage = storageByPath.get(def.storagePath);
    if (!storage) storageByPath.set(def.storagePath, (storage = storageFor(def).storage));
    const store = new GenericStore(def, storage, config.etcdPrefix, validation, ttlSecondsOf(def, config));
    registry.add(store);
  }
  await Promise.all(caches.map((c) => c.cache.start()));
  const storeOf = (group: string, version: string, resource: string): GenericStore => registry.lookup(group, version, resource) as GenericStore;
  const namespaces = storeOf('', 'v1', 'namespaces');
  metrics = new ApiServerMetrics(
    async () => {
      const counts = new Map<string, number>();
      await Promise.all(registry.stored().map(async (s) => counts.set(s.def.group ? `${s.def.resource}.${s.def.group}` : s.def.resource, await s.count())));
      return counts;
    },
    () =>
      caches.map(({ def, cache }) => ({
        group: def.group,
        version: def.version,
        resource: def.resource,
        kind: def.kind,
        eventsReceived: cache.eventsReceived,
        eventsHeld: cache.eventsHeld,
        watchers: cache.watcherCount,
        revision: cache.currentCacheRevision,
      })),
  );
  metrics.recordFeatureGates(featureStagesAt(config.emulatedVersion.minor).map(({ name, stage }) => ({ name, stage, enabled: config.featureGates[name] })));
  // The authorizer is built later (it needs RBAC's caches); CEL's authorizer checks run only on requests, after that.
  const admission = buildAdmission(config, storeOf, metrics, { registry, authorize: (attrs) => authorizer.authorize(attrs) });
  await ensureSystemNamespaces(namespaces);
  await ensureSystemPriorityClasses(storeOf('scheduling.k8s.io', 'v1', 'priorityclasses'));
  const publishAuthentication = (clientCa: string, requestHeaderCa: string) =>
    publishAuthenticationConfigMap(storeOf('', 'v1', 'configmaps'), authenticationData(clientCa, { ...auth.frontProxy.requestHeader, ca: requestHeaderCa }));
  await publishAuthentication(auth.servingTls.clientCa, auth.frontProxy.requestHeader.ca);
  // ClusterAuthenticationTrustController follows the CA files too, for extension servers.
  auth.certificates.onChange(({ clientCa, requestHeaderCa }) => {
    publishAuthentication(clientCa, requestHeaderCa).catch((err: unknown) => log('cannot publish the reloaded client CAs', err));
  });
  /** The versions of a custom resource share one storage (their objects differ only in apiVersion). */
  const serveCustomResource: ServeResource = async (defs) => {
    const { storage, cache } = storageFor(defs[0]);
    await cache?.start();
    return {
      stores: defs.map((def) => new GenericStore(def, storage, config.etcdPrefix, validation)),
      close: () => {
        cache?.stop();
        const at = caches.findIndex((c) => c.cache === cache);
        if (at >= 0) caches.splice(at, 1);
      },
    };
  };
  // RBAC: the bootstrap policy and its aggregated roles first (every replica, as kube-apiserver's
  // reconciliation), then the authorizer's in-memory view of the four kinds, then the controllers.
  const rbacStores = {
    roles: storeOf('rbac.authorization.k8s.io', 'v1', 'roles'),
    clusterroles: storeOf('rbac.authorization.k8s.io', 'v1', 'clusterroles'),
    rolebindings: storeOf('rbac.authorization.k8s.io', 'v1', 'rolebindings'),
    clusterrolebindings: storeOf('rbac.authorization.k8s.io', 'v1', 'clusterrolebindings'),
  };
  await reconcileBootstrapPolicy(rbacStores);
  await settleAggregation(rbacStores.clusterroles);
  // Service IPs and node ports are allocated around the Service store's writes.
  const serviceAllocation = buildServiceAllocation(config, etcdStorage, (group, resource) => storeOf(group, 'v1', resource), log);
  storeOf('', 'v1', 'services').hooks = serviceAllocation.services;
  let listening: (port: number) => void = () => undefined;
  const securePort = new Promise<number>((resolve) => (listening = resolve));
  // The authorizer before the controllers: those that write through the API are authorized by it.
  // One informer per resource for the process, shared by the controllers, the RBAC policy cache,
  // the node authorizer's graph and the aggregator.
  const informers = new SharedInformers(log, config.controllerClock ?? systemClock);
  const policyCache = new PolicyCache(rbacStores, informers);
  await policyCache.start();
  const rbac = new RbacAuthorizer(policyCache);
  const nodeAuthorization = config.authorizationModes.includes('Node')
    ? await startNodeAuthorization(
        {
          pods: storeOf('', 'v1', 'pods'),
          persistentvolumes: storeOf('', 'v1', 'persistentvolumes'),
          volumeattachments: storeOf('storage.k8s.io', 'v1', 'volumeattachments'),
          resourceslices: storeOf('resource.k8s.io', 'v1', 'resourceslices'),
        },
        informers,
      )
    : null;
  const authorizer = buildAuthorizer(config.authorizationModes, rbac, nodeAuthorization?.authorizer ?? null);
  const aggregator = new Aggregator({
    registry,
    storeOf,
    frontProxy: auth.frontProxy,
    builtIn: new Set(BUILT_IN_RESOURCES.map((def) => `${def.group}/${def.version}`)),
    resyncMs: AGGREGATOR_RESYNC_MS,
    log,
    informers,
  });
  const controllers = startControllers(config, registry, serveCustomResource, metrics, auth.servingTls.serverCa, auth.servingTls.clientSigner, log, {
    allocation: serviceAllocation,
    storage: etcdStorage,
    securePort,
    admission,
    authorizer,
    clock: config.controllerClock ?? systemClock,
    aggregated: aggregator,
    informers,
  });
  for (const { controller, leaderOnly } of aggregator.controllers) controllers.manager.add(controller, { leaderOnly });
  await controllers.manager.start(controllers.elector);
  aggregator.start();
  const auditSink = auditPolicy ? openAuditSink(config.auditLogPath, config.auditLogMaxSize, config.auditLogMaxBackup) : null;
  const compactor = new Compactor(kv, config.etcdCompactionIntervalMs, log, (revision) => {
    for (const { cache } of caches) cache.compacted(revision);
  });
  compactor.start();

  // CBOR is served (and read) only behind its feature gate, as in kube-apiserver.
  const encodings: Encoding[] = ['json', 'yaml', 'protobuf', ...(config.featureGates.CBORServingAndStorage ? (['cbor'] as const) : [])];
  const inFlight = new InFlightRequests();
  const maxInFlight = new MaxInFlight({ readOnly: config.maxRequestsInflight, mutating: config.maxMutatingRequestsInflight });
  // The compiled worker beside this build; running from sources (ts-jest) there is none, and large bodies are decoded in place.
  const workerScript = path.join(__dirname, '../http/body-decode-worker.js');
  const bodyDecoder = new BodyDecoder(existsSync(workerScript) ? workerScript : null);
  let shuttingDown = false;
  const app = createApp({
    registry,
    admission,
    metrics,
    version: versionInfo(config),
    schemas: KIND_SCHEMAS,
    patchSchemaFor,
    watchListEnabled: config.featureGates.WatchList,
    unsafeMalformedObjectDeletion: config.featureGates.AllowUnsafeMalformedObjectDeletion,
    onWatchEvent: (def) => metrics!.observeWatchEvent(def.group, def.version, def.resource),
    services,
    readyChecks: [
      { name: 'ping', check: async () => undefined },
      { name: 'etcd', check: () => kv.checkHealth(`${config.etcdPrefix}/health`, ETCD_READYCHECK_TIMEOUT_MS) },
      {
        name: 'watch-cache',
        check: async () => {
          if (!caches.every((c) => c.cache.synced)) throw new Error('watch caches are not synced');
        },
      },
      ...controllers.manager.healthChecks(),
      // Red from the moment a shutdown begins, so that load balancers stop sending (kube's "shutdown" check, listed last as there).
      {
        name: 'shutdown',
        check: async () => {
          if (shuttingDown) throw new Error('the server is shutting down');
        },
      },
    ],
    liveChecks: [{ name: 'ping', check: async () => undefined }, ...controllers.manager.healthChecks()],
    inputEncodings: encodings,
    bodyDecoder,
    outputEncodings: encodings,
    responseCompression: config.featureGates.APIResponseCompression,
    log,
    deadlines: { requestTimeoutMs: config.requestTimeoutMs, minRequestTimeoutSeconds: config.minRequestTimeoutSeconds },
    maxInFlight,
    inFlight,
    accessControl: {
      authorizer,
      audit: auditPolicy && auditSink ? { policy: auditPolicy, sink: auditSink } : null,
      userOf,
    },
    issuerDiscovery: () => discovery,
    aggregator,
  });
  let discovery: IssuerDiscovery | null = null;
  // The two listeners: HTTPS with authentication, and the plain-HTTP port only when asked for.
  const secureListener = withAccessLog(withProbabilisticGoaway(config.goawayChance, withAuthentication(auth.authenticate, app, log)), leveled(log));
  const servers: { server: Server | SecurePortServer; listener: RequestListener; port: number; host: string }[] = [
    {
      server: createSecureServer(auth.certificates, { maxStreamsPerConnection: config.http2MaxStreamsPerConnection }, secureListener),
      listener: secureListener,
      port: config.securePort,
      host: config.bindAddress,
    },
  ];
  const insecurePort = insecureListenPort(config.insecurePort);
  if (insecurePort !== null) {
    const insecureListener = withAccessLog(withInsecurePortGuard(encodings.map(mediaTypeOf), withUser(INSECURE_SUPERUSER, app)), leveled(log));
    servers.push({ server: createServer(insecureListener), listener: insecureListener, port: insecurePort, host: config.insecureBindAddress });
    if (!isLoopback(config.insecureBindAddress)) {
      log(`WARNING: the insecure port on ${config.insecureBindAddress} serves every request as a cluster admin without authentication`);
    }
  }
  const urls: string[] = [];
  const connections: ListenerConnections[] = [];
  for (const [i, { server, listener, port, host }] of servers.entries()) {
    connections.push(applyListenerLimits(server, { maxConnections: config.maxConnections }, log));
    // Upgrade requests (exec, attach, portforward, proxied WebSockets) take the same path as the others.
    serveUpgrades(server, listener);
    try {
      await listen(server, port, host);
    } catch (err) {
      for (const opened of servers.slice(0, i)) opened.server.close();
      await controllers.stop();
      policyCache.stop();
      nodeAuthorization?.stop();
      auditSink?.close();
      compactor.stop();
      await bodyDecoder.close();
      await kv.close();
      await etcd?.stop();
      throw new Error(`cannot listen on ${host}:${port}: ${(err as Error).message}`);
    }
    urls.push(`${i === 0 ? 'https' : 'http'}://${dialableHost(host)}:${(server.address() as AddressInfo).port}`);
  }
  const [secureUrl, insecureUrl] = urls;
  auth.certificates.start(config.certificateReloadIntervalMs);
  discovery = auth.discovery((servers[0].server.address() as AddressInfo).port);
  listening((servers[0].server.address() as AddressInfo).port);
  log(`kapi serving securely on ${secureUrl}`);
  if (insecureUrl) log(`kapi serving insecurely on ${insecureUrl}`);
  let adminKubeconfig: string | null = null;
  if (auth.servingTls.clientSigner) {
    adminKubeconfig = path.join(config.dataDir, 'admin.kubeconfig');
    writeAdminKubeconfig(adminKubeconfig, secureUrl, auth.servingTls.serverCa, auth.servingTls.clientSigner);
    log(`admin kubeconfig: ${adminKubeconfig}`);
  }

  // While this server answers a client, internal work takes shorter turns (turn-budget.ts).
  const unregisterServing = serveFirst(() => {
    const { readOnly, mutating } = maxInFlight.inFlight;
    return readOnly + mutating > 0;
  });
  let closing: Promise<void> | null = null;
  return {
    url: insecureUrl ?? secureUrl,
    secureUrl,
    adminKubeconfig,
    etcdEndpoints: endpoints,
    close: () =>
      (closing ??= (async () => {
        // Graceful termination, in kube-apiserver's order: not ready at once; after the delay the
        // listener closes; in-flight requests finish (watches end cleanly) up to the timeout; then storage stops.
        shuttingDown = true;
        if (config.shutdownDelayMs > 0) await new Promise((r) => setTimeout(r, config.shutdownDelayMs));
        const closed = Promise.all(servers.map(({ server }) => new Promise<void>((resolve) => server.close(() => resolve()))));
        for (const c of connections) c.drain();
        if (!(await inFlight.drain(config.shutdownTimeoutMs)))
          log(`shutdown: ${inFlight.size} requests still running after ${config.shutdownTimeoutMs} ms are cut`);
        for (const c of connections) c.closeAll();
        await closed;
        auth.certificates.stop();
        await controllers.stop();
        unregisterServing();
        aggregator.stop();
        policyCache.stop();
        nodeAuthorization?.stop();
        compactor.stop();
        for (const { cache } of caches) cache.stop();
        auditSink?.close();
        await bodyDecoder.close();
        await kv.close();
        await etcd?.stop();
      })()),
  };
}
