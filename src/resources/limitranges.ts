import { field, type FieldErrorList } from '../api/field-errors';
import type { LimitRange } from '../generated/types/core/v1';
import { objectOf, objectsIn, stringOf } from '../api/json-read';
import { isQualifiedName } from '../api/name-validation';
import { compareQuantities, parseQuantity } from '../api/quantity';
import type { KubeObject } from '../api/types';
import { defineResource } from '../registry/resource-definition';
import { strategy } from '../registry/strategy';
import { quantityText, validateNonNegativeQuantities } from './resource-lists';

/** core/v1 LimitRange: stored, defaulted and validated as kube-apiserver does; no admission applies it to pods. */

const STANDARD_TYPES = ['Pod', 'Container', 'PersistentVolumeClaim'];

const limitsOf = (obj: KubeObject): Record<string, unknown>[] => objectsIn(objectOf(obj.spec).limits);

/** Missing entries of `into` taken from `from`; an empty result stays unset (omitempty). */
function fillFrom(item: Record<string, unknown>, into: string, from: string): void {
  const target = { ...objectOf(item[from]), ...objectOf(item[into]) };
  if (Object.keys(target).length > 0) item[into] = target;
}

/** SetDefaults_LimitRangeItem: a container's default limit from max, its default request from the default limit, then from min. */
function defaultLimitRange(obj: LimitRange): void {
  for (const item of limitsOf(obj)) {
    if (item.type !== 'Container') continue;
    fillFrom(item, 'default', 'max');
    fillFrom(item, 'defaultRequest', 'default');
    fillFrom(item, 'defaultRequest', 'min');
  }
}

/** validateLimitRangeTypeName. */
function validateTypeName(value: string, path: string): FieldErrorList {
  const errs = isQualifiedName(value).map((msg) => field.invalid(path, value, msg));
  if (errs.length === 0 && !value.includes('/') && !STANDARD_TYPES.includes(value))
    errs.push(field.invalid(path, value, 'must be a standard limit type or fully qualified'));
  return errs;
}

/** ValidateLimitRange: known types once each, no defaults for pods, quantities not negative, min ≤ default ≤ max. */
function validateLimitRange(obj: LimitRange): FieldErrorList {
  const errs: FieldErrorList = [];
  const seen = new Set<string>();
  limitsOf(obj).forEach((item, i) => {
    const path = `spec.limits[${i}]`;
    const type = stringOf(item.type);
    errs.push(...validateTypeName(type, `${path}.type`));
    if (seen.has(type)) errs.push(field.duplicate(`${path}.type`, type));
    seen.add(type);
    if (type === 'Pod') {
      if (Object.keys(objectOf(item.default)).length > 0) errs.push(field.forbidden(`${path}.default`, "may not be specified when `type` is 'Pod'"));
      if (Object.keys(objectOf(item.defaultRequest)).length > 0)
        errs.push(field.forbidden(`${path}.defaultRequest`, "may not be specified when `type` is 'Pod'"));
    }
    for (const part of ['max', 'min', 'default', 'defaultRequest', 'maxLimitRequestRatio'])
      errs.push(...validateNonNegativeQuantities(item[part], `${path}.${part}`));
    const max = objectOf(item.max);
    for (const [name, value] of Object.entries(objectOf(item.min))) {
      const low = parseQuantity(value);
      const high = parseQuantity(max[name]);
      if (low && high && compareQuantities(low, high) > 0) {
        errs.push(field.invalid(`${path}.min[${name}]`, value, `min value ${quantityText(value)} is greater than max value ${quantityText(max[name])}`));
      }
    }
  });
  return errs;
}

export const limitranges = defineResource<LimitRange>({
  group: '',
  version: 'v1',
  resource: 'limitranges',
  kind: 'LimitRange',
  namespaced: true,
  shortNames: ['limits'],
  strategy: strategy<LimitRange>({ applyDefaults: defaultLimitRange, validate: validateLimitRange }),
  // kube-apiserver has no printer for LimitRanges: the default Name / Created At table.
  printerColumns: [],
});
