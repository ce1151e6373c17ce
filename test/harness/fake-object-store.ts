import { alreadyExists, conflict, notFound } from '../../src/api/errors';
import type { KubeList, KubeObject } from '../../src/api/types';
import { BUILT_IN_RESOURCES } from '../../src/resources';
import type { ResourceDefinition } from '../../src/registry/resource-definition';
import type { DeleteOutcome, DeleteRequest, ObjectStore, RequestContext, WriteOptions } from '../../src/registry/types';
import type { ListOptions, ReadConsistency, WatchItem, WatchOptions } from '../../src/storage/interfaces';
import { WatchChannel } from '../../src/storage/watch-channel';

/**
 * An in-memory ObjectStore for controller unit tests, as controller-runtime's fake client is for
 * Go controllers: objects by namespace and name, one resourceVersion counter shared by every store
 * of a `FakeCluster`, watches fed by every write. No strategy, admission or validation runs: a
 * controller's logic is tested against what it reads and writes, not the server's rules.
 */
export class FakeCluster {
  private revision = 0;
  private readonly stores = new Map<string, FakeObjectStore>();
  private uids = 0;

  /** The store of a built-in resource, made on first use. */
  store(group: string, version: string, resource: string): FakeObjectStore {
    const key = `${group}/${version}/${resource}`;
    let store = this.stores.get(key);
    if (!store) {
      const def = BUILT_IN_RESOURCES.find((d) => d.group === group && d.version === version && d.resource === resource);
      if (!def) throw new Error(`no built-in resource ${key}`);
      store = new FakeObjectStore(def, this);
      this.stores.set(key, store);
    }
    return store;
  }

  nextRevision(): string {
    return String(++this.revision);
  }

  nextUid(): string {
    return `uid-${++this.uids}`;
  }
}

export class FakeObjectStore implements ObjectStore {
  private readonly objects = new Map<string, KubeObject>();
  private readonly watchers = new Set<{ namespace: string; opts: WatchOptions; channel: WatchChannel<WatchItem> }>();
  private generated = 0;

  constructor(
    readonly def: ResourceDefinition,
    private readonly cluster: FakeCluster,
  ) {}

  private key(namespace: string, name: string): string {
    return this.def.namespaced ? `${namespace}/${name}` : name;
  }

  private notify(type: 'ADDED' | 'MODIFIED' | 'DELETED', object: KubeObject, previous?: KubeObject): void {
    const revision = Number(object.metadata.resourceVersion);
    for (const w of this.watchers) {
      if (w.namespace && object.metadata.namespace !== w.namespace) continue;
      if (!w.opts.predicate.matches(object)) continue;
      w.channel.push({ type, key: this.key(object.metadata.namespace ?? '', object.metadata.name ?? ''), object: structuredClone(object), previous, revision });
    }
  }

  /** Every object, as stored (tests read them directly). */
  all(): KubeObject[] {
    return [...this.objects.values()].map((o) => structuredClone(o));
  }

  async get(ctx: RequestContext, name: string): Promise<KubeObject> {
    const obj = this.objects.get(this.key(ctx.info.namespace, name));
    if (!obj) throw notFound(this.def, name);
    return structuredClone(obj);
  }

  async find(ctx: RequestContext, name: string, _opts: ReadConsistency): Promise<KubeObject | null> {
    const obj = this.objects.get(this.key(ctx.info.namespace, name));
    return obj ? structuredClone(obj) : null;
  }

  async list(ctx: RequestContext, opts: ListOptions): Promise<KubeList> {
    const { namespace } = ctx.info;
    const items = [...this.objects.values()].filter((o) => (!namespace || o.metadata.namespace === namespace) && opts.predicate.matches(o));
    return {
      apiVersion: this.def.group ? `${this.def.group}/${this.def.version}` : this.def.version,
      kind: `${this.def.kind}List`,
      metadata: { resourceVersion: this.cluster.nextRevision() },
      items: items.map((o) => structuredClone(o)),
    };
  }

  async watch(ctx: RequestContext, opts: WatchOptions): Promise<WatchChannel<WatchItem>> {
    const channel = new WatchChannel<WatchItem>();
    const watcher = { namespace: ctx.info.namespace, opts, channel };
    this.watchers.add(watcher);
    return channel;
  }

  async create(ctx: RequestContext, obj: KubeObject, opts: WriteOptions): Promise<KubeObject> {
    const created = structuredClone(obj);
    const meta = created.metadata;
    if (!meta.name && meta.generateName) meta.name = `${meta.generateName}${String(++this.generated).padStart(5, '0')}`;
    if (this.def.namespaced) meta.namespace ??= ctx.info.namespace;
    const key = this.key(meta.namespace ?? '', meta.name ?? '');
    if (this.objects.has(key)) throw alreadyExists(this.def, meta.name ?? '');
    if (opts.dryRun) return created;
    meta.uid = this.cluster.nextUid();
    meta.resourceVersion = this.cluster.nextRevision();
    meta.creationTimestamp ??= '2026-01-01T00:00:00Z';
    this.objects.set(key, created);
    this.notify('ADDED', created);
    return structuredClone(created);
  }

  async update(
    ctx: RequestContext,
    name: string,
    input: KubeObject | ((current: KubeObject) => KubeObject),
    opts: WriteOptions,
  ): Promise<{ object: KubeObject; created: boolean }> {
    const key = this.key(ctx.info.namespace, name);
    const current = this.objects.get(key);
    if (!current) throw notFound(this.def, name);
    const next = typeof input === 'function' ? input(structuredClone(current)) : structuredClone(input);
    if (typeof input !== 'function' && next.metadata.resourceVersion && next.metadata.resourceVersion !== current.metadata.resourceVersion) {
      throw conflict(this.def, name, 'the object has been modified; please apply your changes to the latest version and try again');
    }
    if (opts.dryRun) return { object: next, created: false };
    next.metadata = { ...next.metadata, uid: current.metadata.uid, resourceVersion: this.cluster.nextRevision() };
    this.objects.set(key, next);
    this.notify('MODIFIED', next, current);
    return { object: structuredClone(next), created: false };
  }

  async updateDirectly(ctx: RequestContext, name: string, mutate: (current: KubeObject) => void, opts: WriteOptions): Promise<KubeObject> {
    return (
      await this.update(
        ctx,
        name,
        (current) => {
          mutate(current);
          return current;
        },
        opts,
      )
    ).object;
  }

  async delete(ctx: RequestContext, name: string, req: DeleteRequest): Promise<DeleteOutcome> {
    const key = this.key(ctx.info.namespace, name);
    const current = this.objects.get(key);
    if (!current) throw notFound(this.def, name);
    if (req.dryRun) return { object: structuredClone(current), deleted: true };
    this.objects.delete(key);
    const last = { ...current, metadata: { ...current.metadata, resourceVersion: this.cluster.nextRevision() } };
    this.notify('DELETED', last, current);
    return { object: structuredClone(last), deleted: true };
  }
}
