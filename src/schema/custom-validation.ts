import { ratchetedAt, ratchetingRoot } from './correlation';
import { field, goQuote, type FieldError, type FieldErrorList } from '../api/field-errors';
import { compileGoRegexp, matchString, type GoRegexp } from '../cel/go-regexp';
import type { JSONSchemaProps } from './json-schema-props';
import { matchesFormat, supportedFormat } from './string-formats';

/**
 * Validation of a custom resource against its CRD version's openAPIV3Schema (`pattern` with Go's
 * regexp, RE2: go-regexp.ts), with the errors
 * kube-apiserver returns: apiextensions-apiserver runs kube-openapi's (go-openapi's) schema
 * validator over the whole object (apiVersion, kind and metadata included: a CRD may only
 * constrain metadata.name and metadata.generateName) and converts its errors to field errors
 * (`kubeOpenAPIResultToFieldErrors`); then it checks x-kubernetes-list-type set/map uniqueness
 * (`ValidateListSetsAndMaps`).
 *
 * The walk mirrors go-openapi's so its quirks come out the same: paths are dotted with `[i]` for
 * items and `.key` for map values; anyOf/oneOf report the alternative that matched most checks;
 * allOf/anyOf/oneOf/not summaries have no field (`<nil>`); a failed minProperties/maxProperties
 * stops the object's other checks. Go's map order is random, so kube's error order is too; here
 * it follows the schema.
 *
 * Out of scope: x-kubernetes-validations (CEL rules) are not evaluated, and the metadata checks
 * (names, labels...) and embedded-resource checks live elsewhere.
 */

type Code =
  | 'invalidType'
  | 'required'
  | 'tooLong'
  | 'tooShort'
  | 'pattern'
  | 'enum'
  | 'multipleOf'
  | 'multipleOfPositive'
  | 'max'
  | 'min'
  | 'unique'
  | 'maxItems'
  | 'minItems'
  | 'tooFewProperties'
  | 'tooManyProperties'
  | 'unallowedProperty';

/** An errors.Validation (with a field path in `name`) or a composite message (no field). */
type OpenAPIError = { code: Code; name: string; message: string; value?: unknown; values?: unknown[]; limit?: number } | { code: 'composite'; message: string };

interface Result {
  errors: OpenAPIError[];
  /** go-openapi's MatchCount: how many checks passed, to pick the closest anyOf/oneOf alternative. */
  matches: number;
}

const ok = (matches = 0): Result => ({ errors: [], matches });
const failed = (e: OpenAPIError): Result => ({ errors: [e], matches: 0 });

/** Result.Merge: errors are kept once per message. */
function merge(into: Result, ...others: (Result | null)[]): Result {
  for (const other of others) {
    if (!other) continue;
    for (const e of other.errors) if (!into.errors.some((x) => x.message === e.message)) into.errors.push(e);
    into.matches += other.matches;
  }
  return into;
}

type Kind = 'null' | 'boolean' | 'string' | 'integer' | 'number' | 'array' | 'object';

/** The JSON kind as Go decodes it: whole numbers are int64, the rest float64. */
function kindOf(v: unknown): Kind {
  if (v === null || v === undefined) return 'null';
  if (Array.isArray(v)) return 'array';
  switch (typeof v) {
    case 'boolean':
      return 'boolean';
    case 'string':
      return 'string';
    case 'number':
      return Number.isInteger(v) ? 'integer' : 'number';
    default:
      return 'object';
  }
}

/** The strfmt format go-openapi infers from a Go value. */
const goFormatOf: Record<Kind, string> = { null: '', boolean: '', string: '', integer: 'int64', number: 'float64', array: '', object: '' };

/** Go's %v of a float64: shortest digits, exponent form below 1e-4 and from 1e6. */
function goFloat(f: number): string {
  if (!Number.isFinite(f)) return f > 0 ? '+Inf' : f < 0 ? '-Inf' : 'NaN';
  const [mantissa, exp] = f.toExponential().split('e');
  const e = Number(exp);
  if (e < -4 || e >= 6) return `${mantissa}e${e < 0 ? '-' : '+'}${String(Math.abs(e)).padStart(2, '0')}`;
  return String(f);
}

/** Go's %v of a JSON value, only used to keep messages (and so de-duplication) like Go's. */
function goValue(v: unknown): string {
  if (v === null || v === undefined) return '<nil>';
  if (Array.isArray(v)) return `[${v.map(goValue).join(' ')}]`;
  if (typeof v === 'number') return Number.isInteger(v) ? String(v) : goFloat(v);
  if (typeof v === 'object') {
    const entries = Object.keys(v as object)
      .sort()
      .map((k) => `${k}:${goValue((v as Record<string, unknown>)[k])}`);
    return `map[${entries.join(' ')}]`;
  }
  return String(v);
}

/** Limits print as Go ints when checked against an int64 value, else as floats. */
const goNumber = (n: number, asInt: boolean): string => (asInt ? String(Math.trunc(n)) : goFloat(n));

function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => deepEqual(x, b[i]));
  if (kindOf(a) !== 'object' || kindOf(b) !== 'object') return false;
  const [ka, kb] = [Object.keys(a as object), Object.keys(b as object)];
  return (
    ka.length === kb.length && ka.every((k) => Object.hasOwn(b as object, k) && deepEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]))
  );
}

/** 1.5 * 2 may not be exactly 3: swag.IsFloat64AJSONInteger allows a relative error of 1e-9. */
function isJSONInteger(f: number): boolean {
  if (!Number.isFinite(f)) return false;
  if (Number.isInteger(f)) return true;
  const g = Math.trunc(f);
  const diff = Math.abs(f - g);
  if (g === 0) return diff < 1e-9 * Number.MIN_VALUE;
  return diff / (Math.abs(f) + Math.abs(g)) < 1e-9;
}

/** errors.InvalidType with a string value: `<path> in body must be of type <t>: "<v>"`. */
function invalidType(path: string, typeName: string, value: string): Result {
  return failed({ code: 'invalidType', name: path, value, message: `${path} in body must be of type ${typeName}: ${goQuote(value)}` });
}

function typesOf(s: JSONSchemaProps): string[] {
  if (s['x-kubernetes-int-or-string']) return ['integer', 'string'];
  return s.type ? [s.type] : [];
}

function checkType(s: JSONSchemaProps, v: unknown, path: string): Result {
  const types = typesOf(s);
  const format = supportedFormat(s.format);
  const kind = kindOf(v);
  if (kind === 'null') return types.length > 0 && !s.nullable ? invalidType(path, types.join(','), 'null') : ok(1);
  const isFloatInt = kind === 'number' && isJSONInteger(v as number) && types.includes('integer');
  const isIntFloat = kind === 'integer' && types.includes('number');
  const textual = kind === 'string' || kind === 'array';
  if (!textual && format && !(types.includes(kind) || goFormatOf[kind] === format || isFloatInt || isIntFloat)) {
    return invalidType(path, format, goFormatOf[kind]);
  }
  if (!types.includes('number') && !types.includes('integer') && format && textual) return ok(1);
  if (!(types.includes(kind) || isFloatInt || isIntFloat)) return invalidType(path, types.join(','), kind);
  return ok(1);
}

function checkEnum(s: JSONSchemaProps, v: unknown, path: string): Result | null {
  if (!s.enum?.length) return null;
  if (v !== null && v !== undefined && s.enum.some((e) => deepEqual(v, e))) return null;
  return failed({ code: 'enum', name: path, value: v ?? null, values: s.enum, message: `${path} in body should be one of ${goValue(s.enum)}` });
}

function checkString(s: JSONSchemaProps, v: string, path: string): Result | null {
  const length = [...v].length;
  if (s.maxLength !== undefined && length > s.maxLength) {
    return failed({ code: 'tooLong', name: path, value: v, limit: s.maxLength, message: `${path} in body should be at most ${s.maxLength} chars long` });
  }
  if (s.minLength !== undefined && length < s.minLength) {
    return failed({ code: 'tooShort', name: path, value: v, message: `${path} in body should be at least ${s.minLength} chars long` });
  }
  if (s.pattern) {
    let re: GoRegexp;
    try {
      re = compileGoRegexp(s.pattern);
    } catch (err) {
      const message = `${path} in body should match '${s.pattern}, but pattern is invalid: ${(err as Error).message}'`;
      return failed({ code: 'pattern', name: path, value: v, message });
    }
    if (!matchString(re, v)) return failed({ code: 'pattern', name: path, value: v, message: `${path} in body should match '${s.pattern}'` });
  }
  return null;
}

function checkFormat(format: string, v: string, path: string): Result | null {
  return matchesFormat(format, v) ? null : invalidType(path, format, v);
}

function checkNumber(s: JSONSchemaProps, v: number, path: string): Result {
  const res = ok(1);
  const isInt = Number.isInteger(v);
  if (s.multipleOf !== undefined) {
    const factor = isInt ? Math.trunc(s.multipleOf) : s.multipleOf;
    if (factor < 0) {
      merge(
        res,
        failed({
          code: 'multipleOfPositive',
          name: path,
          value: factor,
          message: `factor MultipleOf declared for ${path} must be positive: ${goNumber(factor, isInt)}`,
        }),
      );
    } else if (isInt ? v % factor !== 0 : !isJSONInteger(factor < 1 ? (1 / factor) * v : v / factor)) {
      merge(res, failed({ code: 'multipleOf', name: path, value: v, message: `${path} in body should be a multiple of ${goNumber(factor, isInt)}` }));
    }
  }
  if (s.minimum !== undefined) {
    const min = isInt ? Math.trunc(s.minimum) : s.minimum;
    const exclusive = !!s.exclusiveMinimum;
    if (exclusive ? v <= min : v < min) {
      const rel = exclusive ? 'greater than' : 'greater than or equal to';
      merge(res, failed({ code: 'min', name: path, value: v, message: `${path} in body should be ${rel} ${goNumber(min, isInt)}` }));
    }
  }
  if (s.maximum !== undefined) {
    const max = isInt ? Math.trunc(s.maximum) : s.maximum;
    const exclusive = !!s.exclusiveMaximum;
    if (exclusive ? v >= max : v > max) {
      const rel = exclusive ? 'less than' : 'less than or equal to';
      merge(res, failed({ code: 'max', name: path, value: v, message: `${path} in body should be ${rel} ${goNumber(max, isInt)}` }));
    }
  }
  return res;
}

function checkArray(s: JSONSchemaProps, v: unknown[], path: string): Result {
  const res = ok(1);
  if (s.items) v.forEach((item, i) => merge(res, validateValue(s.items!, item, `${path}[${i}]`)));
  if (s.minItems !== undefined && v.length < s.minItems) {
    merge(res, failed({ code: 'minItems', name: path, value: v.length, message: `${path} in body should have at least ${s.minItems} items` }));
  }
  if (s.maxItems !== undefined && v.length > s.maxItems) {
    merge(
      res,
      failed({ code: 'maxItems', name: path, value: v.length, limit: s.maxItems, message: `${path} in body should have at most ${s.maxItems} items` }),
    );
  }
  if (s.uniqueItems && v.some((x, i) => v.slice(0, i).some((y) => deepEqual(x, y)))) {
    merge(res, failed({ code: 'unique', name: path, message: `${path} in body shouldn't contain duplicates` }));
  }
  return res;
}

function checkObject(s: JSONSchemaProps, v: Record<string, unknown>, path: string): Result {
  const size = Object.keys(v).length;
  if (s.minProperties !== undefined && size < s.minProperties) {
    return failed({ code: 'tooFewProperties', name: path, value: size, message: `${path} in body should have at least ${s.minProperties} properties` });
  }
  if (s.maxProperties !== undefined && size > s.maxProperties) {
    return failed({
      code: 'tooManyProperties',
      name: path,
      value: size,
      limit: s.maxProperties,
      message: `${path} in body should have at most ${s.maxProperties} properties`,
    });
  }
  const res = ok();
  const properties = s.properties ?? {};
  const additional = s.additionalProperties;
  for (const [key, value] of Object.entries(v)) {
    if (Object.hasOwn(properties, key)) continue;
    if (additional === false) {
      merge(res, failed({ code: 'unallowedProperty', name: path, value: key, message: `${path}.${key} in body is a forbidden property` }));
    } else if (typeof additional === 'object') {
      merge(res, validateValue(additional, value, `${path}.${key}`));
    }
  }
  for (const [name, schema] of Object.entries(properties)) {
    if (Object.hasOwn(v, name)) merge(res, validateValue(schema, v[name], path ? `${path}.${name}` : name));
  }
  for (const name of s.required ?? []) {
    if (!Object.hasOwn(v, name)) merge(res, failed({ code: 'required', name: `${path}.${name}`, message: `${path}.${name} in body is required` }));
  }
  return res;
}

const composite = (message: string): OpenAPIError => ({ code: 'composite', message });

/** schemaPropsValidator: allOf, anyOf, oneOf and not, each alternative validated at the same path. */
function checkComposition(s: JSONSchemaProps, v: unknown, path: string): Result {
  const res = ok();
  if (s.anyOf?.length) {
    let best: Result | null = null;
    let success: Result | null = null;
    for (const alternative of s.anyOf) {
      const r = validateValue(alternative, v, path);
      if (r.errors.length === 0) {
        success = r;
        best = null;
        break;
      }
      if (!best || r.matches > best.matches) best = r;
    }
    if (!success) merge(res, { errors: [composite(`${goQuote(path)} must validate at least one schema (anyOf)`)], matches: 0 });
    merge(res, best ?? success);
  }
  if (s.oneOf?.length) {
    let best: Result | null = null;
    let success: Result | null = null;
    let valid = 0;
    for (const alternative of s.oneOf) {
      const r = validateValue(alternative, v, path);
      if (r.errors.length === 0) {
        valid++;
        best = null;
        success ??= r;
        continue;
      }
      if (valid === 0 && (!best || r.matches > best.matches)) best = r;
    }
    if (valid !== 1) {
      const why = valid === 0 ? 'Found none valid' : `Found ${valid} valid alternatives`;
      merge(res, { errors: [composite(`${goQuote(path)} must validate one and only one schema (oneOf). ${why}`)], matches: 0 }, best);
    } else {
      merge(res, success);
    }
  }
  if (s.allOf?.length) {
    let valid = 0;
    for (const part of s.allOf) {
      const r = validateValue(part, v, path);
      if (r.errors.length === 0) valid++;
      merge(res, r);
    }
    if (valid !== s.allOf.length) {
      merge(res, { errors: [composite(`${goQuote(path)} must validate all the schemas (allOf)${valid === 0 ? '. None validated' : ''}`)], matches: 0 });
    }
  }
  if (s.not && validateValue(s.not, v, path).errors.length === 0) {
    merge(res, { errors: [composite(`${goQuote(path)} must not validate the schema (not)`)], matches: 0 });
  }
  res.matches++;
  return res;
}

/** SchemaValidator.Validate: each validator that applies to the value's kind, in go-openapi's order. */
function validateValue(s: JSONSchemaProps, v: unknown, path: string): Result {
  const res = ok();
  const kind = kindOf(v);
  if (kind === 'null') return merge(res, checkType(s, v, path), checkEnum(s, v, path));
  const format = supportedFormat(s.format);
  const step = (r: Result | null) => {
    merge(res, r);
    res.matches++;
  };
  if (typesOf(s).length > 0 || format) step(checkType(s, v, path));
  step(checkComposition(s, v, path));
  if (kind === 'string') step(checkString(s, v as string, path));
  if (kind === 'string' && format) step(checkFormat(format, v as string, path));
  if (kind === 'integer' || kind === 'number') step(checkNumber(s, v as number, path));
  if (kind === 'array') step(checkArray(s, v as unknown[], path));
  step(checkEnum(s, v, path));
  if (kind === 'object') step(checkObject(s, v as Record<string, unknown>, path));
  res.matches++;
  return res;
}

/** kubeOpenAPIResultToFieldErrors, with a nil root path (printed `<nil>`). */
function toFieldError(e: OpenAPIError): FieldError {
  if (e.code === 'composite') return field.invalid('<nil>', '', e.message);
  const path = e.name.replace(/^\./, '') || '<nil>';
  const value = e.value ?? '';
  switch (e.code) {
    case 'required':
      return field.required(path);
    case 'enum':
      return field.notSupported(
        path,
        e.value,
        e.values!.map((x) => (typeof x === 'string' ? x : JSON.stringify(x))),
      );
    case 'tooLong':
      return field.tooLong(path, e.limit!);
    case 'maxItems':
    case 'tooManyProperties':
      return field.tooMany(path, e.value as number, e.limit!);
    case 'invalidType':
      return field.typeInvalid(path, value, e.message);
    default:
      return field.invalid(path, value, e.message);
  }
}

/** JSON with sorted keys, as Go marshals maps: two equal objects encode the same. */
function canonicalJSON(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonicalJSON).join(',')}]`;
  if (kindOf(v) === 'object') {
    const o = v as Record<string, unknown>;
    return `{${Object.keys(o)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJSON(o[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(v);
}

/** Indices of the second appearance of each repeated value (validateListSet). */
function repeatedIndices(values: unknown[]): number[] {
  const seen = new Map<string, number>();
  const repeated: number[] = [];
  values.forEach((x, i) => {
    const key = x === undefined ? 'undefined' : canonicalJSON(x);
    const times = seen.get(key) ?? 0;
    seen.set(key, times + 1);
    if (times === 1) repeated.push(i);
  });
  return repeated;
}

function listMapDuplicates(s: JSONSchemaProps, v: unknown[], path: string): FieldErrorList {
  const bad = v.findIndex((x) => x !== null && kindOf(x) !== 'object');
  if (bad >= 0) return [field.invalid(`${path}[${bad}]`, v[bad], 'must be an object for an array of list-type map')];
  const keyFields = s['x-kubernetes-list-map-keys'] ?? [];
  const keys = v.map((x) => {
    const item = (x ?? {}) as Record<string, unknown>;
    return Object.fromEntries(keyFields.filter((k) => Object.hasOwn(item, k)).map((k) => [k, item[k]]));
  });
  return repeatedIndices(keys).map((i) => field.duplicate(`${path}[${i}]`, keys[i]));
}

/** ValidateListSetsAndMaps: field.Path syntax, so map keys print as `[key]`. */
function listTypeErrors(s: JSONSchemaProps, v: unknown, path: string): FieldErrorList {
  const errs: FieldErrorList = [];
  if (Array.isArray(v)) {
    if (s['x-kubernetes-list-type'] === 'set') {
      errs.push(...repeatedIndices(v).map((i) => field.duplicate(`${path}[${i}]`, v[i])));
    } else if (s['x-kubernetes-list-type'] === 'map' && v.length > 0) {
      errs.push(...listMapDuplicates(s, v, path));
    }
    if (s.items) v.forEach((item, i) => errs.push(...listTypeErrors(s.items!, item, `${path}[${i}]`)));
  } else if (kindOf(v) === 'object') {
    const o = v as Record<string, unknown>;
    const additional = s.additionalProperties;
    for (const [key, value] of Object.entries(o)) {
      if (typeof additional === 'object') errs.push(...listTypeErrors(additional, value, `${path}[${key}]`));
      const property = s.properties?.[key];
      if (property && Object.hasOwn(s.properties!, key)) errs.push(...listTypeErrors(property, value, path ? `${path}.${key}` : key));
    }
  }
  return errs;
}

export function validateCustomObject(schema: JSONSchemaProps, obj: Record<string, unknown>): FieldErrorList {
  return [...validateValue(schema, obj, '').errors.map(toFieldError), ...listTypeErrors(schema, obj, '')];
}

/** An update's schema errors, less those ratcheted: on what the update leaves unchanged (ratchetingValueValidator). */
export function ratchetedSchemaErrors(schema: JSONSchemaProps, next: Record<string, unknown>, prev: Record<string, unknown>): FieldErrorList {
  const root = ratchetingRoot(next, prev, schema);
  return validateCustomObject(schema, next).filter((e) => !ratchetedAt(root, e.field));
}
