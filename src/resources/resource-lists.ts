import { field, type FieldErrorList } from '../api/field-errors';
import { objectOf } from '../api/json-read';
import { compareQuantities, parseQuantity, ZERO_QUANTITY } from '../api/quantity';

/** ResourceLists (resource name → quantity) as LimitRanges and ResourceQuotas hold them. */

/** ValidateResourceQuantityValue for each entry: quantities are not negative. */
export function validateNonNegativeQuantities(list: unknown, path: string): FieldErrorList {
  const errs: FieldErrorList = [];
  for (const [name, value] of Object.entries(objectOf(list))) {
    const q = parseQuantity(value);
    if (q && compareQuantities(q, ZERO_QUANTITY) < 0) errs.push(field.invalid(`${path}[${name}]`, value, 'must be greater than or equal to 0'));
  }
  return errs;
}

/** A quantity as Quantity.String() prints it; stored quantities are already canonical. */
export const quantityText = (value: unknown): string => (value === undefined || value === null ? '0' : String(value));
