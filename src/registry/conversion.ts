import { abortSignalOf, type CallSignal } from '../api/request-abort';
import { internalError, StatusError } from '../api/errors';
import type { KubeObject } from '../api/types';

/**
 * A resource's conversion between versions that calls out, as apiextensions-apiserver's
 * webhook converter does for a CRD with `conversion.strategy: Webhook`: the objects not yet in
 * `apiVersion` are converted in one call, and every object comes back in order, those that were
 * already there untouched. A failure is a StatusError the request answers with.
 */
export interface ObjectConverter {
  convert(objects: KubeObject[], apiVersion: string, signal: AbortSignal): Promise<KubeObject[]>;
}

/** A signal that never fires: kapi's own writes, and reads outside a request (the converter's own timeout bounds those). */
export const NO_SIGNAL: AbortSignal = new AbortController().signal;

/** Why a conversion failed, in kube's words ("conversion webhook for <gvk> failed: ..."). */
export class ConversionFailure extends Error {}

/**
 * A failed conversion as the client sees it: on the way to storage a 500 InternalError (kube's
 * encoder error wrapped by its store); on the way back a reason-less 500 with the bare message, as
 * kube's response writer turns a plain error into a Status.
 */
function conversionError(err: unknown, toStorage: boolean): unknown {
  if (!(err instanceof ConversionFailure)) return err;
  if (toStorage) return internalError(err.message);
  const status = new StatusError(500, 'InternalError', err.message);
  delete status.status.reason;
  return status;
}

export async function convertOne(converter: ObjectConverter, obj: KubeObject, apiVersion: string, signal: CallSignal, toStorage: boolean): Promise<KubeObject> {
  return (await convertAll(converter, [obj], apiVersion, signal, toStorage))[0];
}

export async function convertAll(
  converter: ObjectConverter,
  objs: KubeObject[],
  apiVersion: string,
  signal: CallSignal,
  toStorage: boolean,
): Promise<KubeObject[]> {
  try {
    return await converter.convert(objs, apiVersion, abortSignalOf(signal));
  } catch (err) {
    throw conversionError(err, toStorage);
  }
}
