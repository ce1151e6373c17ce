import type { KubeObject } from '../../api/types';
import { decodeStoredProtobuf, PROTOBUF_MAGIC } from '../../codec/protobuf';
import { encodeProtobuf, encodeProtobufInSlices, messageTypeOf } from '../../codec/protobuf-write';
import { decodeYaml, encodeYaml } from '../../codec/yaml';
import { goJsonSyntaxErrorWalk } from '../../codec/go-json-syntax';
import { runWalk } from '../../api/loop-slices';
import { withGoZeros } from '../../schema/go-zeros';
import { messageName } from '../../schema/proto-loader';

/** --storage-media-type's values, sorted as kube-apiserver lists them in its error. */
export const STORAGE_MEDIA_TYPES = ['application/json', 'application/vnd.kubernetes.protobuf', 'application/yaml'] as const;
export type StorageMediaType = (typeof STORAGE_MEDIA_TYPES)[number];
export const PROTOBUF_STORAGE: StorageMediaType = 'application/vnd.kubernetes.protobuf';

/**
 * Groups kube-apiserver stores in JSON whatever the flag says: apiextensions-apiserver and
 * kube-aggregator give their storage a LegacyCodec (createAPIExtensionsConfig, createAggregatorConfig).
 */
const JSON_GROUPS = new Set(['apiextensions.k8s.io', 'apiregistration.k8s.io']);

/** Encodings a stored value can be in; readers accept all three whatever is written. */
export type StoredEncoding = 'json' | 'yaml' | 'protobuf';

function isProtobuf(data: Buffer): boolean {
  return data.length >= 4 && data.compare(PROTOBUF_MAGIC, 0, 4, 0, 4) === 0;
}

/** Whether a value is JSON rather than YAML: its first non-space byte opens an object (apimachinery's yaml.IsJSONBuffer). */
function looksLikeJson(data: Buffer): boolean {
  for (const byte of data) if (byte !== 0x20 && byte !== 0x0a && byte !== 0x0d && byte !== 0x09) return byte === 0x7b;
  return true;
}

/** ObjectMeta's fields before resourceVersion, in Go's field order. */
const BEFORE_RESOURCE_VERSION = new Set(['name', 'generateName', 'namespace', 'selfLink', 'uid']);

/** Protobuf drops the empty resourceVersion stored objects carry; its slot goes back where Go's encoder writes it. */
function withResourceVersionSlot(meta: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  let placed = false;
  for (const key of Object.keys(meta)) {
    if (!placed && !BEFORE_RESOURCE_VERSION.has(key)) {
      out.resourceVersion = '';
      placed = true;
    }
    out[key] = meta[key];
  }
  if (!placed) out.resourceVersion = '';
  return out;
}

/**
 * The one encoding of objects in etcd (kube's storage codec): built-in kinds in the configured
 * media type (`k8s\0` + runtime.Unknown for Protobuf, the bytes clients get), custom resources and
 * the JSON-only groups in JSON. Every value is read whatever its encoding, so data written by
 * another setting keeps working and moves to the configured one on its next write.
 */
export class StorageCodec {
  constructor(readonly mediaType: StorageMediaType = PROTOBUF_STORAGE) {}

  /** The encoding an object of this kind is written in. */
  encodingOf(obj: KubeObject): StoredEncoding {
    if (this.mediaType === 'application/json') return 'json';
    const apiVersion = typeof obj.apiVersion === 'string' ? obj.apiVersion : '';
    const group = apiVersion.includes('/') ? apiVersion.slice(0, apiVersion.indexOf('/')) : '';
    if (JSON_GROUPS.has(group)) return 'json';
    const type = messageTypeOf(obj);
    if (!type) return 'json';
    return this.mediaType === PROTOBUF_STORAGE ? 'protobuf' : 'yaml';
  }

  /**
   * An object's stored bytes. Protobuf first gives the object, in place, the zero values Go's
   * encoder writes, so the object a write returns is the one later reads decode, and equal objects
   * encode to equal bytes (etcd3 store's GuaranteedUpdate compares bytes to skip no-op writes).
   */
  encode(obj: KubeObject, encoding = this.encodingOf(obj)): Buffer {
    switch (encoding) {
      case 'protobuf':
        withGoZeros(messageName(messageTypeOf(obj)!), obj);
        return encodeProtobuf(obj as unknown as Record<string, unknown>);
      case 'yaml':
        return encodeYaml(obj);
      default:
        return Buffer.from(JSON.stringify(obj));
    }
  }

  /** encode for a request: a protobuf encoding's long lists are encoded in slices. */
  async encodeInSlices(obj: KubeObject, encoding: StoredEncoding, slice: () => Promise<void>): Promise<Buffer> {
    if (encoding !== 'protobuf') return this.encode(obj, encoding);
    withGoZeros(messageName(messageTypeOf(obj)!), obj);
    await slice();
    return encodeProtobufInSlices(obj as unknown as Record<string, unknown>, slice);
  }

  /**
   * The encoding a stored value is in, from its first bytes: the `k8s\0` magic is Protobuf, and
   * anything else JSON, or YAML when that is what this codec writes and the value is no JSON object.
   */
  encodingOfData(data: Buffer): StoredEncoding {
    if (isProtobuf(data)) return 'protobuf';
    return this.mediaType === 'application/yaml' && !looksLikeJson(data) ? 'yaml' : 'json';
  }

  /** A stored value's object; throws (with the decoder's message) when it cannot be read. */
  decode(data: Buffer, encoding = this.encodingOfData(data)): KubeObject {
    switch (encoding) {
      case 'protobuf': {
        const obj = decodeStoredProtobuf(data);
        // Assigned in its place: metadata keeps its position among the object's fields.
        obj.metadata = withResourceVersionSlot(obj.metadata as Record<string, unknown>) as KubeObject['metadata'];
        return obj;
      }
      case 'yaml':
        return decodeYaml(data) as KubeObject;
      default:
        try {
          return JSON.parse(data.toString('utf8')) as KubeObject;
        } catch (err) {
          const goError = runWalk(goJsonSyntaxErrorWalk(data));
          throw new Error(`couldn't get version/kind; json parse error: ${goError ?? (err as Error).message}`, { cause: err });
        }
    }
  }
}
