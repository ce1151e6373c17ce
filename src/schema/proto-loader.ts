import { existsSync } from 'node:fs';
import path from 'node:path';
import { Root, type Field, type Type } from 'protobufjs';
import type { GroupVersionKind } from '../api/types';
import { GROUP_VERSION_PACKAGES, PROTO_FILES } from '../generated/api-facts';
import { FIELD_FACTS } from './field-facts';

/**
 * The .proto files of the pinned release, in one protobufjs Root: the messages of every kind, which
 * the codec, the typed schemas, the strategic-merge schema and validation read. A package's file
 * (and the files it imports) is parsed on the first lookup of one of its messages: a start touches
 * a third of them, and parsing all would cost a large part of a start's CPU.
 */

/** proto/ at the project root: two levels above src/schema and dist/schema, three above dist-test/src/schema. */
const PROTO_ROOT = ['../../proto', '../../../proto'].map((p) => path.resolve(__dirname, p)).find((p) => existsSync(path.join(p, 'k8s.io')))!;

/**
 * Whether a field of a message is a Go struct embedded with `json:",inline"`: a message of its own
 * in protobuf, while in JSON its fields sit in the embedding object.
 */
export function isInlineField(type: Type, field: Field): boolean {
  return FIELD_FACTS[type.fullName.slice(1)]?.[field.name]?.inline === true;
}

/** Each package's file: the proto package is the file's directory, dotted (kube-aggregator's dash an underscore). */
const PACKAGE_FILES = new Map(PROTO_FILES.map((file) => [path.dirname(file).replaceAll('/', '.').replaceAll('-', '_'), file]));

const root = new Root();
root.resolvePath = (_origin, target) => path.join(PROTO_ROOT, target);

/** The package a message's full name sits in: the longest prefix that names one. */
function packageOf(fullName: string): string | null {
  for (let dot = fullName.lastIndexOf('.'); dot > 0; dot = fullName.lastIndexOf('.', dot - 1)) {
    const pkg = fullName.slice(0, dot);
    if (PACKAGE_FILES.has(pkg)) return pkg;
  }
  return null;
}

/** Parses a file and what it imports, once. */
function load(file: string): void {
  if (root.files.includes(path.join(PROTO_ROOT, file))) return;
  root.loadSync(file, { keepCase: true });
  root.resolveAll();
}

/** A message by its full name (`k8s.io.api.core.v1.Pod`), its package's file loaded first; throws when there is none. */
export function protoType(fullName: string): Type {
  const file = PACKAGE_FILES.get(packageOf(fullName) ?? '');
  if (file) load(file);
  return root.lookupType(fullName);
}

/** The Root with every file of the release loaded, for tools and tests that walk all the messages. */
export function protoRoot(): Root {
  for (const file of PROTO_FILES) load(file);
  return root;
}

/**
 * Kinds of meta/v1 that other group-versions also register (client-go sends DeleteOptions as "v1"):
 * metav1.AddToGroupVersion's options and WatchEvent, and its unversioned discovery types.
 */
const META_KINDS = new Set([
  'DeleteOptions',
  'CreateOptions',
  'UpdateOptions',
  'PatchOptions',
  'GetOptions',
  'ListOptions',
  'Status',
  'WatchEvent',
  'APIVersions',
  'APIGroupList',
  'APIGroup',
  'APIResourceList',
  'PartialObjectMetadata',
  'PartialObjectMetadataList',
  'List',
]);

/** The message of a kind, by the package the release registers its group-version in; meta kinds -> apimachinery. Null for groups the release does not define. */
export function protoTypeName(gvk: GroupVersionKind): string | null {
  if (gvk.group === 'meta.k8s.io' || gvk.group === 'meta.cluster' || META_KINDS.has(gvk.kind)) {
    return `k8s.io.apimachinery.pkg.apis.meta.v1.${gvk.kind}`;
  }
  const pkg = GROUP_VERSION_PACKAGES[gvk.group ? `${gvk.group}/${gvk.version}` : gvk.version];
  return pkg ? `${pkg}.${gvk.kind}` : null;
}

/**
 * Messages by group, version and kind: every write and every decoded value looks one up. A
 * Protobuf body names its own kind, so the names a client invents (no message) are kept only up
 * to a bound, and the map cannot be grown without end.
 */
const messages = new Map<string, Type | null>();
const UNKNOWN_NAMES_KEPT_MAX = 4096;
let unknownNamesKept = 0;

export function lookupMessage(gvk: GroupVersionKind): Type | null {
  const key = `${gvk.group}/${gvk.version}/${gvk.kind}`;
  let type = messages.get(key);
  if (type !== undefined) return type;
  type = findMessage(gvk);
  if (type || unknownNamesKept++ < UNKNOWN_NAMES_KEPT_MAX) messages.set(key, type);
  return type;
}

function findMessage(gvk: GroupVersionKind): Type | null {
  const name = protoTypeName(gvk);
  if (!name) return null;
  try {
    return protoType(name);
  } catch {
    return null;
  }
}

/** A message's full name without the leading dot, kept per type: protobufjs joins it from the parents on every access. */
const messageNames = new WeakMap<Type, string>();

export function messageName(type: Type): string {
  let name = messageNames.get(type);
  if (name === undefined) messageNames.set(type, (name = type.fullName.slice(1)));
  return name;
}

/**
 * The message of an object's apiVersion and kind, as lookupMessage, without splitting the
 * apiVersion on each call. Names come from clients too, so as in lookupMessage, names without a
 * message are kept only up to a bound.
 */
const messagesByApiVersion = new Map<string, Map<string, Type | null>>();
let unknownApiVersionKindsKept = 0;

export function lookupMessageOf(apiVersion: string, kind: string): Type | null {
  const type = messagesByApiVersion.get(apiVersion)?.get(kind);
  if (type !== undefined) return type;
  const slash = apiVersion.indexOf('/');
  const found = lookupMessage({ group: slash < 0 ? '' : apiVersion.slice(0, slash), version: apiVersion.slice(slash + 1), kind });
  if (found || unknownApiVersionKindsKept++ < UNKNOWN_NAMES_KEPT_MAX) {
    let byKind = messagesByApiVersion.get(apiVersion);
    if (!byKind) messagesByApiVersion.set(apiVersion, (byKind = new Map()));
    byKind.set(kind, found);
  }
  return found;
}
