import type { KubeObject } from '../api/types';
import { lookupMessageOf, messageName } from '../schema/proto-loader';
import { decodeEnvelope, ProtobufDecoder, type DecodedFields, type Envelope, type SpecialMessages } from './protobuf-decode';
import { DecodeError } from './decode-error';
import { interned } from './interned-strings';
import { sharedFieldsV1 } from './shared-fields-v1';
import { STRING_LIST_MESSAGES } from '../generated/api-facts';

const META = 'k8s.io.apimachinery.pkg.apis.meta.v1';

/** Every Kubernetes protobuf body starts with these four bytes ("k8s\0"). */
export const PROTOBUF_MAGIC = Buffer.from([0x6b, 0x38, 0x73, 0x00]);

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

/** The messages whose JSON is not an object of their fields, by full name. */
const SPECIAL: SpecialMessages = {
  // A Time written at all is a non-pointer field: its zero value is JSON's null.
  [`${META}.Time`]: (m) => (!m.seconds ? null : interned(formatTime(m.seconds as number, 0, false))),
  // MicroTime.Size is 0 for the zero time (an empty message), which Unmarshal reads back as zero: JSON's null.
  [`${META}.MicroTime`]: (m) => {
    const seconds = (m.seconds as number | undefined) ?? 0;
    const nanos = (m.nanos as number | undefined) ?? 0;
    return seconds === 0 && nanos === 0 ? null : formatTime(seconds, nanos, true);
  },
  [`${META}.Duration`]: (m) => formatDuration((m.duration as number | undefined) ?? 0),
  [`${META}.FieldsV1`]: (m) => (m.Raw ? sharedFieldsV1(m.Raw as Buffer) : undefined),
  'k8s.io.apimachinery.pkg.util.intstr.IntOrString': (m) => (m.type === 1 ? (m.strVal ?? '') : (m.intVal ?? 0)),
  'k8s.io.apimachinery.pkg.api.resource.Quantity': (m) => (typeof m.string === 'string' ? interned(m.string) : m.string),
  'k8s.io.apimachinery.pkg.runtime.RawExtension': (m) => (m.raw && (m.raw as Buffer).length > 0 ? JSON.parse((m.raw as Buffer).toString('utf8')) : undefined),
  // Named []string types (ExtraValue, Verbs): JSON is the list of the message's items.
  ...Object.fromEntries(STRING_LIST_MESSAGES.map((m) => [m, (msg: DecodedFields) => msg.items ?? []])),
};

/** A request's objects are its handler's to change; stored objects are read-only, and share what they hold alike. */
const requestDecoder = new ProtobufDecoder(SPECIAL, false);
const storageDecoder = new ProtobufDecoder(SPECIAL, true);

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

/** Reads a `k8s\0` + runtime.Unknown body into a plain object of the kind its typeMeta names. */
export function decodeProtobuf(body: Buffer): KubeObject {
  const { apiVersion, kind, metadata, json } = decodeWith(requestDecoder, body);
  return { apiVersion, kind, ...metadata, ...json } as KubeObject;
}

/**
 * decodeProtobuf for a stored value: the messages it holds that other stored objects hold too
 * (a template's containers, probes, volumes) are one frozen object shared by all of them. TypeMeta's
 * fields come first, kind before apiVersion, as Go's encoder writes the struct.
 */
export function decodeStoredProtobuf(body: Buffer): KubeObject {
  const { apiVersion, kind, metadata, json } = decodeWith(storageDecoder, body);
  return { kind, apiVersion, ...metadata, ...json } as KubeObject;
}

/** A body's kind and the JSON of its message; `metadata` holds an empty ObjectMeta for kinds that have one. */
function decodeWith(
  decoder: ProtobufDecoder,
  body: Buffer,
): { apiVersion: string; kind: string; metadata: { metadata?: object }; json: Record<string, unknown> } {
  if (body.length < 4 || body.compare(PROTOBUF_MAGIC, 0, 4, 0, 4) !== 0) {
    throw new DecodeError(`provided data does not appear to be a protobuf message, expected prefix [107 56 115 0]`);
  }
  let envelope: Envelope;
  try {
    envelope = decodeEnvelope(body, 4, body.length);
  } catch (err) {
    throw new DecodeError(`unable to decode protobuf envelope: ${(err as Error).message}`);
  }
  const { apiVersion, kind, rawStart, rawEnd } = envelope;
  if (!kind || !apiVersion) throw new DecodeError("Object 'Kind' is missing in protobuf envelope");
  const type = lookupMessageOf(apiVersion, kind);
  if (!type) throw new DecodeError(`no kind "${kind}" is registered for version "${apiVersion}"`);
  let json: Record<string, unknown>;
  try {
    // What Go's JSON encoder would write of the decoded struct: its nil slices as null, non-pointer zeros.
    json = decoder.decode(type, body, rawStart, rawEnd, messageName(type));
  } catch (err) {
    throw new DecodeError(`unable to decode ${kind}: ${(err as Error).message}`);
  }
  // ObjectMeta is a struct, so Go's JSON always writes it; kinds without it (DeleteOptions, AdmissionReview) get none.
  const metadata = Object.prototype.hasOwnProperty.call(type.fields, 'metadata') ? { metadata: {} } : {};
  return { apiVersion: interned(apiVersion), kind: interned(kind), metadata, json };
}
