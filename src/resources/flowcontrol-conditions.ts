import { field, type FieldErrorList } from '../api/field-errors';
import { objectOf, objectsIn, stringOf } from '../api/json-read';
import type { KubeObject } from '../api/types';

/** ValidateFlowSchemaStatus / ValidatePriorityLevelConfigurationStatus: condition types present and unique. */
export function validateConditionTypes(obj: KubeObject): FieldErrorList {
  const errs: FieldErrorList = [];
  const seen = new Set<string>();
  objectsIn(objectOf(obj.status).conditions).forEach((c, i) => {
    const type = stringOf(c.type);
    if (seen.has(type)) errs.push(field.duplicate(`status.conditions[${i}].type`, type));
    seen.add(type);
    if (!type) errs.push(field.required(`status.conditions[${i}].type`, 'must not be empty'));
  });
  return errs;
}
