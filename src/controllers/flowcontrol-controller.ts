import type { ObjectStore } from '../registry/types';
import { jsonEqual } from '../api/deep-equal';
import { isStatusError } from '../api/errors';
import { objectOf, objectsIn, stringOf } from '../api/json-read';
import type { KubeObject } from '../api/types';
import {
  AUTO_UPDATE_ANNOTATION,
  MANDATORY_FLOW_SCHEMAS,
  MANDATORY_PRIORITY_LEVELS,
  SUGGESTED_FLOW_SCHEMAS,
  SUGGESTED_PRIORITY_LEVELS,
} from '../registry/flowcontrol-bootstrap';
import { systemContext, SERVER_OWN_WRITE } from '../registry/request-context';
import { QueueController } from './runtime/controller';
import { CachedInformer } from './runtime/informer';
import { systemClock, type Clock } from './runtime/clock';
import { WorkQueue } from './work-queue';
import type { SharedInformers } from './runtime/shared-informers';
import { jsonClone } from '../api/json-clone';

type Log = (message: string, err?: unknown) => void;

const RETRY_MS = 1000;
const FS = 'flowschemas/';
const PL = 'prioritylevelconfigurations/';

interface Wanted {
  object: KubeObject;
  mandatory: boolean;
}

const byKey = new Map<string, Wanted>([
  ...MANDATORY_PRIORITY_LEVELS.map((o) => [PL + o.metadata.name, { object: o, mandatory: true }] as const),
  ...SUGGESTED_PRIORITY_LEVELS.map((o) => [PL + o.metadata.name, { object: o, mandatory: false }] as const),
  ...MANDATORY_FLOW_SCHEMAS.map((o) => [FS + o.metadata.name, { object: o, mandatory: true }] as const),
  ...SUGGESTED_FLOW_SCHEMAS.map((o) => [FS + o.metadata.name, { object: o, mandatory: false }] as const),
]);

/** strconv.ParseBool, which the ensurer reads the annotation with; null where it fails. */
function parseBool(value: string | undefined): boolean | null {
  if (value === undefined) return null;
  if (['1', 't', 'T', 'TRUE', 'true', 'True'].includes(value)) return true;
  if (['0', 'f', 'F', 'FALSE', 'false', 'False'].includes(value)) return false;
  return null;
}

/**
 * The spec and annotation an existing bootstrap object should have (pkg/registry/flowcontrol/ensurer):
 * a mandatory object always gets the bootstrap spec, except the exempt level's `exempt` values,
 * which its users may tune; a suggested one only while its annotation says "true", or, without a
 * readable annotation, while nobody has changed it (generation 1), the annotation then recording
 * that judgement.
 */
function ensured(current: KubeObject, wanted: Wanted): KubeObject {
  const annotation = current.metadata.annotations?.[AUTO_UPDATE_ANNOTATION];
  const autoUpdate = wanted.mandatory || (parseBool(annotation) ?? current.metadata.generation === 1);
  const next = jsonClone(current);
  if (wanted.mandatory || parseBool(annotation) === null) {
    next.metadata.annotations = { ...current.metadata.annotations, [AUTO_UPDATE_ANNOTATION]: String(autoUpdate) };
  }
  if (autoUpdate) {
    const spec = jsonClone(wanted.object.spec) as Record<string, unknown>;
    if (wanted.object.kind === 'PriorityLevelConfiguration' && spec.type === 'Exempt' && objectOf(current.spec).type === 'Exempt') {
      spec.exempt = { ...objectOf(spec.exempt), ...objectOf(objectOf(current.spec).exempt) };
    }
    next.spec = spec;
  }
  return next;
}

/** configController's Dangling condition: whether the schema's priority level exists. */
function danglingCondition(fs: KubeObject, levelExists: boolean, now: string): Record<string, unknown> {
  const name = stringOf(objectOf(objectOf(fs.spec).priorityLevelConfiguration).name);
  return levelExists
    ? {
        type: 'Dangling',
        status: 'False',
        lastTransitionTime: now,
        reason: 'Found',
        message: `This FlowSchema references the PriorityLevelConfiguration object named "${name}" and it exists`,
      }
    : {
        type: 'Dangling',
        status: 'True',
        lastTransitionTime: now,
        reason: 'NotFound',
        message: `This FlowSchema references the PriorityLevelConfiguration object named "${name}" but there is no such object`,
      };
}

/**
 * kube-apiserver's APF configuration producer and the status part of its configuration
 * controller: the mandatory and suggested FlowSchemas and PriorityLevelConfigurations exist (at
 * start and whenever one is deleted or changed), and every FlowSchema's Dangling condition says
 * whether its priority level exists.
 */
export class FlowControlController extends QueueController {
  readonly name = 'poststarthook/priority-and-fairness-config-producer';
  private readonly schemas: CachedInformer;
  private readonly levels: CachedInformer;
  protected readonly queue: WorkQueue;

  constructor(
    private readonly flowSchemas: ObjectStore,
    private readonly priorityLevels: ObjectStore,
    informers: SharedInformers,
    private readonly log: Log,
    private readonly clock: Clock = systemClock,
  ) {
    super();
    this.queue = new WorkQueue(
      (key) => this.sync(key),
      (key, err) => this.log(`flowcontrol bootstrap: ${key} failed`, err),
      RETRY_MS,
      clock,
    );
    const schema = (fs: KubeObject) => this.queue.add(FS + fs.metadata.name);
    const level = (pl: KubeObject) => {
      this.queue.add(PL + pl.metadata.name);
      for (const fs of this.schemas.list()) if (stringOf(objectOf(objectOf(fs.spec).priorityLevelConfiguration).name) === pl.metadata.name) schema(fs);
    };
    this.schemas = informers.informer(flowSchemas, { added: schema, updated: (_, fs) => schema(fs), deleted: schema }, { name: 'flowschemas' });
    this.levels = informers.informer(
      priorityLevels,
      { added: level, updated: (_, pl) => this.queue.add(PL + pl.metadata.name), deleted: level },
      { name: 'prioritylevelconfigurations' },
    );
  }

  protected get informers(): CachedInformer[] {
    return [this.levels, this.schemas];
  }

  protected override synced(): void {
    for (const key of byKey.keys()) this.queue.add(key);
  }

  private async sync(key: string): Promise<boolean> {
    const isSchema = key.startsWith(FS);
    const name = key.slice(isSchema ? FS.length : PL.length);
    const store = isSchema ? this.flowSchemas : this.priorityLevels;
    const current = (isSchema ? this.schemas : this.levels).get(name) ?? null;
    try {
      const wanted = byKey.get(key);
      if (wanted) await this.ensure(store, name, current, wanted);
      if (isSchema && current) await this.judgeReference(current);
    } catch (err) {
      // Someone else wrote it meanwhile: the informers bring the change, and with it another pass.
      if (isStatusError(err) && (err.code === 409 || err.code === 404)) return false;
      throw err;
    }
    return true;
  }

  private async ensure(store: ObjectStore, name: string, current: KubeObject | null, wanted: Wanted): Promise<void> {
    const ctx = systemContext({ namespace: '' }, SERVER_OWN_WRITE);
    if (!current) {
      await store.create(ctx, jsonClone(wanted.object), { dryRun: false });
      return;
    }
    const next = ensured(current, wanted);
    if (jsonEqual(next.spec, current.spec) && jsonEqual(next.metadata.annotations, current.metadata.annotations)) return;
    await store.update(ctx, name, next, { dryRun: false });
  }

  private async judgeReference(fs: KubeObject): Promise<void> {
    const plName = stringOf(objectOf(objectOf(fs.spec).priorityLevelConfiguration).name);
    const exists = this.levels.get(plName) !== undefined;
    const conditions = objectsIn(objectOf(fs.status).conditions);
    const old = conditions.find((c) => c.type === 'Dangling');
    const wanted = danglingCondition(fs, exists, new Date(this.clock.now()).toISOString().replace(/\.\d+Z$/, 'Z'));
    if (old && old.status === wanted.status && old.reason === wanted.reason && old.message === wanted.message) return;
    await this.flowSchemas.update(
      systemContext({ namespace: '', subresource: 'status' }, SERVER_OWN_WRITE),
      fs.metadata.name!,
      (obj) => {
        const others = objectsIn(objectOf(obj.status).conditions).filter((c) => c.type !== 'Dangling');
        obj.status = { ...objectOf(obj.status), conditions: [...others, wanted] };
        return obj;
      },
      { dryRun: false },
    );
  }
}
