import type { MaybePromise } from '../api/maybe-promise';
import { forbidden } from '../api/errors';
import { isPlainObject, type KubeObject } from '../api/types';
import type { AdmissionAttributes, AdmissionPlugin } from './admission';

/** Where the plugin reads PriorityClasses (kube's informer: the watch cache here). */
export interface PriorityClassSource {
  get(name: string): MaybePromise<KubeObject | null>;
  list(): MaybePromise<KubeObject[]>;
}

const PRIORITY_CLASSES = { group: 'scheduling.k8s.io', resource: 'priorityclasses' };
/** scheduling.DefaultPriorityWhenNoDefaultClassExists. */
const DEFAULT_PRIORITY = 0;

const valueOf = (pc: KubeObject): number => (typeof pc.value === 'number' ? pc.value : 0);

/**
 * Priority (plugin/pkg/admission/priority): a created pod's priorityClassName (or the global
 * default class) resolved to spec.priority and spec.preemptionPolicy, refusing an unknown class or
 * a preset value that differs; an update keeps what creation set. PriorityClasses: one globalDefault.
 */
export class PriorityAdmission implements AdmissionPlugin {
  readonly name = 'Priority';

  constructor(private readonly classes: PriorityClassSource) {}

  admit(attrs: AdmissionAttributes): Promise<void> | void {
    if (attrs.subresource !== '' || attrs.def.group || attrs.def.resource !== 'pods') return;
    return this.admitPod(attrs);
  }

  private async admitPod(attrs: AdmissionAttributes): Promise<void> {
    const spec = attrs.object?.spec;
    if (!isPlainObject(spec)) return;
    if (attrs.operation === 'UPDATE') {
      // Validation keeps priority and preemptionPolicy fixed: an update that omits them keeps the old ones.
      const old = isPlainObject(attrs.oldObject?.spec) ? attrs.oldObject.spec : {};
      if (spec.priority == null && old.priority != null) spec.priority = old.priority;
      if (spec.preemptionPolicy == null && old.preemptionPolicy != null) spec.preemptionPolicy = old.preemptionPolicy;
      return;
    }
    if (attrs.operation !== 'CREATE') return;
    let priority: number;
    let preemptionPolicy: unknown;
    const className = typeof spec.priorityClassName === 'string' ? spec.priorityClassName : '';
    if (className === '') {
      const dpc = await this.defaultClass();
      if (dpc) {
        spec.priorityClassName = dpc.metadata.name;
        priority = valueOf(dpc);
        preemptionPolicy = dpc.preemptionPolicy;
      } else {
        priority = DEFAULT_PRIORITY;
        preemptionPolicy = 'PreemptLowerPriority';
      }
    } else {
      const pc = await this.classes.get(className);
      if (!pc) throw forbidden({ group: '', resource: 'pods' }, attrs.name, `no PriorityClass with name ${className} was found`);
      priority = valueOf(pc);
      preemptionPolicy = pc.preemptionPolicy;
    }
    if (spec.priority != null && spec.priority !== priority) {
      throw forbidden(
        { group: '', resource: 'pods' },
        attrs.name,
        `the integer value of priority (${String(spec.priority)}) must not be provided in pod spec; priority admission controller computed ${priority} from the given PriorityClass name`,
      );
    }
    spec.priority = priority;
    if (typeof preemptionPolicy === 'string') {
      if (spec.preemptionPolicy != null && spec.preemptionPolicy !== preemptionPolicy) {
        throw forbidden(
          { group: '', resource: 'pods' },
          attrs.name,
          `the string value of PreemptionPolicy (${String(spec.preemptionPolicy)}) must not be provided in pod spec; priority admission controller computed ${preemptionPolicy} from the given PriorityClass name`,
        );
      }
      spec.preemptionPolicy = preemptionPolicy;
    }
  }

  validate(attrs: AdmissionAttributes): Promise<void> | void {
    if (attrs.subresource !== '' || attrs.def.group !== PRIORITY_CLASSES.group || attrs.def.resource !== PRIORITY_CLASSES.resource) return;
    if ((attrs.operation !== 'CREATE' && attrs.operation !== 'UPDATE') || attrs.object?.globalDefault !== true) return;
    return this.validateDefault(attrs, attrs.object);
  }

  private async validateDefault(attrs: AdmissionAttributes, object: KubeObject): Promise<void> {
    const dpc = await this.defaultClass();
    if (dpc && (attrs.operation === 'CREATE' || dpc.metadata.name !== object.metadata.name)) {
      throw forbidden(PRIORITY_CLASSES, attrs.name, `PriorityClass ${dpc.metadata.name ?? ''} is already marked as default. Only one default can exist`);
    }
  }

  /** getDefaultPriorityClass: of several global defaults (a race), the lowest value. */
  private async defaultClass(): Promise<KubeObject | null> {
    let found: KubeObject | null = null;
    for (const pc of await this.classes.list()) {
      if (pc.globalDefault === true && (found === null || valueOf(found) > valueOf(pc))) found = pc;
    }
    return found;
  }
}
