import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import { field, type FieldErrorList } from '../api/field-errors';
import type { KubeObject } from '../api/types';
import { ajvRegExp } from '../cel/go-regexp';
import type { ResourceDefinition } from '../registry/resource-definition';
import { openApiDefinitions, protoDefinitionName } from './proto-schema';

/**
 * Schema validation of whole objects (required fields, enums) with ajv over the same OpenAPI
 * definitions /openapi serves, reported as Kubernetes field errors.
 */

// `pattern` with Go's regexp (RE2), as kube-openapi's validator has it
const ajv = new Ajv({ allErrors: true, strict: false, validateFormats: false, verbose: true, code: { regExp: ajvRegExp } });
const validators = new Map<string, ValidateFunction | null>();

function validatorFor(def: ResourceDefinition): ValidateFunction | null {
  const key = `${def.group}/${def.version}/${def.kind}`;
  if (!validators.has(key)) {
    const schemas = openApiDefinitions([def]);
    const name = protoDefinitionName(def);
    validators.set(key, name in schemas ? ajv.compile({ $ref: `#/components/schemas/${name}`, components: { schemas } }) : null);
  }
  return validators.get(key)!;
}

/** "/spec/containers/0" -> "spec.containers[0]". */
function fieldPath(pointer: string): string {
  let out = '';
  for (const raw of pointer.split('/').slice(1)) {
    const segment = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    out += /^\d+$/.test(segment) ? `[${segment}]` : out ? `.${segment}` : segment;
  }
  return out;
}

function toFieldError(e: ErrorObject): FieldErrorList {
  const path = fieldPath(e.instancePath);
  switch (e.keyword) {
    case 'required': {
      const missing = (e.params as { missingProperty: string }).missingProperty;
      // A Go int or bool without omitempty decodes to its zero value, which the schema alone cannot reject.
      const type = (e.parentSchema as { properties?: Record<string, { type?: string }> } | undefined)?.properties?.[missing]?.type;
      if (type === 'integer' || type === 'number' || type === 'boolean') return [];
      return [field.required(path ? `${path}.${missing}` : missing)];
    }
    case 'enum':
      return [field.notSupported(path, e.data, (e.params as { allowedValues: string[] }).allowedValues)];
    default:
      return [];
  }
}

export function validateAgainstSchema(def: ResourceDefinition, obj: KubeObject): FieldErrorList {
  const validate = validatorFor(def);
  if (!validate || validate(obj)) return [];
  return (validate.errors ?? []).flatMap(toFieldError);
}
