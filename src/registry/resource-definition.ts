import type { ObjectConverter } from './conversion';
import type { GroupResource, GroupVersionKind, KubeObject, Status } from '../api/types';
import type { ObjectNode } from '../schema/typed-schema';
import type { ScaleFacts } from './scale';
import { defaultStrategy, type Strategy } from './strategy';
import type { ServerServices } from './server-services';
import type { CreateSubresource, Subresource } from './subresources';
import type { ConnectSubresource } from './proxy/connect';
import type { RequestContext } from './request-context';

export type Verb = 'get' | 'list' | 'watch' | 'create' | 'update' | 'patch' | 'delete' | 'deletecollection';

export const ALL_VERBS: Verb[] = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];

/** A printed column of `kubectl get`: the Table column definition plus how to compute its cell. */
export interface PrinterColumn {
  name: string;
  type: 'string' | 'integer' | 'number' | 'boolean' | 'date';
  format?: string;
  description: string;
  priority?: number;
  cell(obj: KubeObject): unknown;
}

/**
 * The kind a path's bodies carry, with what presenting it needs: a resource's own kind (every
 * definition is one) or a subresource's (Scale).
 */
export interface ServedKind extends GroupVersionKind {
  /** Absent for kinds that are never listed. */
  listKind?: string;
  /** Columns for Table output; empty means the default Name / Created At. */
  printerColumns: PrinterColumn[];
  /** Older apiVersions of the same shape that request bodies may also carry, read as this one (policy/v1beta1 Eviction). */
  alsoDecodes?: string[];
  /** The order of a listed Table's rows where kube's printer sorts them (FlowSchemas); absent: as listed. */
  rowOrder?: (a: KubeObject, b: KubeObject) => number;
}

/** The schemas of a kind that has no .proto message (custom resources, CRDs): given, not derived. */
export interface OwnSchema {
  /** What decoding prunes against and server-side apply merges with. */
  typed: ObjectNode;
  /** The OpenAPI v3 schema /openapi serves for the kind, under `definitionName`. */
  openApi: Record<string, unknown>;
  definitionName: string;
}

/** What a create of a non-stored resource is asked: the decoded object and the request's namespace. */
export interface ComputeRequest {
  ctx: RequestContext;
  namespace: string;
  object: KubeObject;
  dryRun: boolean;
  services: ServerServices;
}

/**
 * Everything the machinery knows about one resource; routes, discovery and storage derive from it.
 * A definition with `compute` is not stored: its only verb is create, which answers with what
 * `compute` returns (the review APIs).
 */
export interface ResourceDefinition {
  group: string;
  version: string;
  /** Plural, lower case: the URL segment. */
  resource: string;
  singular: string;
  kind: string;
  listKind: string;
  namespaced: boolean;
  shortNames: string[];
  categories: string[];
  verbs: Verb[];
  /** Update subresources (status, finalize, scale); each owns part of the object. */
  subresources: Subresource[];
  /** Subresources whose only verb is create (pods/binding, serviceaccounts/token). */
  createSubresources: CreateSubresource[];
  /** Subresources served by connecting to a backend (pods/log, exec, attach, portforward, proxy; nodes/proxy; services/proxy). */
  connectSubresources: ConnectSubresource[];
  /** Where the scale subresource finds replicas and the selector; required with 'scale'. */
  scale?: ScaleFacts;
  /** Path under the etcd prefix, as kube-apiserver lays it out (e.g. "services/specs", "minions"). */
  storagePath: string;
  /** DELETE answers with the object rather than a Success Status. */
  returnDeletedObject: boolean;
  /** Extra selectable fields beyond metadata.name and metadata.namespace. */
  selectableFields: Record<string, (obj: KubeObject) => string>;
  /** Sent as a Warning header on every request for this resource. */
  deprecationWarning?: string;
  /** Columns for Table output; empty means the default Name / Created At. */
  printerColumns: PrinterColumn[];
  /** The order of a listed Table's rows where kube's printer sorts them (FlowSchemas); absent: as listed. */
  rowOrder?: (a: KubeObject, b: KubeObject) => number;
  strategy: Strategy;
  /**
   * The response to a create of a resource that is never stored (an object, or a Success Status);
   * throws StatusErrors for invalid requests. It may read or write other resources through the services.
   */
  compute?: (request: ComputeRequest) => Promise<KubeObject | Status>;
  /** The objects of a read-only resource that is never stored (componentstatuses), computed at each get and list. */
  computeItems?: (services: ServerServices) => Promise<KubeObject[]>;
  /** Set for kinds without a .proto message; the others' schemas come from proto/ and field facts. */
  ownSchema?: OwnSchema;
  /**
   * The apiVersion objects are stored in, where it is not this definition's: another version of
   * the group (a custom resource's other versions, autoscaling/v1 HPAs) or another group's
   * (events.k8s.io/v1 Events are stored as core/v1 Events). The stored kind is always `kind`.
   */
  storageApiVersion?: string;
  /**
   * How objects of this version become the storage version's and back, where more than apiVersion
   * differs (autoscaling/v1 HorizontalPodAutoscalers, events.k8s.io/v1 Events). Both take and
   * return objects without type meta concerns.
   */
  conversion?: VersionConversion;
  /** Conversion that calls out (a CRD's conversion webhook), used instead of restamping custom resources' apiVersion. */
  converter?: ObjectConverter;
}

export interface VersionConversion {
  toStorage(obj: KubeObject): KubeObject;
  fromStorage(obj: KubeObject): KubeObject;
}

export function groupResource(def: ResourceDefinition): GroupResource {
  return { group: def.group, resource: def.resource };
}

export function groupVersionKind(def: ResourceDefinition): GroupVersionKind {
  return { group: def.group, version: def.version, kind: def.kind };
}

export function apiVersionOfDefinition(def: ResourceDefinition): string {
  return def.group === '' ? def.version : `${def.group}/${def.version}`;
}

/** The apiVersion this definition's objects are stored in. */
export function storageApiVersionOf(def: ResourceDefinition): string {
  return def.storageApiVersion ?? apiVersionOfDefinition(def);
}

/** Create-only resources whose answer is computed, never stored (see `compute`). */
export function defineComputedResource(
  def: Pick<ResourceDefinition, 'group' | 'version' | 'resource' | 'kind' | 'namespaced' | 'compute'> & Partial<ResourceDefinition>,
): ResourceDefinition {
  return defineResource({ verbs: ['create'], strategy: defaultStrategy, ...def });
}

/** Fills in the parts most definitions share. */
export function defineResource(
  def: Pick<ResourceDefinition, 'group' | 'version' | 'resource' | 'kind' | 'namespaced' | 'strategy'> & Partial<ResourceDefinition>,
): ResourceDefinition {
  if (def.subresources?.includes('scale') && !def.scale) throw new Error(`${def.resource}: the scale subresource needs scale facts`);
  return {
    singular: def.kind.toLowerCase(),
    listKind: `${def.kind}List`,
    shortNames: [],
    categories: [],
    verbs: ALL_VERBS,
    subresources: [],
    createSubresources: [],
    connectSubresources: [],
    storagePath: def.resource,
    returnDeletedObject: false,
    selectableFields: {},
    printerColumns: [],
    ...def,
  };
}
