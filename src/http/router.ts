import type { RequestAbort } from '../api/request-abort';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { badRequest, methodNotAllowed, pathNotFound } from '../api/errors';
import type { GroupVersionKind } from '../api/types';
import type { AdmissionChain } from '../admission/admission';
import { negotiateOutput, negotiateStream, type Encoding, type OutputOptions } from '../codec/negotiate';
import { lookupMessage } from '../schema/proto-loader';
import { GenericStore } from '../registry/generic-store';
import type { ResourceDefinition, Verb } from '../registry/resource-definition';
import type { PatchSchema } from '../patch/strategic-merge';
import type { ResourceRegistry, RestStore } from '../registry/resource-registry';
import type { ServerServices } from '../registry/types';
import { subresourceVerbs, type CreateSubresource, type Subresource } from '../registry/subresources';
import type { RequestAuthorizer } from '../auth/authorizer/attributes';
import type { UserInfo } from '../auth/user';
import type { RequestContext } from '../registry/request-context';
import { kindSchema } from '../schema/typed-schema';
import type { ResourceRequest } from './handlers/context';
import { handleCreate } from './handlers/create';
import { handleCreateSubresource } from './handlers/create-subresource';
import { handleConnect } from './handlers/proxy';
import type { ConnectSubresource } from '../registry/proxy/connect';
import { respond } from './respond';
import { handleDelete } from './handlers/delete';
import { handleDeleteCollection } from './handlers/delete-collection';
import { handleGet } from './handlers/get';
import { handleList } from './handlers/list';
import { handlePatch } from './handlers/patch';
import { handleUpdate } from './handlers/update';
import { handleWatch } from './handlers/watch';
import { assertPathSegmentName } from './path-segment-name';
import { isPretty } from './query';
import type { ResourceRequestInfo } from './request-info';
import type { BodyDecoder } from './body-decoder';
import { addWarning } from './warnings';

type Handler = (r: ResourceRequest) => Promise<void>;

const HANDLERS: Record<Verb, Handler> = {
  get: handleGet,
  list: handleList,
  watch: handleWatch,
  create: handleCreate,
  update: handleUpdate,
  patch: handlePatch,
  delete: handleDelete,
  deletecollection: handleDeleteCollection,
};

/** Verbs served on an object's own path; a resource with none of them has no such path. */
const ITEM_VERBS: Verb[] = ['get', 'update', 'patch', 'delete'];

export interface RouterDeps {
  registry: ResourceRegistry;
  admission: AdmissionChain;
  inputEncodings: Encoding[];
  bodyDecoder: BodyDecoder;
  /** Every response encoding the server speaks (Protobuf only for kinds with a message). */
  outputEncodings: Encoding[];
  patchSchemaFor(kind: GroupVersionKind): PatchSchema;
  watchListEnabled: boolean;
  unsafeMalformedObjectDeletion: boolean;
  onWatchEvent(def: ResourceDefinition): void;
  services: ServerServices;
}

export interface ResolvedRequest {
  store: RestStore;
  verb: Verb;
  /** Set when the path is a create subresource's (pods/x/binding). */
  createSubresource?: CreateSubresource;
  /** Set when the path is a connect subresource's (pods/x/log, pods/x/exec, services/x/proxy/...). */
  connectSubresource?: ConnectSubresource;
  /** Set when the route matched an empty name or namespace segment: the handler's 400 message. */
  missing?: string;
}

/** The one place mapping a request onto a resource definition and a verb: 404 unknown, 405 not allowed. */
export function resolveResourceRequest(info: ResourceRequestInfo, registry: ResourceRegistry): ResolvedRequest {
  // kube's director hands only paths beginning with a group-version's root to go-restful.
  if (!info.rooted) throw pathNotFound();
  const store = registry.lookup(info.group, info.version, info.resource);
  if (!store) throw pathNotFound();
  const { def } = store;
  const connectSubresource = info.subresource ? def.connectSubresources.find((s) => s.name === info.subresource) : undefined;
  // Only a proxy subresource has a path of its own after it (pods/x/proxy/<path>).
  if (info.parts.length > 3 && !connectSubresource?.takesPath) throw pathNotFound();
  const createSubresource = info.subresource ? def.createSubresources.find((s) => s.name === info.subresource) : undefined;
  if (info.subresource && !createSubresource && !connectSubresource && !def.subresources.includes(info.subresource as Subresource)) throw pathNotFound();
  // A namespaced resource is named only inside a namespace; a cluster-scoped one never is (Namespaces included:
  // `namespaces/a/namespaces/b` is no route of kube's).
  if (!def.namespaced && info.underNamespace) throw pathNotFound();
  // An empty segment where the name goes (pods//status): go-restful's CurlyRouter matches `{name}`
  // to it, so the named route answers, with the verb of its method (RequestInfo read a list).
  const emptyName = info.parts.length > 2 && info.parts[1] === '';
  const named = info.name !== '' || emptyName;
  if (named && !def.verbs.some((v) => ITEM_VERBS.includes(v))) throw pathNotFound();
  const verb = emptyName ? (ROUTE_VERBS[info.method] ?? 'unknown') : (info.verb as Verb);
  if (def.namespaced && !info.underNamespace && (named || verb === 'create' || verb === 'deletecollection')) {
    if (named) throw pathNotFound();
    throw methodNotAllowed();
  }
  const missing = missingPathParameter(info, def.namespaced, emptyName, verb);
  // A connect subresource checks the HTTP method itself (handlers/proxy.ts).
  if (connectSubresource) return { store, verb, connectSubresource, missing };
  if (!(verb in HANDLERS)) throw methodNotAllowed();
  // PUT and PATCH are routed to an object's path only, as kube-apiserver's installer registers them.
  if ((verb === 'update' || verb === 'patch') && !named) throw methodNotAllowed();
  if (createSubresource) {
    // Only POST is routed to such a path, as kube-apiserver registers it.
    if (verb !== 'create') throw methodNotAllowed();
    return { store, verb, createSubresource };
  }
  // An update subresource's path serves its own verbs (namespaces/x/finalize only PUT), as discovery lists them.
  if (info.subresource && !subresourceVerbs(info.subresource as Subresource).includes(verb)) throw methodNotAllowed();
  if (verb === 'create' && named) throw methodNotAllowed();
  if (!def.verbs.includes(verb)) throw methodNotAllowed();
  return { store, verb, missing };
}

/** The verb of the route a method reaches on an object's path (go-restful matches the method; RequestInfo's verb may differ). */
const ROUTE_VERBS: Record<string, Verb> = { GET: 'get', PUT: 'update', PATCH: 'patch', DELETE: 'delete', POST: 'create' };

/**
 * The path parameter a route matched to an empty segment, which its handler then refuses (400).
 * An empty name: ContextBasedNaming.Name's "name must be provided", before anything else.
 * An empty namespace (`namespaces//pods`): a list or watch has all namespaces (RequestInfo's
 * namespace is "" and NamespaceKeyRootFunc lists from the resource's root, as authorization
 * asked about the cluster scope); anything else is NamespaceKeyFunc's "Namespace parameter
 * required." (see docs/divergences.md for create and deletecollection, where kube answers later).
 */
function missingPathParameter(info: ResourceRequestInfo, namespaced: boolean, emptyName: boolean, verb: Verb): string | undefined {
  if (emptyName) return 'name must be provided';
  if (namespaced && info.underNamespace && info.namespace === '' && verb !== 'list' && verb !== 'watch') return 'Namespace parameter required.';
  return undefined;
}

/** What the filters in front of the router established: who asks, which authorizer decided, until when, where audit annotations go. */
export interface FilteredRequest {
  /** The effective user (after impersonation; the insecure port's superuser there). */
  user: UserInfo;
  authorizer: RequestAuthorizer;
  /** Epoch milliseconds; null: no deadline. */
  deadline: number | null;
  auditAnnotations: Map<string, string>;
}

/** The request's RequestContext, built once: every store write takes it. */
function requestContext(
  res: ServerResponse,
  info: ResourceRequestInfo,
  abort: RequestAbort,
  filtered: FilteredRequest,
  admission: AdmissionChain,
): RequestContext {
  return {
    user: filtered.user,
    authorizer: filtered.authorizer,
    admission,
    info: {
      verb: info.verb,
      group: info.group,
      version: info.version,
      resource: info.resource,
      subresource: info.subresource,
      namespace: info.namespace,
      name: info.name,
    },
    deadline: filtered.deadline,
    signal: abort,
    warn: (text) => addWarning(res, text),
    auditAnnotations: filtered.auditAnnotations,
  };
}

/** A resource endpoint's output options, one object per server and kind of kind, so that negotiation's choices are kept per object. */
const outputOptionsOf = new WeakMap<Encoding[], { withMessage: OutputOptions; withoutMessage: OutputOptions }>();

function resourceOutputOptions(encodings: Encoding[]): { withMessage: OutputOptions; withoutMessage: OutputOptions } {
  let options = outputOptionsOf.get(encodings);
  if (!options) {
    options = {
      withMessage: { encodings, objectEncodings: encodings, meta: true },
      // A kind without a Protobuf message (a custom resource) is written in the others only.
      withoutMessage: { encodings, objectEncodings: encodings.filter((e) => e !== 'protobuf'), meta: true },
    };
    outputOptionsOf.set(encodings, options);
  }
  return options;
}

export async function serveResource(
  req: IncomingMessage,
  res: ServerResponse,
  info: ResourceRequestInfo,
  query: URLSearchParams,
  deps: RouterDeps,
  abort: RequestAbort,
  compress: boolean,
  filtered: FilteredRequest,
): Promise<void> {
  const { store, verb, createSubresource, connectSubresource, missing } = resolveResourceRequest(info, deps.registry);
  if (missing !== undefined) {
    // The route must take the method first (no HEAD route; a connect subresource's own methods).
    const routed = connectSubresource ? connectSubresource.methods.includes(req.method ?? 'GET') : req.method !== 'HEAD';
    throw routed ? badRequest(missing) : methodNotAllowed();
  }
  if (info.name && store instanceof GenericStore) assertPathSegmentName(info.name);
  if (connectSubresource) {
    const ctx = requestContext(res, info, abort, filtered, deps.admission);
    return handleConnect({ req, res, info, ctx, store: store as GenericStore, sub: connectSubresource, query, services: deps.services });
  }
  // go-restful matches methods exactly and kube registers no HEAD route (its RequestInfo still reads HEAD as get).
  if (req.method === 'HEAD') throw methodNotAllowed();
  const served = createSubresource
    ? { kind: createSubresource.kind, schema: kindSchema(createSubresource.kind) }
    : store instanceof GenericStore
      ? store.served(info.subresource as '' | Subresource)
      : store.served();
  const options = resourceOutputOptions(deps.outputEncodings)[lookupMessage(served.kind) !== null ? 'withMessage' : 'withoutMessage'];
  const output = verb === 'watch' ? negotiateStream(req.headers.accept, options) : negotiateOutput(req.headers.accept, options);
  if (store.def.deprecationWarning) addWarning(res, store.def.deprecationWarning);
  const ctx = requestContext(res, info, abort, filtered, deps.admission);
  const requestTo = <S extends RestStore>(target: S): ResourceRequest<S> => ({
    req,
    res,
    info,
    ctx,
    store: target,
    served,
    query,
    output,
    pretty: output.pretty || isPretty(query, req.headers['user-agent']),
    compress,
    inputEncodings: deps.inputEncodings,
    bodyDecoder: deps.bodyDecoder,
    patchSchemaFor: deps.patchSchemaFor,
    watchListEnabled: deps.watchListEnabled,
    unsafeMalformedObjectDeletion: deps.unsafeMalformedObjectDeletion,
    onWatchEvent: () => deps.onWatchEvent(store.def),
  });
  // A resource that is not stored serves create, or get and list (resolveResourceRequest made sure of the verb).
  if (!(store instanceof GenericStore)) {
    if (verb === 'get') return respond(requestTo(store), 200, await store.get(info.name));
    if (verb === 'list') return respond(requestTo(store), 200, await store.list());
    return handleCreate(requestTo(store));
  }
  if (createSubresource) return handleCreateSubresource(requestTo(store), createSubresource, deps.services);
  await HANDLERS[verb](requestTo(store));
}
