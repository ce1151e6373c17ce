import { isStatusError } from '../api/errors';
import type { PriorityClass } from '../generated/types/scheduling/v1';
import { field, type FieldErrorList } from '../api/field-errors';
import type { KubeObject } from '../api/types';
import type { GenericStore } from '../registry/generic-store';
import { systemContext, SERVER_OWN_WRITE } from '../registry/request-context';
import { defineResource } from '../registry/resource-definition';
import { strategy } from '../registry/strategy';
import { AGE_COLUMN, NAME_COLUMN } from '../registry/table';

/** scheduling.k8s.io/v1 PriorityClass: stored, defaulted and validated as kube-apiserver does; no scheduler reads it. */

const HIGHEST_USER_DEFINABLE_PRIORITY = 1_000_000_000;
const SYSTEM_CRITICAL_PRIORITY = 2 * HIGHEST_USER_DEFINABLE_PRIORITY;
const SYSTEM_PREFIX = 'system-';
/** The classes kube reserves the prefix for, with the value and globalDefault each must have (schedulingv1's SystemPriorityClasses). */
const SYSTEM_PRIORITY_CLASSES: Record<string, { value: number; globalDefault: boolean; description: string }> = {
  'system-node-critical': {
    value: SYSTEM_CRITICAL_PRIORITY + 1000,
    globalDefault: false,
    description: 'Used for system critical pods that must not be moved from their current node.',
  },
  'system-cluster-critical': {
    value: SYSTEM_CRITICAL_PRIORITY,
    globalDefault: false,
    description: 'Used for system critical pods that must run in the cluster, but can be moved to another node if necessary.',
  },
};

/** AddSystemPriorityClasses (the scheduling/bootstrap-system-priority-classes hook): kube's system classes, created when absent. */
export async function ensureSystemPriorityClasses(store: GenericStore): Promise<void> {
  for (const [name, { value, description }] of Object.entries(SYSTEM_PRIORITY_CLASSES)) {
    const pc = { apiVersion: 'scheduling.k8s.io/v1', kind: 'PriorityClass', metadata: { name }, value, description };
    try {
      await store.create(systemContext({ namespace: '' }, SERVER_OWN_WRITE), pc, { dryRun: false });
    } catch (err) {
      if (!(isStatusError(err) && err.code === 409)) throw err;
    }
  }
}
const PREEMPTION_POLICIES = ['PreemptLowerPriority', 'Never'];

const value = (pc: KubeObject): number => (typeof pc.value === 'number' ? pc.value : 0);

/** IsKnownSystemPriorityClass: why a system- name is refused, or null when it is one of kube's own. */
export function systemClassError(name: string, pcValue: number, globalDefault: boolean): string | null {
  const known = SYSTEM_PRIORITY_CLASSES[name];
  if (!known) return `${name} is not a known system priority class`;
  if (known.value !== pcValue) return `value of ${name} PriorityClass must be ${known.value}`;
  if (known.globalDefault !== globalDefault) return `globalDefault of ${name} PriorityClass must be ${known.globalDefault}`;
  return null;
}

/** ValidatePriorityClass. */
function validatePriorityClass(pc: PriorityClass): FieldErrorList {
  const errs: FieldErrorList = [];
  const name = pc.metadata.name ?? '';
  if (name.startsWith(SYSTEM_PREFIX)) {
    const error = systemClassError(name, value(pc), pc.globalDefault === true);
    if (error)
      errs.push(field.forbidden('metadata.name', `priority class names with '${SYSTEM_PREFIX}' prefix are reserved for system use only. error: ${error}`));
  } else if (value(pc) > HIGHEST_USER_DEFINABLE_PRIORITY) {
    errs.push(field.forbidden('value', `maximum allowed value of a user defined priority is ${HIGHEST_USER_DEFINABLE_PRIORITY}`));
  }
  // The generated enum is narrower than the wire: any string decodes, and this names the supported ones.
  const policy: string | undefined = pc.preemptionPolicy;
  if (policy !== undefined) {
    if (policy === '') errs.push(field.required('preemptionPolicy'));
    else if (!PREEMPTION_POLICIES.includes(policy)) errs.push(field.notSupported('preemptionPolicy', policy, PREEMPTION_POLICIES));
  }
  return errs;
}

/** ValidatePriorityClassUpdate: the value and the preemption policy are fixed at creation. */
function validatePriorityClassUpdate(next: PriorityClass, prev: PriorityClass): FieldErrorList {
  const errs: FieldErrorList = [];
  if (value(next) !== value(prev)) errs.push(field.forbidden('value', 'may not be changed in an update.'));
  if (next.preemptionPolicy !== prev.preemptionPolicy) errs.push(field.invalid('preemptionPolicy', next.preemptionPolicy, 'field is immutable'));
  return errs;
}

export const priorityclasses = defineResource<PriorityClass>({
  group: 'scheduling.k8s.io',
  version: 'v1',
  resource: 'priorityclasses',
  kind: 'PriorityClass',
  namespaced: false,
  shortNames: ['pc'],
  strategy: strategy<PriorityClass>({
    tracksGeneration: true,
    applyDefaults: (pc) => {
      if (pc.preemptionPolicy === undefined) pc.preemptionPolicy = 'PreemptLowerPriority';
    },
    validate: validatePriorityClass,
    validateUpdate: validatePriorityClassUpdate,
  }),
  printerColumns: [
    NAME_COLUMN,
    {
      name: 'Value',
      type: 'integer',
      description:
        'value represents the integer value of this priority class. This is the actual priority that pods receive when they have the name of this class in their pod spec.',
      cell: value,
    },
    {
      name: 'Global-Default',
      type: 'boolean',
      description:
        'globalDefault specifies whether this PriorityClass should be considered as the default priority for pods that do not have any priority class. Only one PriorityClass can be marked as `globalDefault`. However, if more than one PriorityClasses exists with their `globalDefault` field set to true, the smallest value of such global default PriorityClasses will be used as the default priority.',
      cell: (pc) => pc.globalDefault === true,
    },
    AGE_COLUMN,
    {
      name: 'PreemptionPolicy',
      type: 'string',
      description:
        'preemptionPolicy is the Policy for preempting pods with lower priority. One of Never, PreemptLowerPriority. Defaults to PreemptLowerPriority if unset.',
      cell: (pc) => (typeof pc.preemptionPolicy === 'string' ? pc.preemptionPolicy : '<unset>'),
    },
  ],
});
