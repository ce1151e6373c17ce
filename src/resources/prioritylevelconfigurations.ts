import { field, type FieldErrorList } from '../api/field-errors';
import type { PriorityLevelConfiguration } from '../generated/types/flowcontrol/v1';
import { objectOf, stringOf } from '../api/json-read';
import { isPlainObject, type KubeObject } from '../api/types';
import { defineResource } from '../registry/resource-definition';
import { strategy } from '../registry/strategy';
import { AGE_COLUMN, NAME_COLUMN } from '../registry/table';
import { validateConditionTypes } from './flowcontrol-conditions';

/**
 * flowcontrol.apiserver.k8s.io/v1 PriorityLevelConfiguration: stored, defaulted and validated as
 * kube-apiserver does, with its status. kapi does not dispatch by them (see docs/divergences.md).
 */

type Obj = Record<string, unknown>;

const TYPES = ['Exempt', 'Limited'];
const LIMIT_RESPONSE_TYPES = ['Queue', 'Reject'];
const MAX_QUEUES = 10 * 1000 * 1000;
/** shufflesharding.MaxHashBits. */
const MAX_HASH_BITS = 60;

const specOf = (obj: KubeObject): Obj => (isPlainObject(obj.spec) ? obj.spec : ((obj.spec = {}) as Obj));
const num = (value: unknown): number => (typeof value === 'number' ? value : 0);

/** SetDefaults_ExemptPriorityLevelConfiguration, _LimitedPriorityLevelConfiguration and _QueuingConfiguration (v1). */
function defaultPriorityLevel(obj: PriorityLevelConfiguration): void {
  const spec = specOf(obj);
  if (isPlainObject(spec.exempt)) {
    spec.exempt.nominalConcurrencyShares ??= 0;
    spec.exempt.lendablePercent ??= 0;
  }
  if (isPlainObject(spec.limited)) {
    spec.limited.nominalConcurrencyShares ??= 30;
    spec.limited.lendablePercent ??= 0;
    const queuing = objectOf(spec.limited.limitResponse).queuing;
    if (isPlainObject(queuing)) {
      if (!queuing.handSize) queuing.handSize = 8;
      if (!queuing.queues) queuing.queues = 64;
      if (!queuing.queueLengthLimit) queuing.queueLengthLimit = 50;
    }
  }
}

const percent = (value: unknown, path: string): FieldErrorList =>
  typeof value === 'number' && (value < 0 || value > 100) ? [field.invalid(path, value, 'must be between 0 and 100, inclusive')] : [];

/** ValidatePriorityLevelQueuingConfiguration. */
function validateQueuing(q: Obj, path: string): FieldErrorList {
  const errs: FieldErrorList = [];
  const [limit, queues, hand] = [num(q.queueLengthLimit), num(q.queues), num(q.handSize)];
  if (limit <= 0) errs.push(field.invalid(`${path}.queueLengthLimit`, limit, 'must be positive'));
  if (queues <= 0) errs.push(field.invalid(`${path}.queues`, queues, 'must be positive'));
  else if (queues > MAX_QUEUES) errs.push(field.invalid(`${path}.queues`, queues, `must not be greater than ${MAX_QUEUES}`));
  if (hand <= 0) errs.push(field.invalid(`${path}.handSize`, hand, 'must be positive'));
  else if (hand > queues) errs.push(field.invalid(`${path}.handSize`, hand, `should not be greater than queues (${queues})`));
  else if (Math.ceil(Math.log2(queues) * hand) > MAX_HASH_BITS) {
    errs.push(
      field.invalid(`${path}.handSize`, hand, `required entropy bits of deckSize ${queues} and handSize ${hand} should not be greater than ${MAX_HASH_BITS}`),
    );
  }
  return errs;
}

/** ValidateLimitedPriorityLevelConfiguration (v1: nominalConcurrencyShares may be 0) and ValidateLimitResponse. */
function validateLimited(limited: Obj, path: string): FieldErrorList {
  const errs: FieldErrorList = [];
  const ncs = limited.nominalConcurrencyShares;
  if (typeof ncs === 'number' && ncs < 0) errs.push(field.invalid(`${path}.nominalConcurrencyShares`, ncs, 'must be a non-negative integer'));
  errs.push(...percent(limited.lendablePercent, `${path}.lendablePercent`));
  const blp = limited.borrowingLimitPercent;
  if (typeof blp === 'number' && blp < 0) errs.push(field.invalid(`${path}.borrowingLimitPercent`, blp, 'if specified, must be a non-negative integer'));
  const response = objectOf(limited.limitResponse);
  const rpath = `${path}.limitResponse`;
  const queuing = response.queuing;
  switch (response.type) {
    case 'Reject':
      if (queuing !== undefined && queuing !== null) errs.push(field.forbidden(`${rpath}.queuing`, 'must be nil if limited.limitResponse.type is not Limited'));
      break;
    case 'Queue':
      if (!isPlainObject(queuing)) errs.push(field.required(`${rpath}.queuing`, 'must not be empty if limited.limitResponse.type is Limited'));
      else errs.push(...validateQueuing(queuing, `${rpath}.queuing`));
      break;
    default:
      errs.push(field.notSupported(`${rpath}.type`, stringOf(response.type), LIMIT_RESPONSE_TYPES));
  }
  return errs;
}

/** ValidatePriorityLevelConfigurationSpec (and status). */
function validatePriorityLevel(obj: PriorityLevelConfiguration): FieldErrorList {
  const spec = specOf(obj);
  const errs: FieldErrorList = [];
  const type = stringOf(spec.type);
  if ((obj.metadata.name === 'exempt') !== (type === 'Exempt')) {
    errs.push(field.invalid('spec.type', type, "type must be 'Exempt' if and only if name is 'exempt'"));
  }
  const present = (v: unknown) => v !== undefined && v !== null;
  switch (type) {
    case 'Exempt':
      if (present(spec.limited)) errs.push(field.forbidden('spec.limited', 'must be nil if the type is not Limited'));
      if (isPlainObject(spec.exempt)) {
        const ncs = spec.exempt.nominalConcurrencyShares;
        if (typeof ncs === 'number' && ncs < 0) errs.push(field.invalid('spec.exempt.nominalConcurrencyShares', ncs, 'must be a non-negative number'));
        errs.push(...percent(spec.exempt.lendablePercent, 'spec.exempt.lendablePercent'));
      }
      break;
    case 'Limited':
      if (present(spec.exempt)) errs.push(field.forbidden('spec.exempt', 'must be nil if the type is Limited'));
      if (!isPlainObject(spec.limited)) errs.push(field.required('spec.limited', 'must not be empty when type is Limited'));
      else errs.push(...validateLimited(spec.limited, 'spec.limited'));
      break;
    default:
      errs.push(field.notSupported('spec.type', type, TYPES));
  }
  errs.push(...validateConditionTypes(obj));
  return errs;
}

const limitedOf = (o: KubeObject): Obj | null => (isPlainObject(specOf(o).limited) ? (specOf(o).limited as Obj) : null);
const queuingOf = (o: KubeObject): Obj | null => {
  const queuing = objectOf(limitedOf(o)?.limitResponse).queuing;
  return isPlainObject(queuing) ? queuing : null;
};

export const prioritylevelconfigurations = defineResource<PriorityLevelConfiguration>({
  group: 'flowcontrol.apiserver.k8s.io',
  version: 'v1',
  resource: 'prioritylevelconfigurations',
  kind: 'PriorityLevelConfiguration',
  namespaced: false,
  subresources: ['status'],
  strategy: strategy<PriorityLevelConfiguration>({
    tracksGeneration: true,
    prepareForCreate: (obj) => {
      obj.status = {};
    },
    applyDefaults: defaultPriorityLevel,
    validate: validatePriorityLevel,
    validateStatusUpdate: validateConditionTypes,
  }),
  // printPriorityLevelConfiguration: "<none>" where the level is not Limited or does not queue.
  printerColumns: [
    NAME_COLUMN,
    {
      name: 'Type',
      type: 'string',
      description:
        '`type` indicates whether this priority level is subject to limitation on request execution.  A value of `"Exempt"` means that requests of this priority level are not subject to a limit (and thus are never queued) and do not detract from the capacity made available to other priority levels.  A value of `"Limited"` means that (a) requests of this priority level _are_ subject to limits and (b) some of the server\'s limited capacity is made available exclusively to this priority level. Required.',
      cell: (o) => stringOf(specOf(o).type),
    },
    {
      name: 'NominalConcurrencyShares',
      type: 'string',
      description:
        '`nominalConcurrencyShares` (NCS) contributes to the computation of the NominalConcurrencyLimit (NominalCL) of this level. This is the number of execution seats available at this priority level. This is used both for requests dispatched from this priority level as well as requests dispatched from other priority levels borrowing seats from this level. The server\'s concurrency limit (ServerCL) is divided among the Limited priority levels in proportion to their NCS values:\n\nNominalCL(i)  = ceil( ServerCL * NCS(i) / sum_ncs ) sum_ncs = sum[priority level k] NCS(k)\n\nBigger numbers mean a larger nominal concurrency limit, at the expense of every other priority level.\n\nIf not specified, this field defaults to a value of 30.\n\nSetting this field to zero supports the construction of a "jail" for this priority level that is used to hold some request(s)',
      cell: (o) => limitedOf(o)?.nominalConcurrencyShares ?? '<none>',
    },
    {
      name: 'Queues',
      type: 'string',
      description:
        '`queues` is the number of queues for this priority level. The queues exist independently at each apiserver. The value must be positive.  Setting it to 1 effectively precludes shufflesharding and thus makes the distinguisher method of associated flow schemas irrelevant.  This field has a default value of 64.',
      cell: (o) => queuingOf(o)?.queues ?? '<none>',
    },
    {
      name: 'HandSize',
      type: 'string',
      description:
        "`handSize` is a small positive number that configures the shuffle sharding of requests into queues.  When enqueuing a request at this priority level the request's flow identifier (a string pair) is hashed and the hash value is used to shuffle the list of queues and deal a hand of the size specified here.  The request is put into one of the shortest queues in that hand. `handSize` must be no larger than `queues`, and should be significantly smaller (so that a few heavy flows do not saturate most of the queues).  See the user-facing documentation for more extensive guidance on setting this field.  This field has a default value of 8.",
      cell: (o) => queuingOf(o)?.handSize ?? '<none>',
    },
    {
      name: 'QueueLengthLimit',
      type: 'string',
      description:
        '`queueLengthLimit` is the maximum number of requests allowed to be waiting in a given queue of this priority level at a time; excess requests are rejected.  This value must be positive.  If not specified, it will be defaulted to 50.',
      cell: (o) => queuingOf(o)?.queueLengthLimit ?? '<none>',
    },
    AGE_COLUMN,
  ],
});
