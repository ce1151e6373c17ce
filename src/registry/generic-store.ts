import type { CallSignal } from '../api/request-abort';
import { systemClock, type Clock } from '../api/clock';
import { randomUUID } from 'node:crypto';
import { loopSlices } from '../api/loop-slices';
import { withoutOmittedZerosOfKind } from '../schema/go-zeros';
import { jsonEqual } from '../api/deep-equal';
import { jsonClone } from '../api/json-clone';
import {
  alreadyExists,
  badRequest,
  conflict,
  forbidden,
  generateNameConflict,
  invalid,
  isStatusError,
  notAStatus,
  notFound,
  OPTIMISTIC_LOCK_MESSAGE,
  pathNotFound,
  StatusError,
} from '../api/errors';
import { field, fieldErrorMessage, type FieldError, type FieldErrorList } from '../api/field-errors';
import { kindSchema, type ObjectNode } from '../schema/typed-schema';
import { validateAgainstSchema } from '../schema/validator';
import { withGoZerosOfKind } from '../schema/go-zeros';
import { authorizeCreateToo } from '../auth/create-on-update-authorization';
import { validateObjectMeta, validateObjectMetaUpdate } from '../api/meta-validation';
import { nameIsPathSegment } from '../api/name-validation';
import type { GroupVersionKind, KubeList, KubeObject, Status } from '../api/types';
import type { ListOptions, ReadConsistency, Storage, WatchItem, WatchOptions } from '../storage/interfaces';
import { checkPreconditions } from '../storage/preconditions';
import { objectRevision } from '../storage/revision';
import { isStorageError } from '../storage/storage-error';
import type { WatchChannel } from '../storage/watch-channel';
import {
  admittedDeleteRequest,
  deletionUpdate,
  markTerminating,
  shouldDeleteDuringUpdate,
  startDeletion,
  terminationStep,
  type DeletionUpdate,
} from './deletion';
import { timestampAt } from './time';
import { collectionPrefix, objectKey, resourceRoot } from './storage-keys';
import { apiVersionOfDefinition, groupResource, type ResourceDefinition, type ServedKind } from './resource-definition';
import { FieldManager, keepTimesOfNoOp } from './field-manager';
import { interpretStorageError } from './storage-errors';
import { disabledValueErrors, dropDisabledFields } from './gated-fields';
import { DEFAULT_VALIDATION_OPTIONS, specOf, type ValidationOptions } from './strategy';
import {
  applySubresource,
  keepSubresourceFields,
  runsMainRules,
  subresourceView,
  type CreateSubresource,
  type Subresource,
  type SubresourceView,
} from './subresources';
import type { AdmissionAttributes, AdmissionOperation } from './types';
import { reconcileNamespace } from './computed-store';
import { selectionPredicate } from './predicate';
import { NO_SIGNAL } from './conversion';
import { servedVersionInProcess, servedVersionOf, servedVersionsOf, storageVersionOf } from './version-conversion';
import type { MaybePromise } from '../api/maybe-promise';
import { boundTo, ensureActive, SYSTEM_READ_ALL, withInfo, type RequestContext } from './request-context';
import type { ServerServices } from './types';
import type { WriteOptions, ApplyRequest, DeleteRequest, DeleteOutcome } from './types';

export type { WriteOptions, ApplyRequest, DeleteRequest, DeleteOutcome } from './types';

/** Ends a marking update without a transaction when the deletion state machine decided against writing. */
const NO_UPDATE = Symbol('no update');

/** Ends an update that empties the finalizers of an object being deleted: it is deleted instead (kube's errEmptiedFinalizers). */
const EMPTIED_FINALIZERS = Symbol('emptied finalizers');

/** Kept where resources and controllers have always imported them from. */
export { nowTimestamp, timestampAt } from './time';

/** Called once the write is decided: true when it was stored, false when it failed (or was retried). */
export type FinishWrite = (stored: boolean) => Promise<void>;

/**
 * What a kind's REST storage does around the generic writes, as kube's Store.BeginCreate,
 * BeginUpdate and AfterDelete (the Service registry's IP and port allocation): begin runs after
 * the strategy validated the object and before validating admission and the transaction; it may
 * change the object and throw StatusErrors; its finish releases what the write did not keep.
 */
export interface WriteHooks {
  beginCreate(obj: KubeObject, dryRun: boolean): Promise<FinishWrite>;
  beginUpdate(next: KubeObject, prev: KubeObject, dryRun: boolean): Promise<FinishWrite>;
  afterDelete(obj: KubeObject, dryRun: boolean): Promise<void>;
}

/** rest.Update's unconditional update: a resourceVersion ObjectResourceVersion reads as zero (none, "0", "00"). */
function isUnconditional(obj: KubeObject): boolean {
  return objectRevision(obj.metadata.resourceVersion) === 0;
}

/** The operation's options as admission (and webhooks' AdmissionReview) sees them. */
function admissionOptions(operation: AdmissionOperation, opts: WriteOptions | DeleteRequest): Record<string, unknown> {
  const kind = operation === 'CREATE' ? 'CreateOptions' : operation === 'UPDATE' ? 'UpdateOptions' : 'DeleteOptions';
  const options: Record<string, unknown> = { kind, apiVersion: 'meta.k8s.io/v1' };
  if (opts.dryRun) options.dryRun = ['All'];
  if (operation !== 'DELETE') {
    if (opts.fieldManager) options.fieldManager = opts.fieldManager;
    return options;
  }
  const del = opts as DeleteRequest;
  if (del.gracePeriodSeconds !== undefined) options.gracePeriodSeconds = del.gracePeriodSeconds;
  if (del.preconditions) options.preconditions = del.preconditions;
  if (del.orphanDependents !== undefined) options.orphanDependents = del.orphanDependents;
  if (del.propagationPolicy) options.propagationPolicy = del.propagationPolicy;
  return options;
}

/**
 * etcd3 store.Create's ErrResourceVersionSetOnCreate: a resourceVersion the versioner reads as a
 * number other than 0 (ParseUint; one it cannot read is cleared like an empty one).
 */
function versionSetOnCreate(version: string | undefined): boolean {
  return version !== undefined && /^[0-9]+$/.test(version) && BigInt(version) !== 0n && BigInt(version) < 2n ** 64n;
}

const GENERATED_SUFFIX_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';
const MAX_GENERATED_NAME_PREFIX = 58;
/** RetryGenerateName: a generated name that collides is drawn again, a few times. */
const GENERATE_NAME_ATTEMPTS = 8;

function generateName(base: string): string {
  let suffix = '';
  for (let i = 0; i < 5; i++) suffix += GENERATED_SUFFIX_ALPHABET[Math.floor(Math.random() * GENERATED_SUFFIX_ALPHABET.length)];
  return base.slice(0, MAX_GENERATED_NAME_PREFIX) + suffix;
}

/**
 * The same problem reported by two checks is reported once: a schema error on a field the kind's
 * own errors name with the same type is left out, and so is a repeat of one of the kind's own
 * errors (two hooks checking one rule); its errors on one field with other messages all stay, as
 * in kube's causes.
 */
function uniqueErrors(own: FieldErrorList, schema: FieldErrorList): FieldErrorList {
  const key = (e: FieldError): string => `${e.type}\u0000${e.field}`;
  const seen = new Set(own.map(key));
  const messages = new Set<string>();
  return [
    ...own.filter((e) => {
      const message = `${e.type}\u0000${fieldErrorMessage(e)}`;
      if (messages.has(message)) return false;
      messages.add(message);
      return true;
    }),
    ...schema.filter((e) => {
      if (seen.has(key(e))) return false;
      seen.add(key(e));
      return true;
    }),
  ];
}

/**
 * The object as kube-apiserver holds it once decoded into its Go type: omitempty fields at their
 * zero value are gone (a client's `minReadySeconds: 0` is neither stored, answered nor owned in
 * managedFields). Custom resources are left as sent.
 */
function asGoDecodes(obj: KubeObject): void {
  if (obj.apiVersion && obj.kind) withoutOmittedZerosOfKind(obj.apiVersion, obj.kind, obj);
}

/** The REST storage of every stored resource, built-in or not: all verbs go through it. */
export class GenericStore {
  private readonly root: string;
  /** The kind's typed schema and field manager, built on the store's first use: a start builds stores of every kind and uses a few. */
  private typed: { schema: ObjectNode | null; fields: FieldManager | null } | null = null;
  /** Set once at start by the composition root for kinds with allocations (services). */
  hooks: WriteHooks | null = null;
  /** cachedObjects' last answer and the cache's change mark it was read at. */
  private everything: { mark: number; items: readonly KubeObject[] } | null = null;

  constructor(
    readonly def: ResourceDefinition,
    private readonly storage: Storage,
    etcdPrefix: string,
    /** What the server's flags tell validation. */
    private readonly validation: ValidationOptions = DEFAULT_VALIDATION_OPTIONS,
    /** Objects written through the store expire this long after each write (kube's Store.TTLFunc; Events' --event-ttl). */
    private readonly ttlSeconds = 0,
    /** The time of creation and deletion timestamps and managed fields entries. */
    private readonly clock: Clock = systemClock,
  ) {
    this.root = resourceRoot(etcdPrefix, def);
  }

  private get schema(): ObjectNode | null {
    return this.typedParts().schema;
  }

  private get fields(): FieldManager | null {
    return this.typedParts().fields;
  }

  private typedParts(): { schema: ObjectNode | null; fields: FieldManager | null } {
    if (this.typed) return this.typed;
    const { def } = this;
    const schema = def.ownSchema?.typed ?? kindSchema({ group: def.group, version: def.version, kind: def.kind });
    return (this.typed = { schema, fields: schema ? new FieldManager(def, schema, () => this.nowTimestamp()) : null });
  }

  private nowSeconds(): number {
    return this.clock.now() / 1000;
  }

  private nowTimestamp(): string {
    return timestampAt(this.nowSeconds());
  }

  /** The typed schema of the kind, where kapi has one. */
  get typedSchema(): ObjectNode | null {
    return this.schema;
  }

  /** The kind requests and responses through a subresource (or the main resource, '') carry, and its schema. */
  served(subresource: '' | Subresource): { kind: ServedKind; schema: ObjectNode | null } {
    const view = subresourceView(this.def, subresource);
    return view ? { kind: view.kind, schema: kindSchema(view.kind) } : { kind: this.def, schema: this.schema };
  }

  key(namespace: string, name: string): string {
    return objectKey(this.root, this.def.namespaced, namespace, name);
  }

  /** The prefix of a collection: one namespace, or all of them when namespace is ''. */
  prefix(namespace: string): string {
    return collectionPrefix(this.root, this.def.namespaced, namespace);
  }

  private fail(err: unknown, name: string, operation: string): never {
    throw interpretStorageError(err, groupResource(this.def), name, operation);
  }

  /** What a client of this version sees of a stored object (version-conversion.ts). */
  toServed(obj: KubeObject, signal: CallSignal = NO_SIGNAL): Promise<KubeObject> {
    return servedVersionOf(this.def, obj, signal);
  }

  /** The object, or what the request's subresource shows of it when it has a kind of its own (scale). */
  async get(ctx: RequestContext, name: string, opts: ReadConsistency): Promise<KubeObject> {
    let obj: KubeObject;
    try {
      obj = await this.toServed(await this.storage.get(this.key(ctx.info.namespace, name), boundTo(ctx, opts)), ctx.signal);
    } catch (err) {
      this.fail(err, name, 'get');
    }
    const sub = ctx.info.subresource as '' | Subresource;
    // A connect or create subresource's request reads its parent whole.
    const view = sub && this.def.subresources.includes(sub) ? subresourceView(this.def, sub) : null;
    return view ? view.read(obj) : obj;
  }

  /**
   * Every object of the kind from the watch cache, as kube's admission plugins read their listers:
   * the same array (not to be changed) until the cache's objects change, so that admission's reads
   * of its configurations cost nothing per request.
   */
  cachedObjects(): MaybePromise<readonly KubeObject[]> {
    const mark = this.storage.changeMark?.();
    if (mark !== undefined && this.everything?.mark === mark) return this.everything.items;
    return this.list(SYSTEM_READ_ALL, { resourceVersion: '0', match: '', predicate: selectionPredicate(this.def, '', '') }).then(({ items }) => {
      if (mark !== undefined) this.everything = { mark, items };
      return items;
    });
  }

  /**
   * A lister's read (kube's informer store): the object in the watch cache now, as served, or null
   * when the cache has none; undefined when the cache cannot answer at once (not ready, an
   * unreadable value, or a conversion webhook to call), and the caller reads through `find`.
   */
  cachedNow(namespace: string, name: string): KubeObject | null | undefined {
    const obj = this.storage.peek?.(this.key(namespace, name));
    return obj ? servedVersionInProcess(this.def, obj) : obj;
  }

  /** A lister's list of a namespace (every object with ''), as cachedNow; undefined when the cache cannot answer at once. */
  cachedUnderNow(namespace: string): KubeObject[] | undefined {
    const stored = this.storage.peekUnder?.(this.prefix(namespace));
    if (!stored) return undefined;
    const served: KubeObject[] = [];
    for (const obj of stored) {
      const item = servedVersionInProcess(this.def, obj);
      if (!item) return undefined;
      served.push(item);
    }
    return served;
  }

  /** The object, or null when it does not exist (what a controller's or lookup's get wants). */
  async find(ctx: RequestContext, name: string, opts: ReadConsistency): Promise<KubeObject | null> {
    try {
      return await this.get(ctx, name, opts);
    } catch (err) {
      if (isStatusError(err) && err.code === 404) return null;
      throw err;
    }
  }

  async list(ctx: RequestContext, opts: ListOptions): Promise<KubeList> {
    try {
      const result = await this.storage.list(this.prefix(ctx.info.namespace), boundTo(ctx, opts));
      const metadata: KubeList['metadata'] = { resourceVersion: result.resourceVersion };
      if (result.continue) metadata.continue = result.continue;
      if (result.remainingItemCount !== undefined) metadata.remainingItemCount = result.remainingItemCount;
      return {
        kind: this.def.listKind,
        apiVersion: apiVersionOfDefinition(this.def),
        metadata,
        items: await servedVersionsOf(this.def, result.items, ctx.signal, result.itemsType),
      };
    } catch (err) {
      this.fail(err, '', 'list');
    }
  }

  async watch(ctx: RequestContext, opts: WatchOptions): Promise<WatchChannel<WatchItem>> {
    try {
      return await this.storage.watch(this.prefix(ctx.info.namespace), boundTo(ctx, opts));
    } catch (err) {
      this.fail(err, '', 'watch');
    }
  }

  /** BeforeCreate: what the server owns is set here, then the kind's hooks run in order. */
  private prepareCreate(ctx: RequestContext, obj: KubeObject): void {
    const { namespace } = ctx.info;
    const meta = obj.metadata;
    if (this.def.namespaced) {
      if (!meta.namespace) meta.namespace = namespace;
      if (meta.namespace !== namespace) {
        throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
      }
    } else {
      delete meta.namespace;
    }
    delete meta.deletionTimestamp;
    delete meta.deletionGracePeriodSeconds;
    delete meta.selfLink;
    delete meta.resourceVersion;
    meta.uid = randomUUID();
    meta.creationTimestamp = this.nowTimestamp();
    const { strategy } = this.def;
    if (strategy.tracksGeneration) meta.generation = 1;
    else delete meta.generation;
    strategy.prepareForCreate(obj, ctx);
    dropDisabledFields(this.validation.featureGates, obj, null);
    strategy.applyDefaults(obj);
    // A kind with write hooks is validated once they ran (kube's BeginCreate comes before BeforeCreate).
    if (!this.hooks) this.finishCreate(ctx, obj);
  }

  /** The end of BeforeCreate: validation, then the kind's canonical form. */
  private finishCreate(ctx: RequestContext, obj: KubeObject): void {
    this.validateCreate(ctx, obj);
    this.def.strategy.canonicalize(obj);
  }

  private validateCreate(ctx: RequestContext, obj: KubeObject): void {
    const { strategy } = this.def;
    const errs: FieldErrorList = [
      ...validateObjectMeta(obj.metadata, {
        namespaced: this.def.namespaced,
        validateName: strategy.validateName,
        kubeFinalizerNames: strategy.kubeFinalizerNames,
      }),
      ...strategy.validate(obj, this.validation),
      ...strategy.validateCreate(obj, ctx),
      ...disabledValueErrors(this.validation.featureGates, obj, null),
    ];
    const schemaErrs = validateAgainstSchema(this.def, obj);
    if (errs.length + schemaErrs.length > 0) throw invalid(this.def, obj.metadata.name ?? '', uniqueErrors(errs, schemaErrs));
    const pathErrs = this.pathSegmentErrors(obj);
    if (pathErrs.length > 0) throw invalid(this.def, obj.metadata.name ?? '', pathErrs);
    for (const warning of strategy.warningsOnCreate(obj)) ctx.warn(warning);
  }

  private pathSegmentErrors(obj: KubeObject): FieldErrorList {
    const { name = '', generateName } = obj.metadata;
    const errs: FieldErrorList = [];
    if (generateName) for (const msg of nameIsPathSegment(generateName, true)) errs.push(field.invalid('metadata.generateName', generateName, msg));
    for (const msg of nameIsPathSegment(name, false)) errs.push(field.invalid('metadata.name', name, msg));
    return errs;
  }

  /** The part of the object the request writes: its subresource, or '' for the whole object. */
  private subresourceOf(ctx: RequestContext): '' | Subresource {
    const sub = ctx.info.subresource;
    if (sub && !this.def.subresources.includes(sub as Subresource)) throw pathNotFound();
    return sub as '' | Subresource;
  }

  /** The kind a path's objects have: a create subresource's or a view's own (Binding, Scale), or the resource's. */
  private kindAt(subresource: string): GroupVersionKind {
    const created = this.def.createSubresources.find((s) => s.name === subresource);
    const kind: ServedKind =
      created?.kind ??
      subresourceView(this.def, this.def.subresources.includes(subresource as Subresource) ? (subresource as Subresource) : '')?.kind ??
      this.def;
    return { group: kind.group, version: kind.version, kind: kind.kind };
  }

  /**
   * One admission phase of a write, once the store knows what the write is: its operation, the
   * object as the request's kind shows it, the stored one, by the context's admission.
   */
  private async admit(
    phase: 'mutate' | 'validate',
    ctx: RequestContext,
    opts: WriteOptions | DeleteRequest,
    operation: AdmissionOperation,
    object: KubeObject | undefined,
    oldObject: KubeObject | undefined,
    name?: string,
  ): Promise<void> {
    if (phase === 'validate' && operation === 'CREATE' && (ctx.info.verb === 'update' || ctx.info.verb === 'patch')) {
      authorizeCreateToo(ctx, { ...ctx.info, name: name ?? object?.metadata.name ?? '' });
    }
    // As kube's forbidCreateAdmission, which wraps the whole admission chain of a terminating CRD's resource.
    const refusal = phase === 'mutate' && operation === 'CREATE' ? this.def.createRefusal?.() : null;
    if (refusal) throw forbidden({ group: this.def.group, resource: this.def.resource }, name ?? object?.metadata.name ?? '', refusal);
    const { admission } = ctx;
    const kind = this.kindAt(ctx.info.subresource);
    // kube-apiserver's decoder defaults what admission is given (its strategy defaults again after),
    // so mutating plugins and webhooks see the kind's defaults.
    if (phase === 'mutate' && object && kind.kind === this.def.kind) this.def.strategy.applyDefaults(object);
    const attrs: AdmissionAttributes = {
      operation,
      def: this.def,
      namespace: ctx.info.namespace,
      name: name ?? object?.metadata.name ?? oldObject?.metadata.name ?? '',
      subresource: ctx.info.subresource,
      kind,
      object,
      oldObject,
      options: admissionOptions(operation, opts),
      dryRun: opts.dryRun,
      user: ctx.user,
      request: ctx,
    };
    await (phase === 'mutate' ? admission.mutate(attrs) : admission.validate(attrs));
  }

  /**
   * POST: mutating admission, the kind's create strategy, validating admission, then the
   * create-if-absent transaction, as kube's create handler and Store.Create.
   */
  async create(ctx: RequestContext, obj: KubeObject, opts: WriteOptions): Promise<KubeObject> {
    const { namespace } = ctx.info;
    // kube's create handler records the fields as decoded (defaulted) before mutating admission
    // (UpdateNoErrors, then Admit), so what admission adds (a pod's token volume) is no manager's,
    // nor is what the strategy generates (a Job's selector).
    asGoDecodes(obj);
    const decoded = opts.fieldManager !== undefined && this.fields ? jsonClone(obj) : null;
    if (decoded) this.def.strategy.applyDefaults(decoded);
    await this.admit('mutate', ctx, opts, 'CREATE', obj, undefined);
    // What admission added, as Go would decode it too.
    asGoDecodes(obj);
    // prepareCreate clears it; the storage step below answers for it, as etcd3's store.Create does.
    const sentVersion = obj.metadata.resourceVersion;
    const generated = !obj.metadata.name && !!obj.metadata.generateName;
    const slice = loopSlices();
    // Recorded once, as kube's handler does before the store's attempts: a generated name is not a managed field.
    if (decoded) await this.fields!.update(null, decoded, opts.fieldManager!, '', slice);
    for (let attempt = 1; ; attempt++) {
      if (generated) obj.metadata.name = generateName(obj.metadata.generateName!);
      this.prepareCreate(ctx, obj);
      await slice();
      if (decoded) {
        if (decoded.metadata.managedFields) obj.metadata.managedFields = decoded.metadata.managedFields;
        else delete obj.metadata.managedFields;
      }
      const finish = this.hooks ? await this.hooks.beginCreate(obj, opts.dryRun) : null;
      const name = obj.metadata.name!;
      let stored = false;
      try {
        if (this.hooks) this.finishCreate(ctx, obj);
        await this.admit('validate', ctx, opts, 'CREATE', obj, undefined);
        ensureActive(ctx);
        await slice();
        if (!opts.dryRun && versionSetOnCreate(sentVersion)) throw notAStatus('resourceVersion should not be set on objects to be created');
        const record = await storageVersionOf(this.def, obj, ctx.signal);
        const created = await this.toServed(
          await this.storage.create(this.key(namespace, name), record, {
            dryRun: opts.dryRun,
            signal: ctx.signal,
            ttlSeconds: this.ttlSeconds,
            batch: opts.batch,
          }),
          ctx.signal,
        );
        stored = true;
        // DryRunnableStorage.Create answers with the object as it came, its resourceVersion included.
        if (opts.dryRun && sentVersion) created.metadata.resourceVersion = sentVersion;
        return created;
      } catch (err) {
        if (!isStorageError(err, 'KeyExists')) this.fail(err, name, 'create');
        if (generated && attempt < GENERATE_NAME_ATTEMPTS) continue;
        throw await this.nameTaken(ctx, obj);
      } finally {
        await finish?.(stored);
      }
    }
  }

  /**
   * Store.create's answer to a name already taken, dry run or not: CheckGeneratedNameError's conflict
   * when the object asked for a generated name (even beside a name of its own), prefixed, as kube
   * does, when the object holding the name is being deleted, since that one goes away by itself.
   */
  private async nameTaken(ctx: RequestContext, obj: KubeObject): Promise<StatusError> {
    const gr = groupResource(this.def);
    const name = obj.metadata.name ?? '';
    const taken = obj.metadata.generateName ? generateNameConflict(gr, name) : alreadyExists(gr, name);
    let holder: KubeObject;
    try {
      holder = await this.storage.get(this.key(ctx.info.namespace, name), { resourceVersion: '', match: '', signal: ctx.signal });
    } catch {
      // Store.create answers the conflict as it stands when the holder cannot be read (gone meanwhile).
      return taken;
    }
    if (!holder.metadata.deletionTimestamp) return taken;
    const { code, reason, message, details } = taken.status;
    return new StatusError(code!, reason!, `object is being deleted: ${message}`, details, taken.headers);
  }

  /**
   * POST to a create subresource (pods/binding, serviceaccounts/token): admitted as a CREATE of
   * the subresource under the parent's name, then answered by the subresource.
   */
  async createThrough(
    ctx: RequestContext,
    sub: CreateSubresource,
    object: KubeObject,
    opts: WriteOptions,
    services: ServerServices,
  ): Promise<KubeObject | Status> {
    const { namespace, name } = ctx.info;
    await this.admit('mutate', ctx, opts, 'CREATE', object, undefined, name);
    reconcileNamespace(namespace, object);
    await this.admit('validate', ctx, opts, 'CREATE', object, undefined, name);
    ensureActive(ctx);
    return sub.create({ ctx, parent: this, namespace, name, object, dryRun: opts.dryRun, services });
  }

  /**
   * BeforeUpdate: keeps what no update may change, then runs the kind's hooks in order, with a
   * slice check between them (each walks the whole object: tens of ms for 20,000 containers).
   */
  private async prepareUpdate(
    ctx: RequestContext,
    requested: KubeObject,
    prev: KubeObject,
    subresource: '' | Subresource,
    slice: () => Promise<void>,
  ): Promise<KubeObject> {
    const { namespace } = ctx.info;
    const next = subresource ? applySubresource(requested, prev, this.def, subresource) : requested;
    // The stored object carries Go's zero values; so must the new one, or leaving one out would count as a change.
    withGoZerosOfKind(apiVersionOfDefinition(this.def), this.def.kind, next);
    await slice();
    const meta = next.metadata;
    if (this.def.namespaced) {
      if (!meta.namespace) meta.namespace = namespace;
      if (meta.namespace !== namespace) {
        throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
      }
    } else {
      delete meta.namespace;
    }
    const old = prev.metadata;
    meta.generation = old.generation;
    if (!meta.generation) delete meta.generation;
    if (!meta.uid) meta.uid = old.uid;
    meta.creationTimestamp = old.creationTimestamp;
    if (old.deletionTimestamp) meta.deletionTimestamp = old.deletionTimestamp;
    if (old.deletionGracePeriodSeconds !== undefined && meta.deletionGracePeriodSeconds === undefined) {
      meta.deletionGracePeriodSeconds = old.deletionGracePeriodSeconds;
    }
    delete meta.selfLink;
    const { strategy } = this.def;
    // Defaults first, as decoding applies them in kube-apiserver: a field the client left to its default is no change.
    strategy.applyDefaults(next);
    await slice();
    const mainRules = runsMainRules(subresource);
    const own = subresource ? strategy.subresourceStrategies[subresource] : undefined;
    if (mainRules) {
      keepSubresourceFields(next, prev, this.def);
      strategy.prepareForUpdate(next, prev, ctx);
    }
    // A subresource of the kind's own changes part of the spec, and the generation moves with it (pods' updatePodGeneration).
    if ((mainRules || own) && strategy.tracksGeneration && !jsonEqual(specOf(next), specOf(prev))) {
      meta.generation = (old.generation ?? 0) + 1;
    }
    if (subresource === 'status') strategy.prepareForStatusUpdate(next, prev, ctx);
    dropDisabledFields(this.validation.featureGates, next, prev);
    await slice();
    // A kind with write hooks is validated once they ran (kube's BeginUpdate comes before BeforeUpdate).
    if (!this.hooksRunOn(subresource)) await this.finishUpdate(ctx, next, prev, subresource, slice);
    return next;
  }

  /** Whether the kind's write hooks run on a write of `subresource` (the whole object only). */
  private hooksRunOn(subresource: '' | Subresource): boolean {
    return this.hooks !== null && subresource === '';
  }

  /** The end of BeforeUpdate: validation, then the kind's canonical form. */
  private async finishUpdate(
    ctx: RequestContext,
    next: KubeObject,
    prev: KubeObject,
    subresource: '' | Subresource,
    slice: () => Promise<void>,
  ): Promise<void> {
    const { strategy } = this.def;
    const meta = next.metadata;
    const mainRules = runsMainRules(subresource);
    const own = subresource ? strategy.subresourceStrategies[subresource] : undefined;
    const errs: FieldErrorList = validateObjectMetaUpdate(meta, prev.metadata, strategy.kubeFinalizerNames);
    if (mainRules) {
      errs.push(...strategy.validate(next, this.validation, prev));
      await slice();
      errs.push(...strategy.validateUpdate(next, prev, ctx), ...disabledValueErrors(this.validation.featureGates, next, prev));
    }
    // A CSR's /approval is validated as its /status (ValidateCertificateSigningRequestApprovalUpdate shares the rules).
    if (subresource === 'status' || subresource === 'approval') errs.push(...strategy.validateStatusUpdate(next, prev, ctx));
    if (own) errs.push(...own.validate(next, prev, ctx));
    await slice();
    const schemaErrs = validateAgainstSchema(this.def, next);
    if (errs.length + schemaErrs.length > 0) throw invalid(this.def, meta.name ?? '', uniqueErrors(errs, schemaErrs));
    const warnings = mainRules ? strategy.warningsOnUpdate(next, prev) : subresource === 'status' ? strategy.warningsOnStatusUpdate(next, prev) : [];
    for (const warning of warnings) ctx.warn(warning);
    strategy.canonicalize(next);
  }

  /**
   * PUT, and PATCH when `input` is a function of the stored object. A client's resourceVersion is
   * checked against every fresh read, so the storage's retry on a moved object can never silently
   * overwrite a change the client has not seen. Through a subresource with a kind of its own
   * (scale), `input` and the result are of that kind, and so is what admission sees.
   */
  async update(
    ctx: RequestContext,
    name: string,
    input: KubeObject | ((current: KubeObject) => KubeObject | Promise<KubeObject>),
    opts: WriteOptions,
  ): Promise<{ object: KubeObject; created: boolean }> {
    const view = subresourceView(this.def, this.subresourceOf(ctx));
    if (!view) return this.write(ctx, name, typeof input === 'function' ? (current) => input(current!) : input, opts);
    if (typeof input !== 'function') this.checkName(input, name);
    const result = await this.write(
      ctx,
      name,
      async (current) => {
        const old = view.read(current!);
        const requested = typeof input === 'function' ? await input(old) : jsonClone(input);
        this.checkName(requested, name);
        await this.admit('mutate', ctx, opts, 'UPDATE', requested, old);
        return view.write(requested, current!);
      },
      { ...opts, view, inputAdmitted: true },
    );
    return { object: view.read(result.object), created: false };
  }

  /** kube's checkName (PUT and PATCH): an object without a name is one ContextBasedNaming.ObjectName cannot name. */
  private checkName(obj: KubeObject, name: string): void {
    if (!obj.metadata.name) throw badRequest(`the name of the object (${name} based on URL) was undeterminable: name must be provided`);
    if (obj.metadata.name !== name) {
      throw badRequest(`the name of the object (${obj.metadata.name ?? ''}) does not match the name on the URL (${name})`);
    }
  }

  /**
   * An update, or the create of an absent object (PUT of a kind that allows it; apply), as
   * Store.Update: once the store knows which it is, mutating admission (as CREATE or UPDATE), the
   * kind's strategy, validating admission, then the guarded transaction.
   */
  private async write(
    ctx: RequestContext,
    name: string,
    input: KubeObject | ((current: KubeObject | null) => KubeObject | Promise<KubeObject>),
    req: WriteOptions & { createIfAbsent?: boolean; ownershipRecorded?: boolean; view?: SubresourceView; inputAdmitted?: boolean },
  ): Promise<{ object: KubeObject; created: boolean }> {
    const { strategy } = this.def;
    const { namespace } = ctx.info;
    const subresource = this.subresourceOf(ctx);
    const shown = (obj: KubeObject): KubeObject => (req.view ? req.view.read(obj) : obj);
    const checkName = (obj: KubeObject): void => this.checkName(obj, name);
    if (typeof input !== 'function') checkName(input);
    const key = this.key(namespace, name);
    let created = false;
    // The update that emptied the finalizers of an object being deleted, and the uid it was read with.
    let emptied = null as { updated: KubeObject; uid: string | undefined } | null;
    const createOnUpdate = req.createIfAbsent ?? (strategy.allowCreateOnUpdate && typeof input !== 'function' && subresource === '');
    const manager = req.ownershipRecorded ? undefined : req.fieldManager;
    // The hooks' finish of the attempt under way; a retried attempt gives back what it took.
    const attempt: { finish: FinishWrite | null } = { finish: null };
    const slice = loopSlices();
    const begin = async (started: Promise<FinishWrite> | undefined): Promise<void> => {
      await attempt.finish?.(false);
      attempt.finish = null;
      if (started) attempt.finish = await started;
    };
    let stored = false;
    try {
      const object = await this.storage.guaranteedUpdate(
        key,
        async (current) => {
          created = false;
          if (!current) {
            if (!createOnUpdate || (typeof input !== 'function' && !isUnconditional(input))) throw notFound(this.def, name);
            created = true;
            const fresh = typeof input === 'function' ? await input(null) : jsonClone(input);
            // Store.Update reads the resourceVersion (ObjectResourceVersion) before it knows it creates.
            objectRevision(fresh.metadata.resourceVersion);
            checkName(fresh);
            if (!req.inputAdmitted) await this.admit('mutate', ctx, req, 'CREATE', fresh, undefined);
            asGoDecodes(fresh);
            this.prepareCreate(ctx, fresh);
            if (manager !== undefined) await this.fields?.update(null, fresh, manager, '', slice);
            await begin(this.hooks?.beginCreate(fresh, req.dryRun));
            if (this.hooks) this.finishCreate(ctx, fresh);
            await this.admit('validate', ctx, req, 'CREATE', fresh, undefined);
            ensureActive(ctx);
            return storageVersionOf(this.def, fresh, ctx.signal);
          }
          current = await this.toServed(current, ctx.signal);
          const next = typeof input === 'function' ? await input(jsonClone(current)) : jsonClone(input);
          checkName(next);
          await slice();
          if (!req.inputAdmitted) await this.admit('mutate', ctx, req, 'UPDATE', next, current);
          asGoDecodes(next);
          await slice();
          if (isUnconditional(next)) {
            // rest.Update: no resourceVersion (or "0") overwrites what is stored, where the kind allows it.
            if (!strategy.allowUnconditionalUpdate) {
              throw invalid(this.def, name, [field.invalid('metadata.resourceVersion', 0, 'must be specified for an update')]);
            }
            next.metadata.resourceVersion = current.metadata.resourceVersion;
          } else if (objectRevision(next.metadata.resourceVersion) !== objectRevision(current.metadata.resourceVersion)) {
            // Store.Update compares the numbers ObjectResourceVersion reads: "007" is 7.
            throw conflict(groupResource(this.def), name, OPTIMISTIC_LOCK_MESSAGE);
          }
          const updated = await this.prepareUpdate(ctx, next, current, subresource, slice);
          await slice();
          if (manager !== undefined) await this.fields?.update(current, updated, manager, subresource, slice);
          keepTimesOfNoOp(updated, current);
          await begin(subresource === '' ? this.hooks?.beginUpdate(updated, current, req.dryRun) : undefined);
          if (this.hooksRunOn(subresource)) await this.finishUpdate(ctx, updated, current, subresource, slice);
          await slice();
          await this.admit('validate', ctx, req, 'UPDATE', shown(updated), shown(current));
          ensureActive(ctx);
          if (shouldDeleteDuringUpdate(current, this.finalizing(updated))) {
            emptied = { updated, uid: current.metadata.uid };
            throw EMPTIED_FINALIZERS;
          }
          await slice();
          return storageVersionOf(this.def, updated, ctx.signal);
        },
        { ignoreNotFound: createOnUpdate, dryRun: req.dryRun, signal: ctx.signal, ttlSeconds: this.ttlSeconds },
      );
      stored = true;
      // The storage encoding of a large object ran since the last slice; the answer's conversion and encoding come next.
      await slice();
      return { object: await this.toServed(object, ctx.signal), created };
    } catch (err) {
      if (err !== EMPTIED_FINALIZERS) return this.fail(err, name, 'update');
    } finally {
      await attempt.finish?.(stored);
    }
    try {
      return await this.deleteEmptied(key, emptied!.updated, emptied!.uid, req.dryRun);
    } catch (err) {
      return this.fail(err, name, 'delete');
    }
  }

  /**
   * Store.deleteWithoutFinalizers: the update that emptied the finalizers of an object being
   * deleted is not written; the stored object is deleted instead (watchers see it go as it was),
   * and the answer is the updated object, as a PUT's client expects. Someone else's deletion
   * meanwhile is no error.
   */
  private async deleteEmptied(key: string, updated: KubeObject, uid: string | undefined, dryRun: boolean): Promise<{ object: KubeObject; created: boolean }> {
    try {
      const removed = await this.storage.delete(key, { preconditions: { uid }, dryRun });
      await this.hooks?.afterDelete(removed, dryRun);
    } catch (err) {
      if (!isStorageError(err, 'KeyNotFound')) throw err;
    }
    return { object: updated, created: false };
  }

  /**
   * A write past the kind's strategy, as the pod registry's own GuaranteedUpdate for pods/binding
   * (the one write kube makes around its store): no defaults, validation, admission, managedFields
   * or resourceVersion check; the binding was admitted as a CREATE of the subresource. `mutate`
   * changes the stored object in place and may throw StatusErrors. 404 when the object does not exist.
   */
  async updateDirectly(ctx: RequestContext, name: string, mutate: (current: KubeObject) => void, opts: WriteOptions): Promise<KubeObject> {
    try {
      const object = await this.storage.guaranteedUpdate(
        this.key(ctx.info.namespace, name),
        async (current) => {
          if (!current) throw notFound(this.def, name);
          const next = jsonClone(await this.toServed(current, ctx.signal));
          mutate(next);
          ensureActive(ctx);
          return storageVersionOf(this.def, next, ctx.signal);
        },
        { ignoreNotFound: false, dryRun: opts.dryRun, signal: ctx.signal },
      );
      return await this.toServed(object, ctx.signal);
    } catch (err) {
      this.fail(err, name, 'update');
    }
  }

  /**
   * Server-side apply: the configuration is merged into the live object (created when absent, and
   * then admitted as a CREATE) under the rules of its schema; managedFields record the applier's ownership.
   */
  async apply(ctx: RequestContext, name: string, config: KubeObject, req: ApplyRequest): Promise<{ object: KubeObject; created: boolean }> {
    const fields = this.fields;
    if (!fields) throw new StatusError(415, 'UnsupportedMediaType', `apply is not supported for ${this.def.resource}`);
    const subresource = this.subresourceOf(ctx);
    const view = subresourceView(this.def, subresource);
    const applied = view ? view.configuration(config) : config;
    const result = await this.write(
      ctx,
      name,
      async (current) => {
        const merged = fields.apply(current, applied, req.fieldManager, req.force, subresource);
        // patcher.applyPatch: a configuration that names a uid cannot create the object, which has none yet
        const uid = merged.metadata.uid;
        if (!current && uid) {
          throw conflict(groupResource(this.def), name, `uid mismatch: the provided object specified uid ${uid}, and no existing object was found`);
        }
        if (!view) return merged;
        // The merged object is written as its view would be: validated as that kind, what it leaves out at its zero value.
        const requested = view.read(merged);
        await this.admit('mutate', ctx, req, 'UPDATE', requested, view.read(current!));
        return view.write(requested, merged);
      },
      { ...req, createIfAbsent: subresource === '', ownershipRecorded: true, view: view ?? undefined, inputAdmitted: !!view },
    );
    return view ? { object: view.read(result.object), created: false } : result;
  }

  /**
   * DELETE, as the generic store does it: BeforeDelete (preconditions, graceful deletion), the
   * garbage collector's finalizers from the propagation options, then either a marking update
   * (deletionTimestamp; the object stays while finalizers or a grace period hold it) or removal.
   * Admission sees the stored object before each transaction (kube's deleteValidation).
   */
  async delete(ctx: RequestContext, name: string, req: DeleteRequest): Promise<DeleteOutcome> {
    const key = this.key(ctx.info.namespace, name);
    try {
      const current = await this.storage.get(key, { resourceVersion: '', match: '' });
      if (this.def.strategy.startTermination) return await this.terminate(ctx, key, current, req);
      return await this.deleteObject(ctx, key, current, req);
    } catch (err) {
      this.fail(err, name, 'delete');
    }
  }

  /**
   * DELETE on a collection, as Store.DeleteCollection: what the options select, each deleted as
   * DELETE would (admitted one by one), answered with the list as it was. A limit deletes one page only;
   * without one, Store.DeleteCollection pages to the end from where the options start, a continue token included
   * (so a bad token is refused as a list refuses it).
   */
  async deleteCollection(ctx: RequestContext, listOpts: ListOptions, req: DeleteRequest): Promise<KubeList> {
    const paged = (listOpts.limit ?? 0) > 0;
    const list = await this.list(ctx, paged ? listOpts : { ...listOpts, limit: undefined });
    for (const item of list.items) {
      try {
        await this.delete(withInfo(ctx, { namespace: item.metadata.namespace ?? '', name: item.metadata.name ?? '' }), item.metadata.name ?? '', req);
      } catch (err) {
        // Something else deleted it meanwhile: the collection is still gone, as asked.
        if (!(isStatusError(err) && err.code === 404)) throw err;
      }
    }
    return list;
  }

  /** kube's deleteValidation: both admission phases on the object about to be deleted, then the deadline. */
  private deleteValidation(ctx: RequestContext, req: DeleteRequest): (existing: KubeObject) => Promise<void> {
    return async (existing) => {
      const old = await this.toServed(existing, ctx.signal);
      const name = old.metadata.name ?? '';
      await this.admit('mutate', ctx, req, 'DELETE', undefined, old, name);
      await this.admit('validate', ctx, req, 'DELETE', undefined, old, name);
      ensureActive(ctx);
    };
  }

  /** Store.Delete: carries out the deletion state machine's decisions (deletion.ts) in etcd transactions. */
  private async deleteObject(ctx: RequestContext, key: string, current: KubeObject, req: DeleteRequest): Promise<DeleteOutcome> {
    const name = current.metadata.name ?? '';
    const validate = this.deleteValidation(ctx, admittedDeleteRequest(this.def, current, req));
    const start = startDeletion(this.def, current, req, this.nowSeconds());
    if (start === 'pending') return { object: await this.deletedResult(current), deleted: false };
    if (start === 'remove') return this.remove(key, req, validate);
    // Set by the update's last attempt.
    let decided = { step: 'pending' } as DeletionUpdate;
    const updated = await this.storage
      .guaranteedUpdate(
        key,
        async (existing) => {
          if (!existing) throw notFound(this.def, name);
          checkPreconditions(key, existing, req.preconditions);
          await validate(existing);
          decided = deletionUpdate(this.def, existing, req, this.nowSeconds());
          // Nothing is written for these: the update ends without a transaction.
          if (decided.step !== 'mark') throw NO_UPDATE;
          return decided.object;
        },
        { dryRun: req.dryRun, signal: ctx.signal },
      )
      .catch((err: unknown) => {
        if (err === NO_UPDATE) return null;
        throw err;
      });
    if (decided.step === 'pending') return { object: await this.deletedResult(current), deleted: false };
    if (decided.step === 'removeNow' || !updated) return this.remove(key, req, validate);
    if (!decided.thenRemove) return { object: await this.toServed(updated, ctx.signal), deleted: false };
    if (req.dryRun) return { object: await this.deletedResult(updated), deleted: true };
    const preconditions = req.preconditions?.resourceVersion ? { ...req.preconditions, resourceVersion: updated.metadata.resourceVersion } : req.preconditions;
    try {
      return await this.remove(key, { ...req, preconditions }, validate);
    } catch (err) {
      // Someone else finished the deletion meanwhile: it is done all the same (kubernetes#19403).
      if (isStorageError(err, 'KeyNotFound')) return { object: await this.deletedResult(updated), deleted: true };
      throw err;
    }
  }

  private async remove(key: string, req: DeleteRequest, validateDeletion: (existing: KubeObject) => Promise<void>): Promise<DeleteOutcome> {
    const removed = await this.storage.delete(key, { preconditions: req.preconditions, dryRun: req.dryRun, validateDeletion });
    await this.hooks?.afterDelete(removed, req.dryRun);
    return { object: await this.deletedResult(removed), deleted: true };
  }

  /** A namespace's DELETE: carries out terminationStep's decisions (deletion.ts). */
  private async terminate(ctx: RequestContext, key: string, current: KubeObject, req: DeleteRequest): Promise<DeleteOutcome> {
    const { step, preconditions } = terminationStep(this.def, current, req);
    if (step === 'wait') return { object: await this.toServed(current, ctx.signal), deleted: false };
    if (step === 'delete') return this.deleteObject(ctx, key, current, { ...req, preconditions });
    const name = current.metadata.name ?? '';
    const updated = await this.storage.guaranteedUpdate(
      key,
      async (existing) => {
        if (!existing) throw notFound(this.def, name);
        checkPreconditions(key, existing, preconditions);
        await this.deleteValidation(ctx, req)(existing);
        return markTerminating(this.def, existing, req, this.nowSeconds());
      },
      { dryRun: req.dryRun, signal: ctx.signal },
    );
    return { object: await this.toServed(updated, ctx.signal), deleted: false };
  }

  /**
   * Unsafe deletion of an object that cannot be read (ignoreStoreReadErrorWithClusterBreakingPotential):
   * refused for a readable object; otherwise a normal deletion is tried first, and only a
   * corrupt-object failure removes the value, ignoring finalizers and preconditions.
   */
  async deleteCorrupt(ctx: RequestContext, name: string, opts: WriteOptions): Promise<Status> {
    const key = this.key(ctx.info.namespace, name);
    let corrupt = false;
    try {
      await this.storage.get(key, { resourceVersion: '', match: '' });
    } catch (err) {
      corrupt = isStorageError(err, 'Corrupt');
      if (!corrupt && !isStorageError(err, 'KeyNotFound')) this.fail(err, name, 'delete');
    }
    if (!corrupt) {
      throw invalid({ group: this.def.group, kind: this.def.resource }, name, [
        field.invalid(
          'ignoreStoreReadErrorWithClusterBreakingPotential',
          true,
          'is exclusively used to delete corrupt object(s), try again by removing this option',
        ),
      ]);
    }
    try {
      await this.delete(ctx, name, { dryRun: false });
    } catch (err) {
      if (!(isStatusError(err) && err.message.includes('corrupt object'))) throw err;
      await this.admit('mutate', ctx, opts, 'DELETE', undefined, undefined, name);
      await this.admit('validate', ctx, opts, 'DELETE', undefined, undefined, name);
      ensureActive(ctx);
      try {
        await this.storage.deleteUnreadable(key);
      } catch (e) {
        if (!isStorageError(e, 'KeyNotFound')) this.fail(e, name, 'delete');
      }
    }
    return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', details: { name, kind: this.def.kind }, code: 200 };
  }

  /** Deletion of this object waits on finalizers of some kind. */
  private finalizing(obj: KubeObject): boolean {
    return (obj.metadata.finalizers ?? []).length > 0 || this.def.strategy.finalizing(obj);
  }

  private async deletedResult(obj: KubeObject): Promise<KubeObject | Status> {
    if (this.def.returnDeletedObject) return this.toServed(obj);
    const details: NonNullable<Status['details']> = { name: obj.metadata.name };
    if (this.def.group) details.group = this.def.group;
    details.kind = this.def.resource;
    details.uid = obj.metadata.uid;
    return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', details } as Status;
  }

  async count(): Promise<number> {
    return this.storage.count(this.root);
  }
}
