import type { FieldErrorList } from '../api/field-errors';
import type * as CustomCelRules from './custom-cel-rules';
import type * as CelCostLimits from './cel-cost-limits';
import type { CelRules } from './custom-cel-rules';
import type { JSONSchemaProps } from './json-schema-props';

/**
 * CRD schemas' x-kubernetes-validations (custom-cel-rules.ts), with the CEL engine behind them
 * loaded by the first schema that has rules: a start, and CRDs without rules, never load it.
 */

let loaded: typeof CustomCelRules | undefined;
let costLimits: typeof CelCostLimits | undefined;

function customCelRules(): typeof CustomCelRules {
  return (loaded ??= require('./custom-cel-rules') as typeof CustomCelRules);
}

/** Whether any node holds rules, walked as custom-cel-rules walks them (properties, items, additionalProperties). */
function hasRules(s: JSONSchemaProps): boolean {
  if ((s['x-kubernetes-validations'] ?? []).length > 0) return true;
  if (Object.values(s.properties ?? {}).some(hasRules)) return true;
  if (s.items && hasRules(s.items)) return true;
  return typeof s.additionalProperties === 'object' && hasRules(s.additionalProperties);
}

export function celRuleErrors(schema: JSONSchemaProps, path: string): FieldErrorList {
  return hasRules(schema) ? customCelRules().celRuleErrors(schema, path) : [];
}

/** The rules' estimated cost against kube's limits (cel-cost-limits.ts, which parses them with the CEL engine). */
export function celCostErrors(schema: JSONSchemaProps, path: string, perExpression = true): FieldErrorList {
  return hasRules(schema) ? (costLimits ??= require('./cel-cost-limits') as typeof CelCostLimits).celCostErrors(schema, path, perExpression) : [];
}

export type ObjectRules = Pick<CelRules, 'validate' | 'validateUpdate'>;

const NO_RULES: ObjectRules = { validate: () => [], validateUpdate: () => [] };

export function compileCelRules(schema: JSONSchemaProps): ObjectRules {
  return hasRules(schema) ? new (customCelRules().CelRules)(schema) : NO_RULES;
}
