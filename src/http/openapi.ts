import { createHash } from 'node:crypto';
import type { GroupVersionKind } from '../api/types';
import type { ResourceDefinition, ServedKind, Verb } from '../registry/resource-definition';
import type { GroupVersionEntry, ResourceRegistry } from '../registry/resource-registry';
import { subresourceView } from '../registry/subresources';
import { connectPaths } from './openapi-connect';
import { patchTypesFor } from './patch-types';
import type { Walk } from '../api/loop-slices';
import { compareGoStrings } from '../api/go-string-order';

/** OpenAPI v2 and v3 documents derived from the resource definitions and their schemas. */

/** The component schema of a kind, keyed by its OpenAPI definition name. */
export interface SchemaSource {
  /** e.g. io.k8s.api.core.v1.Pod */
  definitionName(kind: ServedKind): string;
  /** All definitions a group-version's documents need, by name, as OpenAPI v3 schemas. */
  definitions(kinds: ServedKind[]): Record<string, unknown>;
}

type Action = 'list' | 'watchlist' | 'post' | 'deletecollection' | 'get' | 'put' | 'patch' | 'delete';

function queryParam(name: string, type: string, description: string): Record<string, unknown> {
  return { name, in: 'query', description, schema: { type, uniqueItems: true } };
}

const PARAMS = {
  pretty: queryParam('pretty', 'string', "If 'true', then the output is pretty printed."),
  dryRun: queryParam('dryRun', 'string', 'When present, indicates that modifications should not be persisted.'),
  fieldManager: queryParam('fieldManager', 'string', 'fieldManager is a name associated with the actor or entity that is making these changes.'),
  fieldValidation: queryParam(
    'fieldValidation',
    'string',
    'fieldValidation instructs the server on how to handle objects in the request (POST/PUT/PATCH) containing unknown or duplicate fields. Valid values are: Ignore, Warn (default), Strict.',
  ),
  force: queryParam('force', 'boolean', 'Force is going to "force" Apply requests.'),
  labelSelector: queryParam('labelSelector', 'string', 'A selector to restrict the list of returned objects by their labels.'),
  fieldSelector: queryParam('fieldSelector', 'string', 'A selector to restrict the list of returned objects by their fields.'),
  limit: queryParam('limit', 'integer', 'limit is a maximum number of responses to return for a list call.'),
  continue: queryParam('continue', 'string', 'The continue option should be set when retrieving more results from the server.'),
  resourceVersion: queryParam('resourceVersion', 'string', 'resourceVersion sets a constraint on what resource versions a request may be served from.'),
  resourceVersionMatch: queryParam('resourceVersionMatch', 'string', 'resourceVersionMatch determines how resourceVersion is applied to list calls.'),
  watch: queryParam('watch', 'boolean', 'Watch for changes to the described resources and return them as a stream of add, update, and remove notifications.'),
  allowWatchBookmarks: queryParam('allowWatchBookmarks', 'boolean', 'allowWatchBookmarks requests watch events with type "BOOKMARK".'),
  sendInitialEvents: queryParam('sendInitialEvents', 'boolean', '`sendInitialEvents=true` may be set together with `watch=true`.'),
  timeoutSeconds: queryParam('timeoutSeconds', 'integer', 'Timeout for the list/watch call.'),
  gracePeriodSeconds: queryParam('gracePeriodSeconds', 'integer', 'The duration in seconds before the object should be deleted.'),
  propagationPolicy: queryParam('propagationPolicy', 'string', 'Whether and how garbage collection will be performed.'),
  orphanDependents: queryParam('orphanDependents', 'boolean', 'Deprecated: please use the PropagationPolicy. Should the dependent objects be orphaned.'),
  ignoreStoreReadErrorWithClusterBreakingPotential: queryParam(
    'ignoreStoreReadErrorWithClusterBreakingPotential',
    'boolean',
    'if set to true, it will trigger an unsafe deletion of the resource in case the normal deletion flow fails with a corrupt object error.',
  ),
};

const ACTION_PARAMS: Record<Action, (keyof typeof PARAMS)[]> = {
  list: [
    'pretty',
    'labelSelector',
    'fieldSelector',
    'limit',
    'continue',
    'resourceVersion',
    'resourceVersionMatch',
    'watch',
    'allowWatchBookmarks',
    'sendInitialEvents',
    'timeoutSeconds',
  ],
  watchlist: ['labelSelector', 'fieldSelector', 'resourceVersion', 'allowWatchBookmarks', 'timeoutSeconds'],
  post: ['pretty', 'dryRun', 'fieldManager', 'fieldValidation'],
  deletecollection: [
    'pretty',
    'dryRun',
    'labelSelector',
    'fieldSelector',
    'gracePeriodSeconds',
    'ignoreStoreReadErrorWithClusterBreakingPotential',
    'orphanDependents',
    'propagationPolicy',
  ],
  get: ['pretty', 'resourceVersion'],
  put: ['pretty', 'dryRun', 'fieldManager', 'fieldValidation'],
  patch: ['pretty', 'dryRun', 'fieldManager', 'fieldValidation', 'force'],
  delete: ['pretty', 'dryRun', 'gracePeriodSeconds', 'ignoreStoreReadErrorWithClusterBreakingPotential', 'orphanDependents', 'propagationPolicy'],
};

const VERB_FOR_ACTION: Record<Action, Verb> = {
  list: 'list',
  watchlist: 'watch',
  post: 'create',
  deletecollection: 'deletecollection',
  get: 'get',
  put: 'update',
  patch: 'patch',
  delete: 'delete',
};

const METHOD: Record<Action, string> = {
  list: 'get',
  watchlist: 'get',
  post: 'post',
  deletecollection: 'delete',
  get: 'get',
  put: 'put',
  patch: 'patch',
  delete: 'delete',
};

function basePath(def: ResourceDefinition): string {
  return def.group ? `/apis/${def.group}/${def.version}` : `/api/${def.version}`;
}

function pathParam(name: string, description: string): Record<string, unknown> {
  return { name, in: 'path', description, required: true, schema: { type: 'string', uniqueItems: true } };
}

interface OperationSpec {
  path: string;
  action: Action;
  params: Record<string, unknown>[];
  subresource?: string;
  /** What the operation's bodies carry when it is not the resource's own kind (Scale, Binding, TokenRequest). */
  kind?: ServedKind;
}

function operationsOf(def: ResourceDefinition): OperationSpec[] {
  const base = basePath(def);
  const nsParam = pathParam('namespace', 'object name and auth scope, such as for teams and projects');
  const nameParam = pathParam('name', `name of the ${def.kind}`);
  const collection = def.namespaced ? `${base}/namespaces/{namespace}/${def.resource}` : `${base}/${def.resource}`;
  const scopeParams = def.namespaced ? [nsParam] : [];
  const ops: OperationSpec[] = [
    { path: collection, action: 'list', params: scopeParams },
    { path: collection, action: 'post', params: scopeParams },
    { path: collection, action: 'deletecollection', params: scopeParams },
    { path: `${collection}/{name}`, action: 'get', params: [...scopeParams, nameParam] },
    { path: `${collection}/{name}`, action: 'put', params: [...scopeParams, nameParam] },
    { path: `${collection}/{name}`, action: 'patch', params: [...scopeParams, nameParam] },
    { path: `${collection}/{name}`, action: 'delete', params: [...scopeParams, nameParam] },
  ];
  if (def.namespaced) ops.push({ path: `${base}/${def.resource}`, action: 'list', params: [] });
  for (const sub of def.subresources) {
    for (const action of sub === 'finalize' ? (['put'] as Action[]) : (['get', 'put', 'patch'] as Action[])) {
      ops.push({ path: `${collection}/{name}/${sub}`, action, params: [...scopeParams, nameParam], subresource: sub, kind: subresourceView(def, sub)?.kind });
    }
  }
  const createOps: OperationSpec[] = def.createSubresources.map((sub) => ({
    path: `${collection}/{name}/${sub.name}`,
    action: 'post',
    params: [...scopeParams, nameParam],
    subresource: sub.name,
    kind: sub.kind,
  }));
  return [...ops.filter((op) => def.verbs.includes(VERB_FOR_ACTION[op.action])), ...createOps];
}

/** The group version as operation IDs spell it: CoreV1, AppsV1, ... */
function gvName(def: ResourceDefinition): string {
  const groupPart = (def.group || 'core').split('.')[0];
  return `${groupPart[0].toUpperCase()}${groupPart.slice(1)}${def.version[0].toUpperCase()}${def.version.slice(1)}`;
}

function tagOf(def: ResourceDefinition): string {
  return def.group ? `${def.group.split('.')[0]}_${def.version}` : `core_${def.version}`;
}

function operationId(def: ResourceDefinition, op: OperationSpec): string {
  const gv = gvName(def);
  const scope = op.path.includes('{namespace}') ? 'Namespaced' : '';
  const suffix = op.subresource ? op.subresource[0].toUpperCase() + op.subresource.slice(1) : '';
  const allNs = def.namespaced && !op.path.includes('{namespace}') ? 'ForAllNamespaces' : '';
  const verb = {
    list: 'list',
    watchlist: 'watch',
    post: 'create',
    deletecollection: 'deleteCollection',
    get: 'read',
    put: 'replace',
    patch: 'patch',
    delete: 'delete',
  }[op.action];
  return `${verb}${gv}${scope}${def.kind}${suffix}${allNs}`;
}

/** `kind`: what the operation's bodies carry (the resource's own kind, or its subresource's, e.g. Scale). */
function v3Operation(def: ResourceDefinition, op: OperationSpec, kind: GroupVersionKind, ref: string, listRef: string): Record<string, unknown> {
  const gvk = { group: kind.group, version: kind.version, kind: kind.kind };
  const json = (schemaRef: string): Record<string, unknown> => ({
    'application/json': { schema: { $ref: schemaRef } },
    'application/yaml': { schema: { $ref: schemaRef } },
    'application/vnd.kubernetes.protobuf': { schema: { $ref: schemaRef } },
  });
  const isList = op.action === 'list' || op.action === 'deletecollection';
  const responseRef = isList ? listRef : ref;
  const operation: Record<string, unknown> = {
    tags: [tagOf(def)],
    operationId: operationId(def, op),
    parameters: ACTION_PARAMS[op.action].map((p) => PARAMS[p]),
    responses: {
      '200': { description: 'OK', content: json(responseRef) },
      ...(op.action === 'post' || op.action === 'put' ? { '201': { description: 'Created', content: json(ref) } } : {}),
      '401': { description: 'Unauthorized' },
    },
    'x-kubernetes-action': op.action,
    'x-kubernetes-group-version-kind': gvk,
  };
  if (op.action === 'post' || op.action === 'put') {
    operation.requestBody = { content: { '*/*': { schema: { $ref: ref } } }, required: true };
  }
  if (op.action === 'patch') {
    operation.requestBody = {
      content: Object.fromEntries(
        patchTypesFor(def, false).map((t) => [t, { schema: { $ref: '#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.Patch' } }]),
      ),
      required: true,
    };
  }
  return operation;
}

/** The paths of a kind's connect subresources (not pods/log, which kube describes as a read of the Pod). */
function connectOperations(def: ResourceDefinition): Record<string, Record<string, unknown>> {
  const collection = def.namespaced ? `${basePath(def)}/namespaces/{namespace}/${def.resource}` : `${basePath(def)}/${def.resource}`;
  const scopeParams = def.namespaced ? [pathParam('namespace', 'object name and auth scope, such as for teams and projects')] : [];
  const paths: Record<string, Record<string, unknown>> = {};
  for (const sub of def.connectSubresources.filter((s) => !s.stream)) {
    for (const { suffix, params, operations } of connectPaths(sub, def, gvName(def), tagOf(def))) {
      const all = [...scopeParams, pathParam('name', `name of the ${sub.kind.kind}`), ...params];
      // kube lists a path's parameters by name.
      paths[`${collection}/{name}${suffix}`] = { parameters: all.sort((a, b) => compareGoStrings(String(a.name), String(b.name))), ...operations };
    }
  }
  return paths;
}

function listDefinitionName(name: string): string {
  return `${name}List`;
}

function genericListSchema(def: ResourceDefinition, itemRef: string): Record<string, unknown> {
  return {
    description: `${def.listKind} is a list of ${def.kind} objects.`,
    type: 'object',
    required: ['items'],
    properties: {
      apiVersion: { type: 'string' },
      items: { type: 'array', items: { $ref: itemRef } },
      kind: { type: 'string' },
      metadata: { type: 'object' },
    },
    'x-kubernetes-group-version-kind': [{ group: def.group, kind: def.listKind, version: def.version }],
  };
}

export function openApiV3Document(entry: GroupVersionEntry, schemas: SchemaSource, serverVersion: string): Record<string, unknown> {
  const defs = entry.stores.map((s) => s.def);
  const subresourceKinds = defs.flatMap((def) => [
    ...def.subresources.flatMap((sub) => subresourceView(def, sub)?.kind ?? []),
    ...def.createSubresources.map((sub) => sub.kind),
  ]);
  const componentSchemas: Record<string, unknown> = {
    ...schemas.definitions([...defs, ...subresourceKinds]),
    'io.k8s.apimachinery.pkg.apis.meta.v1.Patch': {
      description: 'Patch is provided to give a concrete name and type to the Kubernetes PATCH request body.',
      type: 'object',
    },
  };
  const paths: Record<string, Record<string, unknown>> = {};
  for (const def of defs) {
    const name = schemas.definitionName(def);
    const ref = `#/components/schemas/${name}`;
    const listName = listDefinitionName(name);
    if (def.verbs.includes('list')) componentSchemas[listName] ??= genericListSchema(def, ref);
    for (const op of operationsOf(def)) {
      const path = (paths[op.path] ??= { parameters: op.params });
      const own = op.kind;
      const opRef = own ? `#/components/schemas/${schemas.definitionName(own)}` : ref;
      path[METHOD[op.action]] = v3Operation(def, op, own ?? def, opRef, `#/components/schemas/${listName}`);
    }
    Object.assign(paths, connectOperations(def));
  }
  return {
    openapi: '3.0.0',
    info: { title: 'Kubernetes', version: serverVersion },
    paths,
    components: { schemas: componentSchemas },
  };
}

/** The v2 document: the same operations, with `#/definitions` references; built a group-version at a time. */
export function* openApiV2Document(registry: ResourceRegistry, schemas: SchemaSource, serverVersion: string): Walk<Record<string, unknown>> {
  const paths: Record<string, Record<string, unknown>> = {};
  const definitions: Record<string, unknown> = {};
  for (const entry of registry.groupVersions()) {
    yield;
    const doc = openApiV3Document(entry, schemas, serverVersion);
    const rewrite = (value: unknown): unknown => JSON.parse(JSON.stringify(value).replaceAll('#/components/schemas/', '#/definitions/'));
    const v3 = rewrite((doc.components as { schemas: Record<string, unknown> }).schemas) as Record<string, unknown>;
    for (const [name, schema] of Object.entries(v3)) definitions[name] = toStructuralV2(schema);
    for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, unknown>>)) {
      const v2Item: Record<string, unknown> = { parameters: (item.parameters as Record<string, unknown>[]).map(v2Param) };
      for (const [method, op] of Object.entries(item)) {
        if (method === 'parameters') continue;
        const o = op as Record<string, unknown>;
        const responses = o.responses as Record<string, { description: string; content?: Record<string, { schema: unknown }> }>;
        const parameters = [
          ...((o.parameters ?? []) as Record<string, unknown>[]).map(v2Param),
          ...(o.requestBody ? [{ name: 'body', in: 'body', required: true, schema: bodySchema(o.requestBody) }] : []),
        ];
        v2Item[method] = {
          ...o,
          // Connect operations have theirs on the path only.
          parameters: parameters.length > 0 ? parameters : undefined,
          requestBody: undefined,
          // A connect operation takes and gives anything (*/*), as kube's v2 document says.
          consumes: o.requestBody
            ? Object.keys((o.requestBody as { content: Record<string, unknown> }).content)
            : o['x-kubernetes-action'] === 'connect'
              ? ['*/*']
              : undefined,
          produces: o['x-kubernetes-action'] === 'connect' ? ['*/*'] : ['application/json', 'application/yaml', 'application/vnd.kubernetes.protobuf'],
          responses: Object.fromEntries(
            Object.entries(responses).map(([code, r]) => [
              code,
              { description: r.description, ...(r.content ? { schema: Object.values(r.content)[0].schema } : {}) },
            ]),
          ),
        };
      }
      paths[path] = rewrite(v2Item) as Record<string, unknown>;
    }
  }
  return { swagger: '2.0', info: { title: 'Kubernetes', version: serverVersion }, paths, definitions };
}

/**
 * What kubectl can read of a schema in v2, as apiextensions-apiserver's ToStructuralOpenAPIV2
 * leaves it: under x-kubernetes-preserve-unknown-fields and nullable, no properties or items (kubectl
 * would refuse the unknown fields they allow), nullable ones untyped, and arrays left without items
 * untyped.
 */
function toStructuralV2(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(toStructuralV2);
  if (typeof schema !== 'object' || schema === null) return schema;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(schema))
    out[k] = k === 'properties' ? mapValues(v, toStructuralV2) : k === 'items' || k === 'allOf' || k === 'additionalProperties' ? toStructuralV2(v) : v;
  if (out.nullable === true) {
    delete out.type;
    delete out.nullable;
    delete out.items;
    delete out.properties;
  }
  if (out['x-kubernetes-preserve-unknown-fields'] === true) {
    delete out['x-kubernetes-preserve-unknown-fields'];
    delete out.items;
    delete out.properties;
  }
  if (out.type === 'array' && out.items === undefined) delete out.type;
  return out;
}

function mapValues(value: unknown, f: (v: unknown) => unknown): unknown {
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, f(v)]));
}

function v2Param(p: Record<string, unknown>): Record<string, unknown> {
  const { schema, ...rest } = p as { schema: { type: string } };
  return { ...rest, type: schema.type, uniqueItems: true };
}

function bodySchema(requestBody: unknown): unknown {
  const content = (requestBody as { content: Record<string, { schema: unknown }> }).content;
  return Object.values(content)[0].schema;
}

/** The /openapi/v3 index: each group-version's document, addressed by its content hash. */
export function openApiV3Index(docs: Map<string, Buffer>): Record<string, unknown> {
  const paths: Record<string, unknown> = {};
  for (const [path, body] of docs) {
    paths[path] = { serverRelativeURL: `/openapi/v3/${path}?hash=${contentHash(body)}` };
  }
  return { paths };
}

export function contentHash(body: Buffer): string {
  return createHash('sha512').update(body).digest('hex').slice(0, 128).toUpperCase();
}

export function groupVersionPath(entry: GroupVersionEntry): string {
  return entry.group ? `apis/${entry.group}/${entry.version}` : `api/${entry.version}`;
}
