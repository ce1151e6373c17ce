import type { CallSignal } from '../api/request-abort';
import type { FieldErrorList } from '../api/field-errors';
import type { NameValidator } from '../api/name-validation';
import type { GroupVersionKind, KubeList, KubeObject, Status } from '../api/types';
import type { RequestAuthorizer } from '../auth/authorizer/attributes';
import type { ServiceAccountTokens } from '../auth/service-account-tokens';
import type { UserInfo } from '../auth/user';
import type { ObjectNode } from '../schema/typed-schema';
import type { FeatureGates } from '../server/feature-gates';
import type { ListOptions, Preconditions, ReadConsistency, WatchItem, WatchOptions } from '../storage/interfaces';
import type { CreateBatch } from '../storage/etcd/create-batch';
import type { WatchChannel } from '../storage/watch-channel';
import type { ObjectConverter } from './conversion';
import type { GarbageCollectionPolicy, PropagationOptions } from './deletion-finalizers';

/*
 * The registry's vocabulary, declarations only: what a resource is (ResourceDefinition and the
 * strategy, subresources and services it names), what a request is (RequestContext, admission),
 * and what a store offers (ObjectStore). These refer to one another, so they live in one module
 * that imports no behaviour; the modules that implement them import it, never the other way.
 */

/**
 * A callback property checked as method members are (bivariantly in its parameters), so that a
 * definition or strategy of one kind (`Strategy<Pod>`) is still one of `KubeObject`s, which the
 * store calls with the objects it decoded as that kind.
 */
export type Hook<Args extends unknown[], Result> = { hook(...args: Args): Result }['hook'];

export type Verb = 'get' | 'list' | 'watch' | 'create' | 'update' | 'patch' | 'delete' | 'deletecollection';

/** A printed column of `kubectl get`: the Table column definition plus how to compute its cell. */
export interface PrinterColumn<T extends KubeObject = KubeObject> {
  name: string;
  type: 'string' | 'integer' | 'number' | 'boolean' | 'date';
  format?: string;
  description: string;
  priority?: number;
  cell(obj: T): unknown;
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

/** A kind's own field-label conversion func, as kube-apiserver registers it. */
export interface FieldLabelConversion {
  /** The refusal of a label it does not know; absent: "field label not supported: <label>". */
  refusal?: (label: string) => string;
  /** false where its switch leaves out metadata.namespace (Node, Namespace, CSR, ResourceSlice, cluster-scoped CRs). */
  namespaceLabel?: boolean;
  /** Labels it admits under another name: label -> the selectable field it converts to. */
  renames?: Record<string, string>;
}

/**
 * Everything the machinery knows about one resource; routes, discovery and storage derive from it.
 * A definition with `compute` is not stored: its only verb is create, which answers with what
 * `compute` returns (the review APIs).
 */
export interface ResourceDefinition<T extends KubeObject = KubeObject> {
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
  selectableFields: Record<string, Hook<[obj: T], string>>;
  /**
   * The kind's field-label conversion func (runtime.Scheme.AddFieldLabelConversionFunc), which admits
   * metadata.name, metadata.namespace and the selectable fields. Absent, kube-apiserver falls back on
   * runtime.DefaultMetaV1FieldSelectorConversion: metadata.name and metadata.namespace only, refused in other words.
   */
  fieldLabelConversion?: FieldLabelConversion;
  /** Sent as a Warning header on every request for this resource. */
  deprecationWarning?: string;
  /** Columns for Table output; empty means the default Name / Created At. */
  printerColumns: PrinterColumn<T>[];
  /** The order of a listed Table's rows where kube's printer sorts them (FlowSchemas); absent: as listed. */
  rowOrder?: Hook<[a: T, b: T], number>;
  strategy: Strategy<T>;
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
  /** Served for a CustomResourceDefinition: discovery ranks its group as kube ranks CRDs' (groupPriorityMinimum 1000, below every built-in group). */
  customResource?: true;
  /** Why a create is refused now, before any admission (a custom resource whose CRD is terminating); null when it is not. */
  createRefusal?: () => string | null;
  /** The verbs discovery lists, in its order, where they are not `verbs` sorted (a custom resource's, fewer while its CRD terminates). */
  discoveryVerbs?: () => Verb[];
}

export interface VersionConversion {
  toStorage(obj: KubeObject): KubeObject;
  fromStorage(obj: KubeObject): KubeObject;
}

/** What validation learns from the server's flags (kube passes them in each strategy's constructor). */
export interface ValidationOptions {
  /** --allow-loopback-endpoints: Endpoints and EndpointSlices may name 127.0.0.0/8 and ::1. */
  allowLoopbackEndpoints: boolean;
  /** --feature-gates over the emulated release's defaults: writes drop or refuse what disabled gates guard (gated-fields.ts). */
  featureGates: FeatureGates;
}

/**
 * What one kind adds to the generic store. The store always runs the hooks in the same order —
 * prepare, default, validate, canonicalize — so no kind can skip a step. The create, update and
 * status hooks take the request's context last (kube's strategies take it first), so that a check
 * which needs the requester (RBAC escalation, a CSR's requesting user) reads it there.
 */
export interface Strategy<T extends KubeObject = KubeObject> {
  /** The rule for metadata.name (and generateName). */
  validateName: NameValidator;
  /**
   * Objects are validated by core's ValidateObjectMeta, which allows only the standard finalizer
   * names without a domain; CRDs and custom resources get apimachinery's, which allows any qualified name.
   */
  kubeFinalizerNames: boolean;
  /** PUT of an absent object creates it. */
  allowCreateOnUpdate: boolean;
  /** PUT without metadata.resourceVersion overwrites whatever is stored. */
  allowUnconditionalUpdate: boolean;
  /** metadata.generation starts at 1 and grows with every change of the spec. */
  tracksGeneration: boolean;
  /** Clears what a client may not set on create (e.g. status). */
  prepareForCreate(obj: T, ctx: RequestContext): void;
  /** Restores what a client may not change on update (e.g. status through the main resource). */
  prepareForUpdate(next: T, prev: T, ctx: RequestContext): void;
  /** What the status strategy's PrepareForUpdate adds to a write through /status (e.g. a phase's transition time). */
  prepareForStatusUpdate(next: T, prev: T, ctx: RequestContext): void;
  /** Fills in defaults, as the versioned defaulting functions do. */
  applyDefaults(obj: T): void;
  /** The rules of create and update alike; `prev` is the stored object on update, whose legacy values may be spared (ratcheting). */
  validate(obj: T, options: ValidationOptions, prev?: T): FieldErrorList;
  /** Rules only a create must satisfy, beyond `validate` (events.k8s.io/v1's new-style Events). */
  validateCreate(obj: T, ctx: RequestContext): FieldErrorList;
  validateUpdate(next: T, prev: T, ctx: RequestContext): FieldErrorList;
  /**
   * The status strategy's ValidateUpdate (kube's ValidateXStatusUpdate), beyond metadata: what a
   * write through /status must satisfy. The main rules do not run there.
   */
  validateStatusUpdate(next: T, prev: T, ctx: RequestContext): FieldErrorList;
  /** WarningsOnCreate: `Warning` headers for a create that validated. */
  warningsOnCreate(obj: T): string[];
  /** WarningsOnUpdate: `Warning` headers for an update through the main resource that validated. */
  warningsOnUpdate(next: T, prev: T): string[];
  /** The status strategy's WarningsOnUpdate, for a write through /status that validated. */
  warningsOnStatusUpdate(next: T, prev: T): string[];
  /** Normalises the stored form (e.g. Secret stringData folded into data). */
  canonicalize(obj: T): void;
  /**
   * Graceful deletion (CheckGracefulDelete): seconds to wait before an object being deleted is
   * really removed, 0 removing it at once (pods on no node, for instance); null for kinds that are
   * never deleted gracefully. `requested` is the client's gracePeriodSeconds.
   */
  gracePeriodSeconds(obj: T, requested: number | undefined): number | null;
  /** Something besides metadata.finalizers holds the object after deletion starts (namespaces' spec.finalizers). */
  finalizing(obj: T): boolean;
  /** Whether deleting sets the garbage collector's finalizers (orphan, foregroundDeletion). */
  garbageCollectionPolicy: GarbageCollectionPolicy;
  /**
   * Kinds whose first delete only starts termination: the store sets deletionTimestamp and this
   * marks the rest (namespaces: phase Terminating; CRDs: the cleanup finalizer). The object goes
   * once nothing holds it.
   */
  startTermination: Hook<[obj: T, opts: PropagationOptions], void> | null;
  /**
   * A write through /status may change metadata.annotations too (Deployments: the deployment
   * controller records the revision annotation with UpdateStatus, whose strategy resets only
   * spec and labels).
   */
  annotationsThroughStatus: boolean;
  /** The kind's strategies of subresources that change part of its spec (pods' ephemeralcontainers and resize). */
  subresourceStrategies: Partial<Record<Subresource, SubresourceStrategy<T>>>;
}

/** Where a scalable kind keeps what its Scale shows (kube-apiserver's replicasPathIn<Kind>, status.replicas, the selector). */
export interface ScaleFacts {
  /** The desired replicas: the only field a write through scale changes. */
  specReplicasPath: string[];
  /** The observed replicas. */
  statusReplicasPath: string[];
  /**
   * A metav1.LabelSelector, which the Scale shows as a selector string; custom resources keep the
   * string itself there. Empty when the kind has none.
   */
  labelSelectorPath: string[];
  /** The selector is a plain label set (ReplicationController's spec.selector), shown as labels.SelectorFromSet does. */
  selectorIsLabelSet?: boolean;
}

/** Subresources that get, update or patch part of the object. */
export type Subresource = 'status' | 'finalize' | 'scale' | 'approval' | 'ephemeralcontainers' | 'resize';

/**
 * A subresource strategy of the kind's own (pods' podEphemeralContainersStrategy and
 * podResizeStrategy): what a write through it takes from the request, and what it must satisfy
 * beyond metadata. Its owned part is also the main resource's, whose own rules refuse changing it.
 */
export interface SubresourceStrategy<T extends KubeObject = KubeObject> {
  /** PrepareForUpdate: copies into `result` (the stored object) what the write may change in `requested`; absent: the owned path. */
  take?(result: T, requested: T): void;
  validate(next: T, prev: T, ctx: RequestContext): FieldErrorList;
}

/**
 * A subresource whose requests and responses carry a kind of their own (Scale): how it shows the
 * stored object, and how what a client wrote through it goes back into the stored object.
 */
export interface SubresourceView {
  kind: ServedKind;
  read(stored: KubeObject): KubeObject;
  /** The stored object after `requested` was written through the subresource: validated, preconditions checked. */
  write(requested: KubeObject, stored: KubeObject): KubeObject;
  /** A server-side apply configuration of the view's kind, as a configuration of the stored kind. */
  configuration(config: KubeObject): KubeObject;
}

/**
 * A subresource whose only verb is create (pods/binding, serviceaccounts/token): its requests carry
 * a kind of its own and its answer is whatever `create` returns (an object, or a Success Status).
 */
export interface CreateSubresource {
  name: string;
  kind: ServedKind;
  create(request: CreateSubresourceRequest): Promise<KubeObject | Status>;
}

export interface CreateSubresourceRequest {
  ctx: RequestContext;
  /** The store of the resource the subresource belongs to. */
  parent: ObjectStore;
  namespace: string;
  /** The parent object's name, from the path. */
  name: string;
  object: KubeObject;
  dryRun: boolean;
  services: ServerServices;
}

/**
 * What answers that are not plain stored writes (computed resources, create subresources) may use
 * beyond their request: other resources' stores and the service account token issuer.
 */
export interface ServerServices {
  /** The store of a built-in resource; throws when it is not served. */
  store(group: string, resource: string): ObjectStore;
  tokens: ServiceAccountTokens;
  /** TokenReview: the token as the API server's bearer token authenticators judge it. */
  reviewToken(token: string, audiences: string[]): Promise<{ user: UserInfo; audiences: string[] } | { error: string }>;
  /** The storage's health check (componentstatuses' etcd-0): throws when etcd does not answer. */
  etcdHealth(): Promise<void>;
  /** How kubelets are reached (pods/log, exec, attach, portforward; nodes/proxy). */
  kubelet: KubeletClientConfig;
}

/** How kapi reaches kubelets: --kubelet-client-certificate/-key, --kubelet-certificate-authority, --kubelet-preferred-address-types. */
export interface KubeletClientConfig {
  cert?: string;
  key?: string;
  /** Without a CA the kubelet's serving certificate is not verified, as kube-apiserver's kubelet transport does. */
  ca?: string;
  preferredAddressTypes: string[];
  /** --allow-loopback-endpoints: loopback kubelet and pod addresses may be dialled (tests). */
  allowLoopback: boolean;
}

/** Where a connect subresource's request goes, and how the connection is made. */
export interface ProxyTarget {
  /** Scheme, host, path and query of the backend request. */
  url: URL;
  /** TLS of an https backend: client certificate, trusted CAs, whether the certificate is verified. */
  tls: BackendTls;
  /** exec, attach and portforward serve only upgrade requests (kube's UpgradeRequired). */
  upgradeRequired: boolean;
}

export interface BackendTls {
  cert?: string;
  key?: string;
  ca?: string;
  rejectUnauthorized: boolean;
}

/** What a connect subresource is asked: the parent's store, the name segment and the query. */
export interface ConnectRequest {
  ctx: RequestContext;
  parent: ObjectStore;
  namespace: string;
  /** The name segment of the path: `name`, or for proxy `name:port` / `scheme:name:port`. */
  name: string;
  query: URLSearchParams;
  services: ServerServices;
}

/**
 * A subresource served by connecting to a backend, as kube's rest.Connecter (exec, attach,
 * portforward, proxy) and pods/log's streaming getter: the request is proxied, upgrades included.
 */
export interface ConnectSubresource {
  name: string;
  /** The options kind discovery names (PodExecOptions, ...; pods/log: Pod). */
  kind: GroupVersionKind;
  /** Discovery's verbs, from the HTTP methods kube registers. */
  verbs: Verb[];
  /** The HTTP methods served; others are 405. */
  methods: string[];
  /** The path after the subresource belongs to the backend (proxy). */
  takesPath: boolean;
  /** The backend's answer is a log stream: a non-2xx answer becomes a Status (kube's LocationStreamer and its response checker). */
  stream: boolean;
  /**
   * Opens a session into the pod (exec, attach, portforward): a request authorized as `get` (a
   * WebSocket's GET) must be allowed to `create` it too, as kube's ExecREST, AttachREST and
   * PortForwardREST check with AuthorizePodWebsocketUpgradeCreatePermission (beta, on since 1.35).
   */
  createsSession?: boolean;
  /** null: nothing to connect to, answered 204 No Content (pods/log of a pod not on a node, as kube's LocationStreamer without a location). */
  target(request: ConnectRequest): Promise<ProxyTarget | null>;
}

/** What a resource request asks, as k8s.io/apiserver's RequestInfo: parsed once from the path. */
export interface RequestAttributes {
  verb: string;
  group: string;
  version: string;
  resource: string;
  /** '' for the resource itself. */
  subresource: string;
  namespace: string;
  /** '' for a collection. */
  name: string;
}

/**
 * One request as the registry sees it, built once by the router (kube keeps the same facts in
 * its request context.Context): who asks, what is asked, the authorizer and admission it is
 * subject to, until when, and where warnings and audit annotations go. Every store verb and
 * strategy hook takes it; nothing below the filters learns the user any other way.
 */
export interface RequestContext {
  readonly user: UserInfo;
  readonly info: RequestAttributes;
  /** The authorizer the request's filter asked; the registry's own checks ask it too. */
  readonly authorizer: RequestAuthorizer;
  /** Run on every write, inside the store (kube's createValidation/updateValidation). */
  readonly admission: WriteAdmission;
  /** Epoch milliseconds after which the request must not change anything; null: no deadline. */
  readonly deadline: number | null;
  /** Ends when the client goes away or the deadline passes. */
  readonly signal: CallSignal;
  /** Adds a `Warning` header to the response (deduplicated). */
  warn(text: string): void;
  /** Audit annotations of the request's audit event (key → value). */
  readonly auditAnnotations: Map<string, string>;
}

/** What a write kapi makes itself is subject to, named where it is made. */
export interface SystemPolicy {
  authorizer: RequestAuthorizer;
  admission: WriteAdmission;
}

export type AdmissionOperation = 'CREATE' | 'UPDATE' | 'DELETE';

/** What admission is told about one write, as k8s.io/apiserver's admission.Attributes. */
export interface AdmissionAttributes {
  operation: AdmissionOperation;
  def: ResourceDefinition;
  namespace: string;
  name: string;
  subresource: string;
  /** The kind of `object` and `oldObject` (a subresource may have its own: Scale, Binding, TokenRequest). */
  kind: GroupVersionKind;
  /** The incoming object (CREATE, UPDATE); mutating plugins change it in place. */
  object?: KubeObject;
  /** The stored object (UPDATE, DELETE). */
  oldObject?: KubeObject;
  /** The operation's options as the wire has them: CreateOptions, UpdateOptions or DeleteOptions. */
  options: Record<string, unknown>;
  dryRun: boolean;
  user: UserInfo;
  /** The request: its deadline and abort signal (a webhook call must not outlive them), warnings, audit annotations. */
  request: RequestContext;
}

/**
 * Admission as the store calls it, once it knows what a write is (CREATE or UPDATE, the old
 * object): mutation before the kind's strategy, validation after it, as kube's Store runs the
 * createValidation/updateValidation callbacks its handlers give it. Either throws a StatusError to refuse.
 */
export interface WriteAdmission {
  mutate(attrs: AdmissionAttributes): Promise<void>;
  validate(attrs: AdmissionAttributes): Promise<void>;
}

export interface WriteOptions {
  dryRun: boolean;
  /** Who makes the change, for managedFields: the request's fieldManager or user agent, '' recorded as `unknown`; absent leaves ownership untracked (the server's own writes). */
  fieldManager?: string;
  /** The server's own creates at start: they may share etcd transactions (never a request's). */
  batch?: CreateBatch;
}

export interface ApplyRequest extends WriteOptions {
  fieldManager: string;
  force: boolean;
}

/** What a delete is asked beyond the request: graceful deletion (kube's DeleteOptions gracePeriodSeconds and preconditions). */
export interface GracefulDeleteOptions {
  gracePeriodSeconds?: number;
  preconditions?: Preconditions;
}

export interface DeleteRequest extends WriteOptions, PropagationOptions, GracefulDeleteOptions {}

export type DeleteOutcome = { object: KubeObject | Status; deleted: boolean };

/**
 * One stored resource's verbs, as kube's rest.Storage: what controllers, subresources, proxies
 * and the server's services depend on. GenericStore is the implementation.
 */
export interface ObjectStore {
  readonly def: ResourceDefinition;
  /**
   * Reads take the request's context as writes do (kube's rest.Getter, Lister and Watcher take a
   * context.Context): the namespace and subresource from its request info, its signal (the
   * client gone, the deadline passed) ending the storage call.
   */
  get(ctx: RequestContext, name: string, opts: ReadConsistency): Promise<KubeObject>;
  /** The object, or null when there is none. */
  find(ctx: RequestContext, name: string, opts: ReadConsistency): Promise<KubeObject | null>;
  list(ctx: RequestContext, opts: ListOptions): Promise<KubeList>;
  watch(ctx: RequestContext, opts: WatchOptions): Promise<WatchChannel<WatchItem>>;
  create(ctx: RequestContext, obj: KubeObject, opts: WriteOptions): Promise<KubeObject>;
  /** A write of the whole object, or of what `input` makes of the stored one (retried on conflicts). */
  update(
    ctx: RequestContext,
    name: string,
    input: KubeObject | ((current: KubeObject) => KubeObject),
    opts: WriteOptions,
  ): Promise<{ object: KubeObject; created: boolean }>;
  /** A write straight to storage, past strategy and admission: only where kube bypasses its store (pods/binding). */
  updateDirectly(ctx: RequestContext, name: string, mutate: (current: KubeObject) => void, opts: WriteOptions): Promise<KubeObject>;
  delete(ctx: RequestContext, name: string, req: DeleteRequest): Promise<DeleteOutcome>;
}
