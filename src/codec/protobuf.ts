import type { Field, Type } from 'protobufjs';
import type { KubeObject } from '../api/types';
import { FIELD_FACTS } from '../schema/field-facts';
import { withGoZeros } from '../schema/go-zeros';
import { isInlineField, lookupMessageOf, messageName, protoType } from '../schema/proto-loader';
import { DecodeError } from './decode-error';
import { interned } from './interned-strings';
import { sharedFieldsV1 } from './shared-fields-v1';
import { STRING_LIST_MESSAGES } from '../generated/api-facts';

const META = '.k8s.io.apimachinery.pkg.apis.meta.v1';

/** Every Kubernetes protobuf body starts with these four bytes ("k8s\0"). */
export const PROTOBUF_MAGIC = Buffer.from([0x6b, 0x38, 0x73, 0x00]);

type Longish = number | { toNumber(): number };

function toNumber(v: Longish): number {
  return typeof v === 'number' ? v : v.toNumber();
}

function isZero(v: unknown): boolean {
  return v === '' || v === 0 || v === false;
}

/**
 * RFC 3339 seconds of the times decoded lately: objects written in the same second share their
 * creation and managed-fields times, so a list or a watch formats each second once. Bounded.
 */
const secondsFormatted = new Map<number, string>();
const SECONDS_FORMATTED_MAX = 4096;

function isoSeconds(seconds: number): string {
  let iso = secondsFormatted.get(seconds);
  if (iso === undefined) {
    if (secondsFormatted.size >= SECONDS_FORMATTED_MAX) secondsFormatted.clear();
    iso = new Date(seconds * 1000).toISOString().slice(0, 19);
    secondsFormatted.set(seconds, iso);
  }
  return iso;
}

function formatTime(seconds: number, nanos: number, micro: boolean): string {
  const iso = isoSeconds(seconds);
  if (!micro) return `${iso}Z`;
  return `${iso}.${String(Math.floor(nanos / 1000)).padStart(6, '0')}Z`;
}

/** The messages whose JSON form is not a plain object of their fields. */
const SPECIAL: Record<string, (msg: Record<string, unknown>) => unknown> = {
  // A Time written at all is a non-pointer field: its zero value is JSON's null.
  [`${META}.Time`]: (m) =>
    m.seconds === undefined || toNumber(m.seconds as Longish) === 0 ? null : interned(formatTime(toNumber(m.seconds as Longish), 0, false)),
  // MicroTime.Size is 0 for the zero time (an empty message), which Unmarshal reads back as zero: JSON's null.
  [`${META}.MicroTime`]: (m) => {
    const seconds = m.seconds === undefined ? 0 : toNumber(m.seconds as Longish);
    const nanos = toNumber((m.nanos as Longish) ?? 0);
    return seconds === 0 && nanos === 0 ? null : formatTime(seconds, nanos, true);
  },
  [`${META}.Duration`]: (m) => formatDuration(toNumber((m.duration as Longish) ?? 0)),
  [`${META}.FieldsV1`]: (m) => (m.Raw ? sharedFieldsV1(m.Raw as Buffer) : undefined),
  '.k8s.io.apimachinery.pkg.util.intstr.IntOrString': (m) => (toNumber((m.type as Longish) ?? 0) === 1 ? (m.strVal ?? '') : (m.intVal ?? 0)),
  '.k8s.io.apimachinery.pkg.api.resource.Quantity': (m) => (typeof m.string === 'string' ? interned(m.string) : m.string),
  '.k8s.io.apimachinery.pkg.runtime.RawExtension': (m) => (m.raw && (m.raw as Buffer).length > 0 ? JSON.parse((m.raw as Buffer).toString('utf8')) : undefined),
  // Named []string types (ExtraValue, Verbs): JSON is the list of the message's items.
  ...Object.fromEntries(STRING_LIST_MESSAGES.map((m) => [`.${m}`, (msg: Record<string, unknown>) => msg.items ?? []])),
};

/** Go's time.Duration.String(), for metav1.Duration. */
function formatDuration(nanos: number): string {
  if (nanos === 0) return '0s';
  let rest = Math.abs(nanos) / 1e9;
  const h = Math.floor(rest / 3600);
  rest -= h * 3600;
  const m = Math.floor(rest / 60);
  const s = +(rest - m * 60).toFixed(9);
  const sign = nanos < 0 ? '-' : '';
  if (h > 0) return `${sign}${h}h${m}m${s}s`;
  if (m > 0) return `${sign}${m}m${s}s`;
  return `${sign}${s}s`;
}

function scalarToJson(field: Field, value: unknown): unknown {
  if (field.resolvedType) return messageToJson(field.resolvedType as Type, value as Record<string, unknown>);
  if (Buffer.isBuffer(value) || value instanceof Uint8Array) return Buffer.from(value).toString('base64');
  if (typeof value === 'object' && value !== null && 'low' in value) return toNumber(value as unknown as Longish);
  return typeof value === 'string' ? interned(value) : value;
}

/** What converting a message of one type needs, worked out once per type (a Type's fullName is computed on each access). */
interface Plan {
  special?: (msg: Record<string, unknown>) => unknown;
  fields: { field: Field; inline: boolean; keepZero: boolean }[];
}

const plans = new WeakMap<Type, Plan>();

function planOf(type: Type): Plan {
  let plan = plans.get(type);
  if (plan) return plan;
  const name = type.fullName;
  const facts = FIELD_FACTS[name.slice(1)];
  plan = {
    special: SPECIAL[name],
    fields: type.fieldsArray.map((field) => ({ field, inline: isInlineField(type, field), keepZero: facts?.[field.name]?.keepZero === true })),
  };
  plans.set(type, plan);
  return plan;
}

/** Converts a decoded message to the JSON Kubernetes would print for it. */
export function messageToJson(type: Type, msg: Record<string, unknown>): unknown {
  const plan = planOf(type);
  if (plan.special) return plan.special(msg);
  const out: Record<string, unknown> = {};
  for (const { field, inline, keepZero } of plan.fields) {
    if (!Object.prototype.hasOwnProperty.call(msg, field.name)) continue;
    const value = msg[field.name];
    if (inline) {
      Object.assign(out, messageToJson(field.resolvedType as Type, value as Record<string, unknown>));
      continue;
    }
    if (field.map) {
      const entries = value as Record<string, unknown>;
      let json: Record<string, unknown> | undefined;
      for (const k in entries) (json ??= {})[k] = scalarToJson(field, entries[k]);
      if (json) out[field.name] = json;
    } else if (field.repeated) {
      const items = value as unknown[];
      if (items.length === 0) continue;
      out[field.name] = items.map((v) => scalarToJson(field, v));
    } else {
      const json = scalarToJson(field, value);
      if (json === undefined) continue;
      // client-go writes every non-pointer scalar even when zero; Kubernetes' JSON drops those zeros.
      if (!field.resolvedType && isZero(json) && !keepZero) continue;
      out[field.name] = json;
    }
  }
  return out;
}

let unknownMessage: Type | null = null;

/** The envelope's message, looked up once (a lookup walks the proto namespaces). */
function runtimeUnknown(): Type {
  return (unknownMessage ??= protoType('k8s.io.apimachinery.pkg.runtime.Unknown'));
}

/** Reads a `k8s\0` + runtime.Unknown body into a plain object of the kind its typeMeta names. */
export function decodeProtobuf(body: Buffer): KubeObject {
  if (body.length < 4 || !body.subarray(0, 4).equals(PROTOBUF_MAGIC)) {
    throw new DecodeError(`provided data does not appear to be a protobuf message, expected prefix [107 56 115 0]`);
  }
  const unknownType = runtimeUnknown();
  let unknown: Record<string, unknown>;
  try {
    unknown = unknownType.decode(body.subarray(4)) as unknown as Record<string, unknown>;
  } catch (err) {
    throw new DecodeError(`unable to decode protobuf envelope: ${(err as Error).message}`);
  }
  const typeMeta = (unknown.typeMeta ?? {}) as { apiVersion?: string; kind?: string };
  if (!typeMeta.kind || !typeMeta.apiVersion) throw new DecodeError("Object 'Kind' is missing in protobuf envelope");
  const type = lookupMessageOf(typeMeta.apiVersion, typeMeta.kind);
  if (!type) throw new DecodeError(`no kind "${typeMeta.kind}" is registered for version "${typeMeta.apiVersion}"`);
  let message: Record<string, unknown>;
  try {
    message = type.decode((unknown.raw as Buffer | undefined) ?? Buffer.alloc(0)) as unknown as Record<string, unknown>;
  } catch (err) {
    throw new DecodeError(`unable to decode ${typeMeta.kind}: ${(err as Error).message}`);
  }
  // What Go's JSON encoder would write of the decoded struct: its nil slices as null, non-pointer zeros.
  const json = withGoZeros(messageName(type), messageToJson(type, message) as Record<string, unknown>);
  // ObjectMeta is a struct, so Go's JSON always writes it; kinds without it (DeleteOptions, AdmissionReview) get none.
  const metadata = Object.prototype.hasOwnProperty.call(type.fields, 'metadata') ? { metadata: {} } : {};
  return { apiVersion: interned(typeMeta.apiVersion), kind: interned(typeMeta.kind), ...metadata, ...json } as KubeObject;
}
