import { randomUUID } from 'node:crypto';
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import express from 'express';
import { notAcceptable, pathNotFound, toStatusError, type StatusError } from '../api/errors';
import type { AdmissionChain } from '../admission/admission';
import type { GroupVersionKind } from '../api/types';
import { negotiateOutput, type Encoding } from '../codec/negotiate';
import type { ApiServerMetrics } from '../metrics/metrics';
import type { PatchSchema } from '../patch/strategic-merge';
import type { ResourceDefinition } from '../registry/resource-definition';
import type { ServerServices } from '../registry/server-services';
import type { ResourceRegistry } from '../registry/resource-registry';
import { acceptsOpenApiV2Protobuf, encodeOpenApiV2, OPENAPI_V2_PROTOBUF } from './openapi-v2-protobuf';
import { aggregatedDiscovery, apiGroupDocument, apiGroupList, apiResourceList, apiVersions } from './discovery';
import { requestLabels } from './filters/request-metrics';
import { groupVersionPath, openApiV2Document, openApiV3Document, openApiV3Index, type SchemaSource } from './openapi';
import { isPretty } from './query';
import { parseRequestInfo, type RequestInfo } from './request-info';
import { acceptsGzip } from './body-writer';
import { encode } from './encode';
import { writeBody, writeEncoded, writeError } from './respond';
import { serveResource } from './router';

export interface VersionInfo {
  major: string;
  minor: string;
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
  patchSchemaFor(kind: GroupVersionKind): PatchSchema | null;
  watchListEnabled: boolean;
  /** The AllowUnsafeMalformedObjectDeletion feature gate. */
  unsafeMalformedObjectDeletion: boolean;
  onWatchEvent(def: ResourceDefinition): void;
  services: ServerServices;
  /** Checks behind /readyz (all must pass); /livez and /healthz use `liveChecks`. */
  readyChecks: HealthCheck[];
  liveChecks: HealthCheck[];
  inputEncodings: Encoding[];
  /** Response encodings of resource endpoints (JSON, YAML, Protobuf; CBOR behind its gate). */
  outputEncodings: Encoding[];
  /** The APIResponseCompression feature gate. */
  responseCompression: boolean;
  log: (message: string, err?: unknown) => void;
}

interface RequestState {
  info: RequestInfo;
  query: URLSearchParams;
  pretty: boolean;
  /** The client takes gzip and the server may compress. */
  compress: boolean;
}

const STATE = Symbol('kapi.request');

/** What version, discovery and other non-resource documents are written in. */
const NON_RESOURCE_ENCODINGS: Encoding[] = ['json', 'yaml'];
type StatefulResponse = ServerResponse & { [STATE]?: RequestState };

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

export function createApp(deps: AppDeps): RequestListener {
  const app = express();
  app.disable('x-powered-by');
  app.disable('etag');
  app.set('query parser', false);

  const state = (res: ServerResponse): RequestState => (res as StatefulResponse)[STATE]!;
  const respondError = (res: ServerResponse, err: unknown): void => {
    const status: StatusError = toStatusError(err, (e) => deps.log('internal error', e));
    if (res.headersSent) {
      res.end();
      return;
    }
    const s = state(res);
    const encodings = s.info.isResourceRequest ? deps.outputEncodings : NON_RESOURCE_ENCODINGS;
    writeError(res, status, (res.req as IncomingMessage).headers.accept, encodings, s.pretty, s.compress);
  };
  const json = (res: ServerResponse, value: unknown, code = 200): void => {
    const s = state(res);
    const output = negotiateOutput((res.req as IncomingMessage).headers.accept, { encodings: NON_RESOURCE_ENCODINGS });
    writeEncoded(res, code, value, output, s.pretty || output.pretty, s.compress);
  };
  const wrap =
    (fn: (req: express.Request, res: express.Response) => Promise<void> | void) =>
    (req: express.Request, res: express.Response, next: express.NextFunction): void => {
      Promise.resolve()
        .then(() => fn(req, res))
        .catch(next);
    };


  app.get('/version', wrap((_req, res) => json(res, deps.version)));
  for (const kind of ['healthz', 'livez', 'readyz'] as const) {
    const checks = kind === 'readyz' ? deps.readyChecks : deps.liveChecks;
    app.get(`/${kind}`, wrap((_req, res) => health(res, state(res).query, checks, kind)));
    // Check names may hold slashes (poststarthook/...), as kube-apiserver's do.
    app.get(`/${kind}/*check`, wrap((req, res) => health(res, state(res).query, checks, kind, ([] as string[]).concat(req.params.check).join('/'))));
  }
  app.get(
    '/metrics',
    wrap(async (_req, res) => {
      writeBody(res, 200, deps.metrics.registry.contentType, Buffer.from(await deps.metrics.registry.metrics()));
    }),
  );

  const v3Docs = (): Map<string, Buffer> => {
    const docs = new Map<string, Buffer>();
    for (const entry of deps.registry.groupVersions()) {
      docs.set(groupVersionPath(entry), encode(openApiV3Document(entry, deps.schemas, deps.version.gitVersion), 'json', false));
    }
    return docs;
  };
  app.get('/openapi/v3', wrap((_req, res) => json(res, openApiV3Index(v3Docs()))));
  app.get(
    '/openapi/v3/*path',
    wrap((req, res) => {
      const path = (req.params as { path: string[] }).path.join('/');
      const body = v3Docs().get(path);
      if (!body) throw pathNotFound();
      if (state(res).query.has('hash')) res.setHeader('Cache-Control', 'public, immutable');
      writeBody(res, 200, 'application/json', body);
    }),
  );
  app.get(
    '/openapi/v2',
    wrap((req, res) => {
      const accept = req.headers.accept;
      const document = openApiV2Document(deps.registry, deps.schemas, deps.version.gitVersion);
      if (acceptsOpenApiV2Protobuf(accept)) return writeBody(res, 200, OPENAPI_V2_PROTOBUF, encodeOpenApiV2(document));
      if (accept && !/application\/json|\*\/\*/.test(accept)) throw notAcceptable(['application/json', OPENAPI_V2_PROTOBUF]);
      writeBody(res, 200, 'application/json', encode(document, 'json', false));
    }),
  );

  const discovery = (core: boolean) =>
    wrap((req, res) => {
      const output = negotiateOutput(req.headers.accept, { encodings: NON_RESOURCE_ENCODINGS, discovery: true });
      const { pretty, compress } = state(res);
      res.setHeader('Vary', 'Accept');
      if (output.representation.kind === 'APIGroupDiscoveryList') {
        writeEncoded(res, 200, aggregatedDiscovery(deps.registry, core, output.representation.version), output, pretty, compress);
        return;
      }
      const host = req.headers.host ?? '127.0.0.1';
      writeEncoded(res, 200, core ? apiVersions(host) : apiGroupList(deps.registry), output, pretty, compress);
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
        const doc = apiGroupDocument(deps.registry, segments[1]);
        if (doc) return json(res, doc);
      }
      if (req.method === 'GET' && segments[0] === 'apis' && segments.length === 3 && deps.registry.hasGroupVersion(segments[1], segments[2])) {
        const entry = deps.registry.groupVersions().find((gv) => gv.group === segments[1] && gv.version === segments[2])!;
        return json(res, apiResourceList(entry));
      }
      if (req.method === 'GET' && segments.length === 0) return json(res, rootPaths(deps));
      throw pathNotFound();
    }),
  );

  app.use((err: unknown, _req: express.Request, res: express.Response, _next: express.NextFunction) => respondError(res, err));

  /** Request info, audit id and metrics for every request; resource requests skip express's routing. */
  return (req, res) => {
    const url = new URL(req.url ?? '/', 'http://kapi');
    const info = parseRequestInfo(req.method ?? 'GET', url.pathname, url.searchParams);
    const s: RequestState = {
      info,
      query: url.searchParams,
      pretty: isPretty(url.searchParams, req.headers['user-agent']),
      compress: deps.responseCompression && acceptsGzip(req.headers['accept-encoding']),
    };
    (res as StatefulResponse)[STATE] = s;
    res.setHeader('Audit-Id', randomUUID());
    res.setHeader('Cache-Control', 'no-cache, private');
    const labels = requestLabels(req, info, url.searchParams);
    const started = process.hrtime.bigint();
    const untrack = info.isResourceRequest && info.verb === 'watch' ? deps.metrics.trackLongRunning(labels) : null;
    // Watches listen for the client going away from the start; other requests build the controller only if asked.
    let abort: AbortController | null = untrack ? new AbortController() : null;
    const signal = (): AbortSignal => (abort ??= new AbortController()).signal;
    res.on('close', () => {
      if (!res.writableFinished) abort?.abort();
      untrack?.();
      deps.metrics.observeRequest(labels, res.statusCode, Number(process.hrtime.bigint() - started) / 1e9);
    });
    if (!info.isResourceRequest) {
      app(req, res);
      return;
    }
    serveResource(req, res, info, s.query, deps, signal, s.compress).catch((err: unknown) => respondError(res, err));
  };
}


function rootPaths(deps: AppDeps): Record<string, unknown> {
  const paths = ['/api', '/apis', '/healthz', '/livez', '/metrics', '/openapi/v2', '/openapi/v3', '/readyz', '/version'];
  for (const gv of deps.registry.groupVersions()) paths.push(gv.group ? `/apis/${gv.group}/${gv.version}` : `/api/${gv.version}`);
  for (const gv of deps.registry.groupVersions()) if (gv.group) paths.push(`/apis/${gv.group}`);
  return { paths: [...new Set(paths)].sort() };
}
