import { field, type FieldErrorList } from '../api/field-errors';
import { isQualifiedName, isValidLabelValue } from '../api/name-validation';
import { isPlainObject } from '../api/types';

const EFFECTS = ['NoSchedule', 'PreferNoSchedule', 'NoExecute'];

/**
 * ValidateTolerations. Lt and Gt belong to TaintTolerationComparisonOperators, which
 * registry/gated-fields.ts refuses while the gate is off; with it on their values go unchecked.
 */
export function tolerationErrors(tolerations: unknown, path: string): FieldErrorList {
  const errs: FieldErrorList = [];
  (Array.isArray(tolerations) ? tolerations : []).forEach((t: unknown, i) => {
    if (!isPlainObject(t)) return;
    const p = `${path}[${i}]`;
    const key = typeof t.key === 'string' ? t.key : '';
    const operator = typeof t.operator === 'string' ? t.operator : '';
    const value = typeof t.value === 'string' ? t.value : '';
    const effect = typeof t.effect === 'string' ? t.effect : '';
    if (key !== '') for (const msg of isQualifiedName(key)) errs.push(field.invalid(`${p}.key`, key, msg));
    if (key === '' && operator !== 'Exists') {
      errs.push(field.invalid(`${p}.operator`, operator, 'operator must be Exists when `key` is empty, which means "match all values and all keys"'));
    }
    if (t.tolerationSeconds !== undefined && t.tolerationSeconds !== null && effect !== 'NoExecute') {
      errs.push(field.invalid(`${p}.effect`, effect, "effect must be 'NoExecute' when `tolerationSeconds` is set"));
    }
    if (operator === 'Equal' || operator === '') {
      const msgs = isValidLabelValue(value);
      if (msgs.length > 0) errs.push(field.invalid(`${p}.operator`, value, msgs.join(';')));
    } else if (operator === 'Exists') {
      if (value !== '') errs.push(field.invalid(`${p}.operator`, value, "value must be empty when `operator` is 'Exists'"));
    } else if (operator !== 'Lt' && operator !== 'Gt') {
      errs.push(field.notSupported(`${p}.operator`, operator, ['Equal', 'Exists']));
    }
    if (effect !== '' && !EFFECTS.includes(effect)) errs.push(field.notSupported(`${p}.effect`, effect, EFFECTS));
  });
  return errs;
}
