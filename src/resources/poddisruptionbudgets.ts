import { field, type FieldErrorList } from '../api/field-errors';
import type { PodDisruptionBudget } from '../generated/types/policy/v1';
import { validateLabelSelector } from '../api/meta-validation';
import { isPlainObject, type KubeObject } from '../api/types';
import { defineResource } from '../registry/resource-definition';
import { strategy } from '../registry/strategy';
import { AGE_COLUMN, NAME_COLUMN } from '../registry/table';
import { validatePodDisruptionBudgetStatusUpdate } from './status-validation';

/** policy/v1 PodDisruptionBudget: stored and validated as kube-apiserver does; pods/eviction (pod-eviction.ts) spends it. */

type Obj = Record<string, unknown>;

const EVICTION_POLICIES = ['AlwaysAllow', 'IfHealthyBudget'];
const PERCENT = /^[0-9]+%$/;
const PERCENT_MESSAGE =
  "a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')";

const spec = (pdb: KubeObject): Obj => (isPlainObject(pdb.spec) ? pdb.spec : ((pdb.spec = {}) as Obj));

/** ValidatePositiveIntOrPercent and IsNotMoreThan100Percent. */
export function validateIntOrPercent(value: unknown, path: string): FieldErrorList {
  if (typeof value === 'number') return value < 0 ? [field.invalid(path, value, 'must be greater than or equal to 0')] : [];
  if (typeof value !== 'string') return [field.invalid(path, value, "must be an integer or percentage (e.g '5%')")];
  if (!PERCENT.test(value)) return [field.invalid(path, value, PERCENT_MESSAGE)];
  return Number(value.slice(0, -1)) > 100 ? [field.invalid(path, value, 'must not be greater than 100%')] : [];
}

/** ValidatePodDisruptionBudgetSpec. */
function validatePdb(pdb: PodDisruptionBudget): FieldErrorList {
  const s = spec(pdb);
  const errs: FieldErrorList = [];
  if (s.minAvailable !== undefined && s.maxUnavailable !== undefined) errs.push(field.invalid('spec', s, 'minAvailable and maxUnavailable cannot be both set'));
  if (s.minAvailable !== undefined) errs.push(...validateIntOrPercent(s.minAvailable, 'spec.minAvailable'));
  if (s.maxUnavailable !== undefined) errs.push(...validateIntOrPercent(s.maxUnavailable, 'spec.maxUnavailable'));
  if (isPlainObject(s.selector)) errs.push(...validateLabelSelector(s.selector, 'spec.selector'));
  if (s.unhealthyPodEvictionPolicy !== undefined && !EVICTION_POLICIES.includes(s.unhealthyPodEvictionPolicy as string)) {
    errs.push(field.notSupported('spec.unhealthyPodEvictionPolicy', s.unhealthyPodEvictionPolicy, EVICTION_POLICIES));
  }
  return errs;
}

/** IntOrString.String(): the number or the percent, "N/A" when unset. */
const intOrStringCell = (value: unknown): string => (value === undefined ? 'N/A' : String(value));

export const poddisruptionbudgets = defineResource<PodDisruptionBudget>({
  group: 'policy',
  version: 'v1',
  resource: 'poddisruptionbudgets',
  kind: 'PodDisruptionBudget',
  namespaced: true,
  shortNames: ['pdb'],
  subresources: ['status'],
  strategy: strategy<PodDisruptionBudget>({
    validateStatusUpdate: validatePodDisruptionBudgetStatusUpdate,
    tracksGeneration: true,
    prepareForCreate: (pdb) => {
      pdb.status = { disruptionsAllowed: 0, currentHealthy: 0, desiredHealthy: 0, expectedPods: 0 };
    },
    validate: validatePdb,
  }),
  printerColumns: [
    NAME_COLUMN,
    {
      name: 'Min Available',
      type: 'string',
      description: 'The minimum number of pods that must be available.',
      cell: (pdb) => intOrStringCell(spec(pdb).minAvailable),
    },
    {
      name: 'Max Unavailable',
      type: 'string',
      description: 'The maximum number of pods that may be unavailable.',
      cell: (pdb) => intOrStringCell(spec(pdb).maxUnavailable),
    },
    {
      name: 'Allowed Disruptions',
      type: 'integer',
      description: 'Calculated number of pods that may be disrupted at this time.',
      cell: (pdb) => (isPlainObject(pdb.status) && typeof pdb.status.disruptionsAllowed === 'number' ? pdb.status.disruptionsAllowed : 0),
    },
    AGE_COLUMN,
  ],
});
