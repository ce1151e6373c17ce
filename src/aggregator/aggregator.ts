import { abortSignalOf, type CallSignal } from '../api/request-abort';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { resolveService } from '../admission/webhooks/registry-source';
import type { UserInfo } from '../auth/user';
import type { Controller } from '../controllers/runtime/controller';
import type { ExtraDiscovery } from '../http/discovery';
import type { GenericStore } from '../registry/generic-store';
import type { ResourceRegistry } from '../registry/resource-registry';
import { APIREGISTRATION_GROUP } from '../resources/apiservices';
import type { Logger } from '../server/logger';
import { ApiServiceIndex } from './apiservice-index';
import { AvailabilityController } from './availability-controller';
import { backendGet, resolveBackend, type ResolveService } from './backend';
import { DiscoveryCache } from './discovery-cache';
import type { FrontProxy } from './front-proxy';
import { LocalApiServices } from './local-apiservices';
import { identityHeaders, plainError, proxyToApiService } from './proxy';
import { pathNotFound } from '../api/errors';
import type { SharedInformers } from '../controllers/runtime/shared-informers';

/** What the HTTP app asks of the aggregator. */
export interface AggregatorHooks {
  /** Serves a request under /apis/<group>/<version> of a remote APIService and answers true; false leaves it to kapi. */
  serve(req: IncomingMessage, res: ServerResponse, path: string, target: string, user: UserInfo, signal: CallSignal): boolean;
  discovery: ExtraDiscovery;
}

export interface AggregatorOptions {
  registry: ResourceRegistry;
  storeOf(group: string, version: string, resource: string): GenericStore;
  frontProxy: FrontProxy;
  /** "group/version" of every built-in group-version (their APIServices are `onstart`). */
  builtIn: Set<string>;
  /** How often availability is checked again and extension servers' discovery fetched again. */
  resyncMs: number;
  log: Logger;
  /** The process's shared informers (APIServices, Services, Endpoints, EndpointSlices are read through views of them). */
  informers: SharedInformers;
}

/**
 * kube-aggregator inside kapi: the APIService index every replica keeps, the proxy, discovery of
 * extension servers, and the controllers (local APIServices and availability, leader only).
 */
export class Aggregator implements AggregatorHooks {
  readonly discovery: DiscoveryCache;
  readonly controllers: { controller: Controller; leaderOnly: boolean }[];
  private readonly index: ApiServiceIndex;
  private readonly resolve: ResolveService;

  constructor(private readonly opts: AggregatorOptions) {
    const apiServices = opts.storeOf(APIREGISTRATION_GROUP, 'v1', 'apiservices');
    this.index = new ApiServiceIndex(apiServices, opts.informers);
    this.resolve = (namespace, name, port) => resolveService(opts.storeOf, namespace, name, port);
    const clientCert = opts.frontProxy.proxyClient;
    this.discovery = new DiscoveryCache(this.index, this.resolve, clientCert, opts.resyncMs);
    this.controllers = [
      { controller: this.index, leaderOnly: false },
      { controller: new LocalApiServices(opts.registry, opts.builtIn, this.index, apiServices, opts.log), leaderOnly: true },
      {
        controller: new AvailabilityController(
          this.index,
          apiServices,
          {
            services: opts.storeOf('', 'v1', 'services'),
            endpoints: opts.storeOf('', 'v1', 'endpoints'),
            endpointSlices: opts.storeOf('discovery.k8s.io', 'v1', 'endpointslices'),
          },
          this.resolve,
          clientCert,
          opts.resyncMs,
          opts.log,
          opts.informers,
        ),
        leaderOnly: true,
      },
    ];
  }

  start(): void {
    this.discovery.start();
  }

  stop(): void {
    this.discovery.stop();
  }

  /**
   * A GET of an extension server's path as `user`, answered as a client of kube-apiserver would see
   * it through the proxy: the Status of a 404 when no APIService serves the group-version, a 503
   * while it is not available or cannot be reached, else the backend's answer. The HPA controller
   * reads metrics.k8s.io so.
   */
  async get(path: string, user: UserInfo, timeoutMs: number): Promise<{ status: number; body: Buffer }> {
    const [, group, version] = path.split('?')[0].split('/').filter(Boolean);
    const view = group && version ? this.index.remote(group, version) : null;
    if (!view) return { status: 404, body: Buffer.from(JSON.stringify(pathNotFound().status)) };
    if (view.available?.status !== 'True') return { status: 503, body: Buffer.from('service unavailable\n') };
    try {
      const backend = await resolveBackend(view, this.resolve, this.opts.frontProxy.proxyClient);
      return await backendGet(backend, path, 'application/json', timeoutMs, identityHeaders(user));
    } catch (err) {
      return { status: 503, body: Buffer.from((err as Error).message) };
    }
  }

  serve(req: IncomingMessage, res: ServerResponse, path: string, target: string, user: UserInfo, signal: CallSignal): boolean {
    // As the aggregator's handlers are registered: `/apis/<group>/<version>` exactly or as a prefix
    // before a slash (PathRecorderMux compares the path as sent, an empty segment is no match).
    const [empty, root, group, version] = path.split('/');
    if (empty !== '' || root !== 'apis' || !group || !version) return false;
    const view = this.index.remote(group, version);
    if (!view) return false;
    proxyToApiService(req, res, view, user, target, abortSignalOf(signal), this.resolve, this.opts.frontProxy.proxyClient, this.opts.log).catch(
      (err: unknown) => {
        this.opts.log(`proxying to APIService ${view.name} failed`, err);
        plainError(res, 503, 'service unavailable');
      },
    );
    return true;
  }
}
