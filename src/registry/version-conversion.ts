import type { CallSignal } from '../api/request-abort';
import type { KubeObject } from '../api/types';
import type { ItemsType } from '../storage/interfaces';
import { convertAll, convertOne } from './conversion';
import { inWireOrder } from './object-order';
import { apiVersionOfDefinition, storageApiVersionOf } from './resource-definition';
import type { ResourceDefinition } from './types';
import { jsonClone } from '../api/json-clone';

/**
 * A resource's objects between the version a client speaks and the one etcd holds, as kube's
 * storage codec converts on the way in and out: through the resource's converter where it has
 * one (a CRD's conversion webhook), in process otherwise.
 */

/** What is written: the storage version's object, type meta stamped, fields in wire order. */
export async function storageVersionOf(def: ResourceDefinition, obj: KubeObject, signal: CallSignal): Promise<KubeObject> {
  const { conversion, converter } = def;
  const apiVersion = storageApiVersionOf(def);
  if (converter && obj.apiVersion !== apiVersion) return inWireOrder(await convertOne(converter, obj, apiVersion, signal, true), def.kind, apiVersion);
  return inWireOrder(conversion ? conversion.toStorage(obj) : obj, def.kind, apiVersion);
}

/**
 * What a client of the definition's version sees of a stored object. Stored objects are
 * canonical, so only those of another version are rebuilt: through the resource's converter where
 * it has one, converted where the versions differ in more than apiVersion, restamped otherwise
 * (custom resources without a conversion webhook).
 */
export async function servedVersionOf(def: ResourceDefinition, obj: KubeObject, signal: CallSignal): Promise<KubeObject> {
  const inProcess = servedVersionInProcess(def, obj);
  if (inProcess) return inProcess;
  const apiVersion = apiVersionOfDefinition(def);
  return inWireOrder(await convertOne(def.converter!, obj, apiVersion, signal, false), def.kind, apiVersion);
}

/**
 * servedVersionOf a list's items: in process without a promise per item, or in one converter call
 * (kube's webhook converter sends a list at once). Items the storage vouches are all of the served
 * version and kind (`itemsType`) are returned as they are, without reading each.
 */
export async function servedVersionsOf(def: ResourceDefinition, items: KubeObject[], signal: CallSignal, itemsType?: ItemsType): Promise<KubeObject[]> {
  const { converter } = def;
  const apiVersion = apiVersionOfDefinition(def);
  if (!converter && itemsType?.apiVersion === apiVersion && itemsType.kind === def.kind) return items;
  if (!converter) return items.map((o) => restamped(def, o, apiVersion));
  return (await convertAll(converter, items, apiVersion, signal, false)).map((o) => inWireOrder(o, def.kind, apiVersion));
}

/** servedVersionOf where it needs no converter call, at once; undefined where it would call out (a CRD's conversion webhook). */
export function servedVersionInProcess(def: ResourceDefinition, obj: KubeObject): KubeObject | undefined {
  const apiVersion = apiVersionOfDefinition(def);
  if (def.converter && obj.apiVersion !== apiVersion) return undefined;
  return restamped(def, obj, apiVersion);
}

/**
 * A stored object shown in the definition's version (`apiVersion`, made once per list rather than
 * once per item) without calling out: converted in process, or only restamped.
 */
function restamped(def: ResourceDefinition, obj: KubeObject, apiVersion: string): KubeObject {
  if (obj.kind === def.kind && obj.apiVersion === apiVersion) return obj;
  const { conversion } = def;
  // A copy: the stored object may be the watch cache's, shared by every reader (inWireOrder fills in Go's zero values).
  const copy = jsonClone(obj);
  return inWireOrder(conversion ? conversion.fromStorage(copy) : copy, def.kind, apiVersion);
}
