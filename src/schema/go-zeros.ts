import { FIELD_FACTS, type FieldFacts } from './field-facts';
import { parseApiVersion } from '../api/types';
import { lookupMessage } from './proto-loader';

/**
 * Go's encoding/json writes every field it does not omit: a non-pointer, non-omitempty field is
 * written at its zero value, a nil slice or map without omitempty as null, and a non-pointer
 * struct always (omitempty never omits a struct; omitzero does). kube-apiserver's objects pass
 * through Go structs, so a new DaemonSet's status carries `currentNumberScheduled: 0` and a
 * container `resources: {}`. `withGoZeros` puts those values into an object of a built-in kind, so
 * that every encoding of it says what kube-apiserver's says.
 */

const META = 'k8s.io.apimachinery.pkg.apis.meta.v1';

/** The JSON of the zero value of types with their own MarshalJSON (undefined: written as null). */
const SPECIAL_ZEROS: Record<string, unknown> = {
  [`${META}.Time`]: null,
  [`${META}.MicroTime`]: null,
  [`${META}.Duration`]: '0s',
  [`${META}.FieldsV1`]: null,
  'k8s.io.apimachinery.pkg.util.intstr.IntOrString': 0,
  'k8s.io.apimachinery.pkg.api.resource.Quantity': '0',
  'k8s.io.apimachinery.pkg.runtime.RawExtension': null,
};

const SCALAR_ZEROS: Record<string, unknown> = {
  string: '',
  bool: false,
  bytes: null,
};

type Step =
  /** Absent: write this value (a fresh copy for objects). */
  | { name: string; kind: 'zero'; value: unknown }
  /** Absent: write {} and fill it; present: fill it. */
  | { name: string; kind: 'struct'; message: string; always: boolean }
  /** Present: fill each item / value; absent: null when Go writes a nil slice or map. */
  | { name: string; kind: 'items' | 'values'; message: string; nullWhenAbsent: boolean }
  /** An embedded struct: its fields are the object's own. */
  | { name: string; kind: 'inline'; message: string };

const plans = new Map<string, Step[]>();

function isStruct(type: string): boolean {
  return type in FIELD_FACTS && !(type in SPECIAL_ZEROS);
}

function stepOf(name: string, f: FieldFacts): Step | null {
  const type = f.type!;
  if (f.inline) return { name, kind: 'inline', message: type };
  if (f.pointer) return f.omitempty ? null : { name, kind: 'zero', value: null };
  if (f.keyType || f.repeated) {
    if (isStruct(type)) return { name, kind: f.keyType ? 'values' : 'items', message: type, nullWhenAbsent: !f.omitempty };
    return f.omitempty ? null : { name, kind: 'zero', value: null };
  }
  if (isStruct(type)) return { name, kind: 'struct', message: type, always: !f.omitzero };
  if (f.omitzero) return null;
  if (type in SPECIAL_ZEROS) return { name, kind: 'zero', value: SPECIAL_ZEROS[type] };
  if (f.omitempty || f.nilable) return f.nilable && !f.omitempty ? { name, kind: 'zero', value: null } : null;
  return { name, kind: 'zero', value: type in SCALAR_ZEROS ? SCALAR_ZEROS[type] : 0 };
}

function planOf(message: string): Step[] {
  let plan = plans.get(message);
  if (!plan) {
    plan = Object.entries(FIELD_FACTS[message] ?? {}).flatMap(([name, f]) => stepOf(name, f) ?? []);
    plans.set(message, plan);
  }
  return plan;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * Writes the zeros of `obj`'s fields; `deep` also fills the objects already in it (a decoder that
 * fills each object as it makes it needs only the object's own fields).
 */
function fill(message: string, obj: Record<string, unknown>, deep: boolean): void {
  for (const step of planOf(message)) {
    const v = obj[step.name];
    switch (step.kind) {
      case 'zero':
        if (v === undefined) obj[step.name] = step.value;
        break;
      case 'inline':
        fill(step.message, obj, deep);
        break;
      case 'struct':
        if (isObject(v)) {
          if (deep) fill(step.message, v, true);
        } else if (v === undefined && step.always) {
          const fresh: Record<string, unknown> = {};
          fill(step.message, fresh, true);
          obj[step.name] = fresh;
        }
        break;
      case 'items':
        if (deep && Array.isArray(v)) for (const item of v) if (isObject(item)) fill(step.message, item, true);
        if (v === undefined && step.nullWhenAbsent) obj[step.name] = null;
        break;
      case 'values':
        if (deep && isObject(v)) for (const item of Object.values(v)) if (isObject(item)) fill(step.message, item, true);
        if (v === undefined && step.nullWhenAbsent) obj[step.name] = null;
        break;
    }
  }
}

/** Adds, in place, the fields Go's encoder would write for an object of this proto message. */
export function withGoZeros<T extends object>(message: string, obj: T): T {
  fill(message, obj as Record<string, unknown>, true);
  return obj;
}

/**
 * `withGoZeros` of an object whose nested objects are already filled: only its own fields (and
 * those of the structs inlined in it). The Protobuf decoder fills each object as it makes it.
 */
export function withOwnGoZeros(message: string, obj: Record<string, unknown>): void {
  fill(message, obj, false);
}

const childMessages = new Map<string, Map<string, string>>();

/**
 * The message `withGoZeros` fills a field's value (its struct, items or map values) as, by field
 * name; a field it does not descend into (a pointer, a scalar) is absent.
 */
export function goZerosChildMessages(message: string): Map<string, string> {
  let children = childMessages.get(message);
  if (!children) {
    children = new Map(planOf(message).flatMap((step) => (step.kind === 'zero' ? [] : [[step.name, step.message] as const])));
    childMessages.set(message, children);
  }
  return children;
}

const messages = new Map<string, string | null>();

/** The message of a built-in kind's apiVersion and kind, or null (custom resources). */
function messageOf(apiVersion: string, kind: string): string | null {
  const key = `${apiVersion}|${kind}`;
  let name = messages.get(key);
  if (name === undefined) {
    const type = lookupMessage({ ...parseApiVersion(apiVersion), kind });
    name = type ? type.fullName.slice(1) : null;
    messages.set(key, name);
  }
  return name;
}

/** `withGoZeros` for an object of any kind: objects of kinds without a Go type (custom resources) are left as they are. */
export function withGoZerosOfKind<T extends object>(apiVersion: string, kind: string, obj: T): T {
  const message = messageOf(apiVersion, kind);
  return message ? withGoZeros(message, obj) : obj;
}

/**
 * What Go's encoder leaves out of an object it decoded: omitempty fields at their zero value ("",
 * 0, false, an empty or null slice or map, a null pointer). kube-apiserver decodes a request into
 * Go structs before anything reads it, so `minReadySeconds: 0` sent by a client is neither stored,
 * answered nor owned in managedFields. Removes those fields in place, recursively.
 */
export function withoutOmittedZeros<T extends object>(message: string, obj: T): T {
  drop(message, obj as Record<string, unknown>);
  return obj;
}

function isOmittedZero(v: unknown): boolean {
  if (v === null || v === 0 || v === '' || v === false) return true;
  if (Array.isArray(v)) return v.length === 0;
  return isObject(v) && Object.keys(v).length === 0;
}

/** What `drop` does with one field: remove it when Go would omit it, and/or look inside it. */
interface DropStep {
  name: string;
  /** Go omits its zero value ('pointer': only null). */
  omit: 'zero' | 'pointer' | null;
  /** The message of its struct value, items or map values, to drop within. */
  inner: string | null;
  /** A map: `inner` is its values' message. */
  map: boolean;
  inline: boolean;
}

const dropPlans = new Map<string, DropStep[]>();

function dropPlanOf(message: string): DropStep[] {
  let plan = dropPlans.get(message);
  if (!plan) {
    plan = Object.entries(FIELD_FACTS[message] ?? {}).flatMap(([name, f]): DropStep[] => {
      const type = f.type ?? '';
      if (f.inline) return [{ name, omit: null, inner: type, map: false, inline: true }];
      const struct = isStruct(type) || type in SPECIAL_ZEROS;
      // omitempty never omits a struct value; a pointer omits only nil.
      const omit = !f.omitempty ? null : f.pointer ? 'pointer' : f.repeated || f.keyType || !struct ? 'zero' : null;
      const inner = isStruct(type) ? type : null;
      return omit || inner ? [{ name, omit, inner, map: !!f.keyType, inline: false }] : [];
    });
    dropPlans.set(message, plan);
  }
  return plan;
}

function drop(message: string, obj: Record<string, unknown>): void {
  for (const step of dropPlanOf(message)) {
    if (step.inline) {
      drop(step.inner!, obj);
      continue;
    }
    const v = obj[step.name];
    if (v === undefined) continue;
    if (step.omit === 'pointer' ? v === null : step.omit === 'zero' && isOmittedZero(v)) {
      delete obj[step.name];
      continue;
    }
    if (!step.inner || typeof v !== 'object' || v === null) continue;
    if (Array.isArray(v)) {
      for (const item of v) if (isObject(item)) drop(step.inner, item);
    } else if (step.map) {
      for (const item of Object.values(v)) if (isObject(item)) drop(step.inner, item);
    } else {
      drop(step.inner, v as Record<string, unknown>);
    }
  }
}

/** `withoutOmittedZeros` for an object of any kind; custom resources are left as they are. */
export function withoutOmittedZerosOfKind<T extends object>(apiVersion: string, kind: string, obj: T): T {
  const message = messageOf(apiVersion, kind);
  return message ? withoutOmittedZeros(message, obj) : obj;
}
