import type { FieldErrorList } from '../api/field-errors';
import type * as CustomCelRules from './custom-cel-rules';
import type { CelRules } from './custom-cel-rules';
import type { JSONSchemaProps } from './json-schema-props';

/**
 * CRD schemas' x-kubernetes-validations (custom-cel-rules.ts), with the CEL engine behind them
 * loaded when the first CRD is validated or served: a start without CRDs never loads it.
 */

let loaded: typeof CustomCelRules | undefined;

function customCelRules(): typeof CustomCelRules {
  return (loaded ??= require('./custom-cel-rules') as typeof CustomCelRules);
}

export function celRuleErrors(schema: JSONSchemaProps, path: string): FieldErrorList {
  return customCelRules().celRuleErrors(schema, path);
}

export function compileCelRules(schema: JSONSchemaProps): CelRules {
  return new (customCelRules().CelRules)(schema);
}
