import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { AdmissionChain } from '../admission/admission';
import { IMMORTAL_NAMESPACES, NamespaceLifecycle } from '../admission/namespace-lifecycle';
import { isStatusError } from '../api/errors';
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { ApiServerIdentity } from '../controllers/apiserver-identity';
import { GarbageCollector } from '../controllers/garbage-collector';
import { CrdController, type ServeResource } from '../controllers/crd-controller';
import { CrdEstablishingController } from '../controllers/crd-establishing-controller';
import { NamespaceController } from '../controllers/namespace-controller';
import { ControllerManager } from '../controllers/runtime/controller-manager';
import { LeaderElector } from '../controllers/runtime/leader-election';
import { LeaseLock } from '../controllers/runtime/lease-lock';
import type { Encoding } from '../codec/negotiate';
import { createApp, type VersionInfo } from '../http/app';
import { ApiServerMetrics } from '../metrics/metrics';
import { loadSigningKey } from '../auth/signing-key';
import { ServiceAccountTokens } from '../auth/service-account-tokens';
import { ComputedStore } from '../registry/computed-store';
import type { ServerServices } from '../registry/server-services';
import { GenericStore, resourceRoot } from '../registry/generic-store';
import type { OwnSchema, ResourceDefinition, ServedKind } from '../registry/resource-definition';
import type { SchemaSource } from '../http/openapi';
import { ResourceRegistry } from '../registry/resource-registry';
import { BUILT_IN_RESOURCES } from '../resources';
import { CRD_GROUP } from '../resources/customresourcedefinitions';
import { loadSchemas, openApiDefinitions, patchSchemaFor, protoDefinitionName } from '../schema/proto-schema';
import { Etcd3Kv } from '../storage/etcd/etcd3-kv';
import { Compactor } from '../storage/etcd/compactor';
import { EtcdStorage } from '../storage/etcd/etcd-storage';
import { loadEncryptionConfig } from '../storage/etcd/transformers/encryption-config';
import type { ValueTransformer } from '../storage/etcd/transformers/value-transformer';
import type { KV } from '../storage/etcd/kv';
import { WatchCache } from '../storage/cache/watch-cache';
import type { Storage } from '../storage/interfaces';
import type { Config } from './config';
import { EmbeddedEtcd } from './embedded-etcd';
import type { Logger } from './logger';

export const KUBERNETES_VERSION = { major: '1', minor: '34', patch: '0' };

export interface RunningServer {
  /** http://host:port */
  url: string;
  etcdEndpoints: string[];
  close(): Promise<void>;
}

function versionInfo(): VersionInfo {
  const { major, minor, patch } = KUBERNETES_VERSION;
  return {
    major,
    minor,
    gitVersion: `v${major}.${minor}.${patch}+kapi`,
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

async function waitForEtcd(kv: KV, endpoints: string[], timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      await kv.status();
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
      await namespaces.create('', { apiVersion: 'v1', kind: 'Namespace', metadata: { name } }, { dryRun: false });
    } catch (err) {
      if (!(isStatusError(err) && err.code === 409)) throw err;
    }
  }
}

function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

/** Encryption at rest: the transformer of each resource's key space, from --encryption-provider-config. */
function transformersByKey(config: Config): ((key: string) => ValueTransformer | undefined) | undefined {
  if (!config.encryptionProviderConfig) return undefined;
  const lookup = loadEncryptionConfig(config.encryptionProviderConfig);
  const roots = BUILT_IN_RESOURCES.filter((def) => !def.compute).map((def) => ({ root: resourceRoot(config.etcdPrefix, def), transformer: lookup(def.group, def.resource) }))
    .filter((r): r is { root: string; transformer: ValueTransformer } => r.transformer !== undefined);
  return (key) => roots.find((r) => key.startsWith(r.root))?.transformer;
}

function ownSchemaOf(kind: ServedKind): OwnSchema | undefined {
  return (kind as Partial<ResourceDefinition>).ownSchema;
}

/** OpenAPI definitions: from the .proto files, or the kind's own schema (custom resources, CRDs). */
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

/** The lease kapi's leader-only controllers run under, as kube-controller-manager's in kube-system. */
export const CONTROLLER_MANAGER_LEASE = 'kapi-controller-manager';

/**
 * The in-process controllers: every replica serves CRDs and keeps its identity lease; the lease
 * holder (every replica with --leader-elect=false) runs the namespace controller, the garbage
 * collector and the CRD status controller.
 */
function startControllers(config: Config, registry: ResourceRegistry, serveCustomResource: ServeResource, metrics: ApiServerMetrics, log: Logger) {
  const storeOf = (group: string, resource: string): GenericStore => registry.lookup(group, 'v1', resource) as GenericStore;
  const leases = storeOf('coordination.k8s.io', 'leases');
  const crds = storeOf(CRD_GROUP, 'customresourcedefinitions');
  const garbageCollector = new GarbageCollector(registry, log);
  // An ephemeral port says nothing about who this is: such a replica gets a name of its own.
  const identity = new ApiServerIdentity(leases, config.port === 0 ? randomUUID() : `${config.bindAddress}:${config.port}`, log);
  const crdController = new CrdController(
    crds,
    registry,
    serveCustomResource,
    (served, serving) => (serving ? garbageCollector.track(served[0]) : garbageCollector.untrack(served[0])),
    (served) => identity.setServed(served),
    log,
  );
  const manager = new ControllerManager(log);
  manager.add(crdController, { leaderOnly: false });
  manager.add(identity, { leaderOnly: false });
  manager.add(new NamespaceController(registry, storeOf('', 'namespaces'), log), { leaderOnly: true });
  manager.add(garbageCollector, { leaderOnly: true });
  manager.add(new CrdEstablishingController(crds, leases, crdController, identity.leaseName, log), { leaderOnly: true });
  const elector = config.leaderElect
    ? new LeaderElector(
        new LeaseLock(leases, 'kube-system', CONTROLLER_MANAGER_LEASE),
        {
          leaseDurationMs: config.leaderElectLeaseDurationMs,
          renewDeadlineMs: config.leaderElectRenewDeadlineMs,
          retryPeriodMs: config.leaderElectRetryPeriodMs,
          identity: `${hostname()}_${randomUUID()}`,
        },
        manager.leadership,
        log,
        LeaderElector.statusGauge(metrics.registry),
      )
    : null;
  return {
    manager,
    elector,
    /** Stops every controller, releases the leader lease and deletes this replica's identity lease. */
    stop: async (): Promise<void> => {
      await manager.stop();
      await Promise.race([identity.remove(), new Promise((r) => setTimeout(r, 5000).unref())]);
    },
  };
}

/** The composition root: etcd, storage, registry, admission, controllers and the HTTP server. */
export async function startServer(config: Config, log: Logger): Promise<RunningServer> {
  loadSchemas();
  const transformerFor = transformersByKey(config);
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
    const store = registry.stored().find((s) => key.startsWith(s.prefix('')));
    return store ? (store.def.group ? `${store.def.resource}.${store.def.group}` : store.def.resource) : '';
  };
  const kv = new Etcd3Kv({
    endpoints,
    observe: (operation, key, seconds) => metrics?.observeEtcd(operation, resourceOfKey(key), seconds),
  });
  try {
    await waitForEtcd(kv, endpoints, config.storageInitializationTimeoutMs);
  } catch (err) {
    await kv.close();
    await etcd?.stop();
    throw err;
  }
  const etcdStorage = new EtcdStorage(kv, `${config.etcdPrefix}/`, {
    transformerFor,
    unsafeCorruptObjectDeletion: config.featureGates.AllowUnsafeMalformedObjectDeletion,
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
      log,
    });
    caches.push({ def, cache });
    return { storage: cache, cache };
  };
  // Versions of one resource (autoscaling/v1 and v2 HPAs) share one storage.
  const storageByPath = new Map<string, Storage>();
  const services: ServerServices = {
    store: (group, resource) => {
      const store = registry.stored().find((s) => s.def.group === group && s.def.resource === resource);
      if (!store) throw new Error(`${resource}.${group} is not served`);
      return store;
    },
    tokens: new ServiceAccountTokens(await loadSigningKey(kv, config.etcdPrefix)),
  };
  for (const def of BUILT_IN_RESOURCES) {
    if (def.compute) {
      registry.add(new ComputedStore(def, services));
      continue;
    }
    let storage = storageByPath.get(def.storagePath);
    if (!storage) storageByPath.set(def.storagePath, (storage = storageFor(def).storage));
    const store = new GenericStore(def, storage, config.etcdPrefix);
    registry.add(store);
  }
  await Promise.all(caches.map((c) => c.cache.start()));
  const storeOf = (group: string, version: string, resource: string): GenericStore => registry.lookup(group, version, resource) as GenericStore;
  const namespaces = storeOf('', 'v1', 'namespaces');
  metrics = new ApiServerMetrics(async () => {
    const counts = new Map<string, number>();
    await Promise.all(registry.stored().map(async (s) => counts.set(s.def.group ? `${s.def.resource}.${s.def.group}` : s.def.resource, await s.count())));
    return counts;
  }, () =>
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
  const admission = new AdmissionChain([
    new NamespaceLifecycle({
      get: async (name, live) => {
        // From the cache first (unless asked to be live); a namespace created a moment ago may only be in etcd yet.
        for (const resourceVersion of live ? [''] : ['0', '']) {
          try {
            return await namespaces.get('', name, { resourceVersion, match: '' });
          } catch (err) {
            if (!(isStatusError(err) && err.code === 404)) throw err;
          }
        }
        return null;
      },
    }),
  ]);
  await ensureSystemNamespaces(namespaces);
  /** The versions of a custom resource share one storage (their objects differ only in apiVersion). */
  const serveCustomResource: ServeResource = async (defs) => {
    const { storage, cache } = storageFor(defs[0]);
    await cache?.start();
    return {
      stores: defs.map((def) => new GenericStore(def, storage, config.etcdPrefix)),
      close: () => {
        cache?.stop();
        const at = caches.findIndex((c) => c.cache === cache);
        if (at >= 0) caches.splice(at, 1);
      },
    };
  };
  const controllers = startControllers(config, registry, serveCustomResource, metrics, log);
  await controllers.manager.start(controllers.elector);
  const compactor = new Compactor(kv, config.etcdCompactionIntervalMs, log, (revision) => {
    for (const { cache } of caches) cache.compacted(revision);
  });
  compactor.start();

  // CBOR is served (and read) only behind its feature gate, as in kube-apiserver.
  const encodings: Encoding[] = ['json', 'yaml', 'protobuf', ...(config.featureGates.CBORServingAndStorage ? (['cbor'] as const) : [])];
  const app = createApp({
    registry,
    admission,
    metrics,
    version: versionInfo(),
    schemas: KIND_SCHEMAS,
    patchSchemaFor,
    watchListEnabled: config.featureGates.WatchList,
    unsafeMalformedObjectDeletion: config.featureGates.AllowUnsafeMalformedObjectDeletion,
    onWatchEvent: (def) => metrics!.observeWatchEvent(def.group, def.version, def.resource),
    services,
    readyChecks: [
      { name: 'ping', check: async () => undefined },
      { name: 'etcd', check: async () => void (await kv.status()) },
      {
        name: 'watch-cache',
        check: async () => {
          if (!caches.every((c) => c.cache.synced)) throw new Error('watch caches are not synced');
        },
      },
      ...controllers.manager.healthChecks(),
    ],
    liveChecks: [{ name: 'ping', check: async () => undefined }, ...controllers.manager.healthChecks()],
    inputEncodings: encodings,
    outputEncodings: encodings,
    responseCompression: config.featureGates.APIResponseCompression,
    log,
  });
  const server = createServer(app);
  server.keepAliveTimeout = 65_000;
  try {
    await listen(server, config.port, config.bindAddress);
  } catch (err) {
    await controllers.stop();
    await kv.close();
    await etcd?.stop();
    throw new Error(`cannot listen on ${config.bindAddress}:${config.port}: ${(err as Error).message}`);
  }
  const { port } = server.address() as AddressInfo;
  const url = `http://${config.bindAddress.includes(':') ? `[${config.bindAddress}]` : config.bindAddress}:${port}`;
  log(`kapi serving on ${url}`);

  let closing: Promise<void> | null = null;
  return {
    url,
    etcdEndpoints: endpoints,
    close: () =>
      (closing ??= (async () => {
        await controllers.stop();
        compactor.stop();
        for (const { cache } of caches) cache.stop();
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeAllConnections();
        });
        await kv.close();
        await etcd?.stop();
      })()),
  };
}
