import type { Type } from 'protobufjs';
import { field, type FieldErrorList } from '../api/field-errors';
import type { KubeObject } from '../api/types';
import { isInlineField, lookupMessage } from './proto-loader';
import type { ResourceDefinition } from '../registry/resource-definition';
import { factsOf, isSpecial } from './proto-schema';
import { compareGoStrings } from '../api/go-string-order';

/**
 * Schema validation of whole objects: the required fields and enum values the field facts give,
 * reported as Kubernetes field errors in the order an OpenAPI validator over /openapi's
 * definitions reports them (an object's missing fields, then its fields by name, depth first).
 * A plan per message is derived once from the facts; validating walks the object, so no schema is
 * compiled and the first object of a kind costs no more than the next.
 */

interface FieldPlan {
  name: string;
  /** The message a value is, unless its JSON is not an object of fields (Time, Quantity, ...). */
  message: Type | null;
  shape: 'single' | 'list' | 'map';
  allowed: readonly string[] | null;
}

interface MessagePlan {
  /** Required fields whose absence is an error: a Go int or bool without omitempty decodes to its zero value. */
  required: string[];
  fields: FieldPlan[];
}

const plans = new Map<Type, MessagePlan>();

const NUMERIC_OR_BOOL = new Set(['int32', 'uint32', 'sint32', 'int64', 'uint64', 'sint64', 'double', 'float', 'bool']);

function planOf(type: Type): MessagePlan {
  let plan = plans.get(type);
  if (plan) return plan;
  const flat = (t: Type): { owner: Type; name: string }[] =>
    t.fieldsArray.flatMap((f) => (isInlineField(t, f) ? flat(f.resolvedType as Type) : [{ owner: t, name: f.name }]));
  plan = { required: [], fields: [] };
  plans.set(type, plan);
  for (const { owner, name } of flat(type).sort((a, b) => compareGoStrings(a.name, b.name))) {
    const f = owner.fields[name];
    const facts = factsOf(owner, name);
    const resolved = (f.resolvedType as Type | null) ?? null;
    const message = resolved && !isSpecial(resolved) ? resolved : null;
    const shape = f.map ? 'map' : f.repeated ? 'list' : 'single';
    if (facts.required && !(shape === 'single' && !resolved && NUMERIC_OR_BOOL.has(f.type))) plan.required.push(name);
    const allowed = !resolved && facts.enum ? facts.enum : null;
    if (message || allowed) plan.fields.push({ name, message, shape, allowed });
  }
  return plan;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** JSON-pointer segments as a field path: spec.containers[0].name (a segment of digits is an index). */
function fieldPath(segments: readonly string[]): string {
  let out = '';
  for (const segment of segments) out += /^\d+$/.test(segment) ? `[${segment}]` : out ? `.${segment}` : segment;
  return out;
}

function validateValue(value: unknown, f: FieldPlan, at: string[], errs: FieldErrorList): void {
  if (f.allowed) {
    if (!f.allowed.includes(value as string)) errs.push(field.notSupported(fieldPath(at), value, [...f.allowed]));
    return;
  }
  if (f.message && isObject(value)) validateMessage(value, f.message, at, errs);
}

function validateMessage(obj: Record<string, unknown>, type: Type, at: string[], errs: FieldErrorList): void {
  const plan = planOf(type);
  for (const name of plan.required) if (obj[name] === undefined) errs.push(field.required(fieldPath([...at, name])));
  for (const f of plan.fields) {
    const value = obj[f.name];
    if (value === undefined) continue;
    if (f.shape === 'single') validateValue(value, f, [...at, f.name], errs);
    else if (f.shape === 'list') {
      if (Array.isArray(value)) value.forEach((item, i) => validateValue(item, f, [...at, f.name, String(i)], errs));
    } else if (isObject(value)) {
      for (const [key, item] of Object.entries(value)) validateValue(item, f, [...at, f.name, key], errs);
    }
  }
}

export function validateAgainstSchema(def: ResourceDefinition, obj: KubeObject): FieldErrorList {
  const type = lookupMessage({ group: def.group, version: def.version, kind: def.kind });
  if (!type) return [];
  const errs: FieldErrorList = [];
  validateMessage(obj, type, [], errs);
  return errs;
}
