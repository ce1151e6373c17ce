import { RequestAbort } from '../api/request-abort';
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import express from 'express';
import { isStatusError, notAcceptable, pathNotFound, toStatusError, tooManyRequests, type StatusError } from '../api/errors';
import type { AdmissionChain } from '../admission/admission';
import type { GroupVersionKind } from '../api/types';
import { negotiateOutput, type Encoding, type OutputOptions } from '../codec/negotiate';
import type { ApiServerMetrics } from '../metrics/metrics';
import type { PatchSchema } from '../patch/strategic-merge';
import type { ResourceDefinition } from '../registry/resource-definition';
import type { ServerServices } from '../registry/types';
import type { ResourceRegistry } from '../registry/resource-registry';
import { acceptsOpenApiV2Protobuf, encodeOpenApiV2, OPENAPI_V2_PROTOBUF } from './openapi-v2-protobuf';
import { aggregatedDiscovery, apiGroupDocument, apiGroupList, apiResourceList, apiVersions } from './discovery';
import type { InFlightRequests } from './filters/in-flight-requests';
import { isLongRunning } from './filters/long-running';
import type { MaxInFlight } from './filters/max-in-flight';
import { deadlineExceeded, requestDeadlineMs, type DeadlineConfig } from './filters/request-deadline';
import { requestLabels } from './filters/request-metrics';
import { parseQuery, parseRequestTarget } from './request-target';
import { AuditAnnotationMap } from '../audit/annotation-map';
import { accessControlled, type AccessControl, type AuthorizedRequest } from './filters/access-control';
import type { RequestAudit } from './filters/audit';
import { groupVersionPath, openApiV2Document, openApiV3Document, openApiV3Index, type SchemaSource } from './openapi';
import { isPretty } from './query';
import { parseRequestInfo, type RequestInfo } from './request-info';
import { acceptsGzip } from './body-writer';
import { encode } from './encode';
import { writeBody, writeEncoded, writeError } from './respond';
import { resolveResourceRequest, serveResource } from './router';
import { whileServedSetStays } from '../registry/while-served-set-stays';
import { loopSlices, runWalkInSlices } from '../api/loop-slices';
import { JWKS_PATH, OPENID_CONFIGURATION_PATH, type IssuerDiscovery } from '../auth/oidc-discovery';
import type { BodyDecoder } from './body-decoder';
import type { AggregatorHooks } from '../aggregator/aggregator';

export interface VersionInfo {
  major: string;
  minor: string;
  emulationMajor?: string;
  emulationMinor?: string;
  minCompatibilityMajor?: string;
  minCompatibilityMinor?: string;
  gitVersion: string;
  gitCommit: string;
  gitTreeState: string;
  buildDate: string;
  goVersion: string;
  compiler: string;
  platform: string;
}

export interface HealthCheck {
  name: string;
  check(): Promise<void>;
}

export interface AppDeps {
  registry: ResourceRegistry;
  admission: AdmissionChain;
  metrics: ApiServerMetrics;
  version: VersionInfo;
  schemas: SchemaSource;
  patchSchemaFor(kind: GroupVersionKind): PatchSchema;
  watchListEnabled: boolean;
  /** The AllowUnsafeMalformedObjectDeletion feature gate. */
  unsafeMalformedObjectDeletion: boolean;
  onWatchEvent(def: ResourceDefinition): void;
  services: ServerServices;
  /** Checks behind /readyz (all must pass); /livez and /healthz use `liveChecks`. */
  readyChecks: HealthCheck[];
  liveChecks: HealthCheck[];
  inputEncodings: Encoding[];
  /** Decodes large YAML and CBOR request bodies off the event loop. */
  bodyDecoder: BodyDecoder;
  /** Response encodings of resource endpoints (JSON, YAML, Protobuf; CBOR behind its gate). */
  outputEncodings: Encoding[];
  /** The APIResponseCompression feature gate. */
  responseCompression: boolean;
  log: (message: string, err?: unknown) => void;
  /** Request deadlines (--request-timeout, --min-request-timeout). */
  deadlines: DeadlineConfig;
  /** --max-requests-inflight and --max-mutating-requests-inflight. */
  maxInFlight: MaxInFlight;
  /** Every request being served, for a graceful shutdown. */
  inFlight: InFlightRequests;
  /** Audit, impersonation and authorization of every request. */
  accessControl: AccessControl;
  /** Service account issuer discovery documents (known once the secure port listens); null when the issuer is not an https URL. */
  issuerDiscovery?: () => IssuerDiscovery | null;
  /** The aggregator: extension servers' group-versions are proxied, their groups merged into discovery. */
  aggregator?: AggregatorHooks;
}

interface RequestState {
  info: RequestInfo;
  query: URLSearchParams;
  pretty: boolean;
  /** The client takes gzip and the server may compress. */
  compress: boolean;
  audit: RequestAudit | null;
}

const STATE = Symbol('kapi.request');

/** What version, discovery and other non-resource documents are written in. */
const NON_RESOURCE_ENCODINGS: Encoding[] = ['json', 'yaml'];
const NON_RESOURCE_OUTPUT: OutputOptions = { encodings: NON_RESOURCE_ENCODINGS };
const DISCOVERY_OUTPUT: OutputOptions = { encodings: NON_RESOURCE_ENCODINGS, discovery: true };
type StatefulResponse = ServerResponse & { [STATE]?: RequestState };

/** A map of audit annotations whose every entry is also handed to the audit filter. */
/** Health endpoints answer as kube-apiserver's: "ok", or a per-check report with ?verbose. */
async function health(res: ServerResponse, query: URLSearchParams, checks: HealthCheck[], kind: string, only?: string): Promise<void> {
  const selected = only ? checks.filter((c) => c.name === only) : checks;
  if (only && selected.length === 0) throw pathNotFound();
  const results = await Promise.all(
    selected.map(async (c) => {
      try {
        await c.check();
        return { name: c.name, ok: true };
      } catch {
        return { name: c.name, ok: false };
      }
    }),
  );
  const healthy = results.every((r) => r.ok);
  const lines = results.map((r) => (r.ok ? `[+]${r.name} ok` : `[-]${r.name} failed: reason withheld`));
  const verbose = query.has('verbose') || !healthy;
  const text = verbose ? `${lines.join('\n')}\n${kind} check ${healthy ? 'passed' : 'failed'}\n` : 'ok';
  res.setHeader('X-Content-Type-Options', 'nosniff');
  writeBody(res, healthy ? 200 : 500, 'text/plain; charset=utf-8', Buffer.from(text));
}

/** Whether kube-apiserver would have a route for the request (a served resource, subresource and verb): only those are instrumented there. */
function installsRoute(info: RequestInfo, registry: ResourceRegistry): boolean {
  if (!info.isResourceRequest) return true;
  try {
    resolveResourceRequest(info, registry);
    return true;
  } catch (err) {
    if (isStatusError(err)) return false;
    throw err;
  }
}

export function createApp(deps: AppDeps): RequestListener {
  // express's router alone: the application object would swap the request's and response's
  // prototypes for its own (IncomingMessage's), which HTTP/2's request and response are not.
  const app = express.Router();

  const state = (res: ServerResponse): RequestState => (res as StatefulResponse)[STATE]!;
  const respondError = (res: ServerResponse, err: unknown): void => {
    if (!isStatusError(err)) state(res).audit?.panic(err instanceof Error ? err.message : String(err));
    const status: StatusError = toStatusError(err, (e) => deps.log('internal error', e));
    if (res.headersSent) {
      res.end();
      return;
    }
    // A 413 leaves the rest of a large body unread: an HTTP/1.1 connection closes rather than read
    // it (an HTTP/2 stream just ends; Connection: close there would be a GOAWAY).
    if (status.code === 413 && res.req.httpVersionMajor === 1) res.setHeader('Connection', 'close');
    try {
      const s = state(res);
      const encodings = s.info.isResourceRequest ? deps.outputEncodings : NON_RESOURCE_ENCODINGS;
      writeError(res, status, (res.req as IncomingMessage).headers.accept, encodings, s.pretty, s.compress);
    } catch (writeErr) {
      deps.log('cannot write an error response', writeErr);
      if (res.headersSent) res.destroy();
      else writeError(res, status, undefined, ['json'], false, false);
    }
  };
  const json = (res: ServerResponse, value: unknown, code = 200): Promise<void> => {
    const s = state(res);
    const output = negotiateOutput((res.req as IncomingMessage).headers.accept, NON_RESOURCE_OUTPUT);
    return writeEncoded(res, code, value, output, s.pretty || output.pretty, s.compress);
  };
  const wrap =
    (fn: (req: express.Request, res: express.Response) => Promise<void> | void) =>
    (req: express.Request, res: express.Response, next: express.NextFunction): void => {
      Promise.resolve()
        .then(() => fn(req, res))
        .catch(next);
    };

  app.get(
    '/version',
    wrap((_req, res) => json(res, deps.version)),
  );
  for (const kind of ['healthz', 'livez', 'readyz'] as const) {
    const checks = kind === 'readyz' ? deps.readyChecks : deps.liveChecks;
    app.get(
      `/${kind}`,
      wrap((_req, res) => health(res, state(res).query, checks, kind)),
    );
    // Check names may hold slashes (poststarthook/...), as kube-apiserver's do.
    app.get(
      `/${kind}/*check`,
      wrap((req, res) => health(res, state(res).query, checks, kind, ([] as string[]).concat(req.params.check).join('/'))),
    );
  }
  app.get(
    '/metrics',
    wrap(async (_req, res) => {
      writeBody(res, 200, deps.metrics.contentType, Buffer.from(await deps.metrics.exposition()));
    }),
  );

  // As serviceaccount.OpenIDMetadataServer: cacheable for an hour by any cache.
  const serveDiscovery = (document: keyof IssuerDiscovery, contentType: string) =>
    wrap((_req, res) => {
      const docs = deps.issuerDiscovery?.();
      if (!docs) throw pathNotFound();
      res.setHeader('Cache-Control', 'public, max-age=3600');
      writeBody(res, 200, contentType, docs[document]);
    });
  app.get(OPENID_CONFIGURATION_PATH, serveDiscovery('configuration', 'application/json'));
  app.get(JWKS_PATH, serveDiscovery('jwks', 'application/jwk-set+json'));

  // info.version is the emulation version, major.minor (genericapiserver's completeOpenAPI with EffectiveVersion.EmulationVersion()).
  const openApiVersion = `${deps.version.emulationMajor ?? deps.version.major}.${deps.version.emulationMinor ?? deps.version.minor}`;
  // Built in slices, a group-version at a time: the first request after a change waits, the others do not.
  const v3Docs = whileServedSetStays(deps.registry, async () => {
    const docs = new Map<string, Buffer>();
    const slice = loopSlices();
    for (const entry of deps.registry.groupVersions()) {
      await slice();
      docs.set(groupVersionPath(entry), encode(openApiV3Document(entry, deps.schemas, openApiVersion), 'json', false));
    }
    return docs;
  });
  const v3Index = whileServedSetStays(deps.registry, async () => openApiV3Index(await v3Docs()));
  app.get(
    '/openapi/v3',
    wrap(async (_req, res) => json(res, await v3Index())),
  );
  app.get(
    '/openapi/v3/*path',
    wrap(async (req, res) => {
      const path = (req.params as { path: string[] }).path.join('/');
      const body = (await v3Docs()).get(path);
      if (!body) throw pathNotFound();
      if (state(res).query.has('hash')) res.setHeader('Cache-Control', 'public, immutable');
      writeBody(res, 200, 'application/json', body);
    }),
  );
  const v2Document = whileServedSetStays(deps.registry, () => runWalkInSlices(openApiV2Document(deps.registry, deps.schemas, openApiVersion), loopSlices()));
  const v2Protobuf = whileServedSetStays(deps.registry, async () => encodeOpenApiV2(await v2Document()));
  const v2Json = whileServedSetStays(deps.registry, async () => encode(await v2Document(), 'json', false));
  app.get(
    '/openapi/v2',
    wrap(async (req, res) => {
      const accept = req.headers.accept;
      if (acceptsOpenApiV2Protobuf(accept)) return writeBody(res, 200, OPENAPI_V2_PROTOBUF, await v2Protobuf());
      if (accept && !/application\/json|\*\/\*/.test(accept)) throw notAcceptable(['application/json', OPENAPI_V2_PROTOBUF]);
      writeBody(res, 200, 'application/json', await v2Json());
    }),
  );

  const discovery = (core: boolean) =>
    wrap((req, res) => {
      const output = negotiateOutput(req.headers.accept, DISCOVERY_OUTPUT);
      const { pretty, compress } = state(res);
      res.setHeader('Vary', 'Accept');
      if (output.representation.kind === 'APIGroupDiscoveryList') {
        return writeEncoded(
          res,
          200,
          aggregatedDiscovery(deps.registry, core, output.representation.version, deps.aggregator?.discovery),
          output,
          pretty,
          compress,
        );
      }
      const host = req.headers.host ?? '127.0.0.1';
      return writeEncoded(res, 200, core ? apiVersions(host) : apiGroupList(deps.registry, deps.aggregator?.discovery), output, pretty, compress);
    });
  app.get('/api', discovery(true));
  app.get('/apis', discovery(false));

  // Discovery documents per group and group-version; anything else is a 404 Status.
  app.use(
    wrap((req, res) => {
      const { info } = state(res);
      const segments = info.isResourceRequest ? [] : info.path.split('/').filter(Boolean);
      if (req.method === 'GET' && segments[0] === 'api' && segments.length === 2 && deps.registry.hasGroupVersion('', segments[1])) {
        const entry = deps.registry.groupVersions().find((gv) => gv.group === '' && gv.version === segments[1])!;
        return json(res, apiResourceList(entry));
      }
      if (req.method === 'GET' && segments[0] === 'apis' && segments.length === 2) {
        const doc = apiGroupDocument(deps.registry, segments[1], deps.aggregator?.discovery);
        if (doc) return json(res, doc);
      }
      if (req.method === 'GET' && segments[0] === 'apis' && segments.length === 3 && deps.registry.hasGroupVersion(segments[1], segments[2])) {
        const entry = deps.registry.groupVersions().find((gv) => gv.group === segments[1] && gv.version === segments[2])!;
        return json(res, apiResourceList(entry));
      }
      if (req.method === 'GET' && !info.isResourceRequest && info.path === '/') return json(res, rootPaths(deps));
      throw pathNotFound();
    }),
  );

  app.use((err: unknown, _req: express.Request, res: express.Response, _next: express.NextFunction) => respondError(res, err));

  /** The answer of a request that failed before its state was known: a JSON Status. */
  const failEarly = (res: ServerResponse, err: unknown): void => {
    const status = toStatusError(err, (e) => deps.log('internal error', e));
    if (res.headersSent) res.destroy();
    else writeError(res, status, undefined, ['json'], false, false);
  };

  /** Request info, audit id, metrics, limits and a deadline for every request; resource requests skip express's routing. */
  const serve = (req: IncomingMessage, res: ServerResponse): void => {
    res.setHeader('Audit-Id', randomUUID());
    res.setHeader('Cache-Control', 'no-cache, private');
    const target = parseRequestTarget(req.url ?? '/');
    const query = parseQuery(target.rawQuery);
    const info = parseRequestInfo(req.method ?? 'GET', target.path, query);
    const s: RequestState = {
      info,
      query,
      pretty: isPretty(query, req.headers['user-agent']),
      compress: deps.responseCompression && acceptsGzip(req.headers['accept-encoding']),
      audit: null,
    };
    (res as StatefulResponse)[STATE] = s;
    const labels = requestLabels(req, info, query);
    // A resource is counted only while served, as kube-apiserver instruments the routes it installs:
    // the names in a path are the client's to choose, and each would add series for good.
    // Asked only of watches and of answers a missing route gives (404, 405), so a served request resolves its route once.
    const counted = (): boolean => (res.statusCode !== 404 && res.statusCode !== 405) || installsRoute(info, deps.registry);
    const started = process.hrtime.bigint();
    const longRunning = isLongRunning(info);
    const untrack = info.isResourceRequest && info.verb === 'watch' && installsRoute(info, deps.registry) ? deps.metrics.trackLongRunning(labels) : null;
    // One end per request: it comes at the deadline (its reason then the 504 Status), when the
    // client goes away, or when a shutdown ends a long-running request.
    const abort = new RequestAbort();
    let timer: NodeJS.Timeout | undefined;
    let release: (() => void) | undefined;
    res.on('close', () => {
      clearTimeout(timer);
      release?.();
      if (!res.writableFinished) abort.abort();
      untrack?.();
      if (counted()) deps.metrics.observeRequest(labels, res.statusCode, Number(process.hrtime.bigint() - started) / 1e9);
    });
    // A watch asked for while draining would only be cut: the client is told to come back, as
    // kube-apiserver's --shutdown-send-retry-after answers during its graceful termination.
    if (longRunning && deps.inFlight.draining) {
      res.setHeader('Connection', 'close');
      throw tooManyRequests('The apiserver is shutting down, please try again later.', 1);
    }
    deps.inFlight.add(res, longRunning, () => abort.abort());
    const deadlineMs = requestDeadlineMs(info, query, deps.deadlines);
    const arrivedAt = Date.now();
    if (!longRunning && !isHealthPath(info)) {
      const admitted = deps.maxInFlight.admit(info);
      if (isStatusError(admitted)) throw admitted;
      release = admitted;
    }
    if (deadlineMs !== null) timer = setTimeout(() => expire(req, res, abort, longRunning), deadlineMs);
    const dispatch = ({ user, annotate }: AuthorizedRequest): void => {
      // An extension server's group-version goes to it, after kapi's authentication and authorization, as kube's aggregator sits in front.
      const rawTarget = target.rawQuery ? `${target.rawPath}?${target.rawQuery}` : target.rawPath;
      if (deps.aggregator?.serve(req, res, target.path, rawTarget, user, abort)) return;
      if (!info.isResourceRequest) {
        req.url = target.rawQuery ? `${target.rawPath}?${target.rawQuery}` : target.rawPath;
        // Every path reaches a route (the last answers 404), so the router's own end is an error's.
        app(req as express.Request, res as express.Response, (err?: unknown) => respondError(res, err ?? pathNotFound()));
        return;
      }
      // The effective user (after impersonation) and the deadline reach the registry in the RequestContext.
      const filtered = {
        user,
        authorizer: deps.accessControl.authorizer,
        deadline: deadlineMs === null ? null : arrivedAt + deadlineMs,
        auditAnnotations: new AuditAnnotationMap(annotate),
      };
      serveResource(req, res, info, s.query, deps, abort, s.compress, filtered).catch((err: unknown) => respondError(res, err));
    };
    s.audit = accessControlled(deps.accessControl, req, res, info, { path: target.path, query }, dispatch, (err) => respondError(res, err));
  };

  /**
   * The deadline passed: a long-running request ends cleanly; any other gets 504 (the timeout
   * filter's answer) unless it has started its body, in which case its connection is cut, as
   * kube-apiserver's timeout handler does. The handler's later writes go nowhere.
   */
  const expire = (req: IncomingMessage, res: ServerResponse, abort: RequestAbort, longRunning: boolean): void => {
    if (longRunning) {
      abort.abort();
      return;
    }
    const err = deadlineExceeded();
    abort.abort(err);
    if (res.headersSent) {
      res.destroy();
      return;
    }
    // A body still being sent would hold an HTTP/1.1 connection: it closes after the answer.
    if (!req.complete && req.httpVersionMajor === 1) res.setHeader('Connection', 'close');
    respondError(res, err);
    discardLateWrites(res);
  };

  return (req, res) => {
    try {
      serve(req, res);
    } catch (err) {
      if ((res as StatefulResponse)[STATE]) respondError(res, err);
      else failEarly(res, err);
    }
  };
}

/** Health probes are not counted against the in-flight limits (kube-apiserver's flow control exempts them). */
function isHealthPath(info: RequestInfo): boolean {
  return !info.isResourceRequest && /^\/(healthz|livez|readyz)(\/|$)/.test(info.path);
}

/** After a timeout answer the handler may still write: as kube's timeoutWriter, its writes are dropped. */
function discardLateWrites(res: ServerResponse): void {
  const done = (...args: unknown[]): ServerResponse => {
    const callback = args.find((a): a is () => void => typeof a === 'function');
    callback?.();
    return res;
  };
  Object.assign(res, {
    setHeader: () => res,
    appendHeader: () => res,
    removeHeader: () => undefined,
    writeHead: () => res,
    flushHeaders: () => undefined,
    write: (...args: unknown[]) => (done(...args), true),
    end: done,
  });
}

function rootPaths(deps: AppDeps): Record<string, unknown> {
  const paths = ['/api', '/apis', '/healthz', '/livez', '/metrics', '/openapi/v2', '/openapi/v3', '/readyz', '/version'];
  if (deps.issuerDiscovery?.()) paths.push(OPENID_CONFIGURATION_PATH, JWKS_PATH);
  for (const gv of deps.registry.groupVersions()) paths.push(gv.group ? `/apis/${gv.group}/${gv.version}` : `/api/${gv.version}`);
  for (const gv of deps.registry.groupVersions()) if (gv.group) paths.push(`/apis/${gv.group}`);
  return { paths: [...new Set(paths)].sort() };
}
