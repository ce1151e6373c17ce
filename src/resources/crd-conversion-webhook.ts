import { randomUUID } from 'node:crypto';
import { aggregateMessage, fieldErrorMessage } from '../api/field-errors';
import { validateAnnotations, validateLabels } from '../api/meta-validation';
import { isPlainObject, type KubeObject } from '../api/types';
import { postJson, webhookTarget, webhookUrl, WebhookCallError, type ResolveService } from '../admission/webhooks/client';
import { ConversionFailure, type ObjectConverter } from '../registry/conversion';
import { jsonClone } from '../api/json-clone';

/**
 * A CRD's conversion webhook as apiextensions-apiserver's webhookConverter calls it: the objects
 * not yet in the desired version go in one ConversionReview (the first of the CRD's
 * conversionReviewVersions kapi speaks), and the answer is checked as kube checks it: the review's
 * kind and uid, a successful result, as many objects as were sent, each of the desired version and
 * the same kind, name, namespace and uid; of the metadata only labels and annotations may change.
 */

/** kube's webhook client manager gives conversion calls no timeout of their own: the rest client's 30 s. */
const CONVERSION_TIMEOUT_SECONDS = 30;
const REVIEW_VERSIONS = ['v1', 'v1beta1'];

type Obj = Record<string, unknown>;

export interface WebhookConversion {
  clientConfig: Obj;
  conversionReviewVersions: string[];
}

const gvkString = (obj: KubeObject): string => `${obj.apiVersion}, Kind=${obj.kind}`;

/** validateConvertedObject: what a webhook may not change. */
function identityChange(sent: KubeObject, got: KubeObject): string | null {
  const checks: [string, unknown, unknown][] = [
    ['kind', sent.kind, got.kind],
    ['name', sent.metadata.name, got.metadata?.name],
    ['namespace', sent.metadata.namespace, got.metadata?.namespace],
    ['UID', sent.metadata.uid, got.metadata?.uid],
  ];
  for (const [what, a, b] of checks) if ((a ?? '') !== (b ?? '')) return `must have the same ${what}: ${String(a ?? '')} != ${String(b ?? '')}`;
  return null;
}

/** restoreObjectMeta: the sent metadata back, with the webhook's labels and annotations (validated when changed). */
function restoredMetadata(sent: KubeObject, got: Obj): KubeObject['metadata'] {
  if (!isPlainObject(got.metadata)) throw new Error('missing metadata in converted object');
  const answered = got.metadata;
  const meta: Obj = jsonClone(sent.metadata) as Obj;
  for (const fld of ['labels', 'annotations'] as const) {
    const value = answered[fld];
    if (value === undefined || value === null) {
      delete meta[fld];
      continue;
    }
    if (!isPlainObject(value)) throw new Error(`invalid metadata.${fld} of type ${typeof value} in converted object`);
    for (const [k, v] of Object.entries(value)) {
      if (typeof v !== 'string') throw new Error(`metadata.${fld}[${k}] must be a string, but is ${typeof v} in converted object`);
    }
    const strings = value as Record<string, string>;
    const errs = fld === 'labels' ? validateLabels(strings, 'metadata.labels') : validateAnnotations(strings, 'metadata.annotation');
    if (errs.length > 0) throw new Error(aggregateMessage(errs.map(fieldErrorMessage)));
    meta[fld] = strings;
  }
  return meta as KubeObject['metadata'];
}

/** getConvertedObjectsFromResponse: the converted objects of a well-formed, successful review. */
function convertedObjects(body: unknown, version: string, uid: string): unknown[] {
  if (!isPlainObject(body)) throw new Error('no response provided');
  if (version === 'v1') {
    const gvk = `${String(body.apiVersion ?? '')}, Kind=${String(body.kind ?? '')}`;
    if (body.apiVersion !== 'apiextensions.k8s.io/v1' || body.kind !== 'ConversionReview') {
      throw new Error(`expected webhook response of apiextensions.k8s.io/v1, Kind=ConversionReview, got ${gvk}`);
    }
  }
  const response = body.response;
  if (!isPlainObject(response)) throw new Error('no response provided');
  if (version === 'v1' && response.uid !== uid) throw new Error(`expected response.uid=${JSON.stringify(uid)}, got ${JSON.stringify(response.uid ?? '')}`);
  const result = isPlainObject(response.result) ? response.result : {};
  if (result.status !== 'Success') {
    if (typeof result.message === 'string' && result.message) throw new Error(result.message);
    throw new Error(`response.result.status was '${String(result.status ?? '')}', not 'Success'`);
  }
  return Array.isArray(response.convertedObjects) ? response.convertedObjects : [];
}

export function webhookConverter(conversion: WebhookConversion, resolve: ResolveService): ObjectConverter {
  const version = conversion.conversionReviewVersions.find((v) => REVIEW_VERSIONS.includes(v));
  return {
    async convert(objects, apiVersion, signal) {
      const pending = objects.filter((o) => o.apiVersion !== apiVersion);
      if (pending.length === 0) return objects;
      const subject = gvkString(pending[0]);
      const failed = (why: string): ConversionFailure => new ConversionFailure(`conversion webhook for ${subject} failed: ${why}`);
      if (!version) throw failed('no supported conversion review versions');
      const uid = randomUUID();
      const review = {
        kind: 'ConversionReview',
        apiVersion: `apiextensions.k8s.io/${version}`,
        request: { uid, desiredAPIVersion: apiVersion, objects: pending },
        response: { uid: '', convertedObjects: null, result: { metadata: {} } },
      };
      const url = webhookUrl(conversion.clientConfig, CONVERSION_TIMEOUT_SECONDS);
      let body: unknown;
      try {
        const target = await webhookTarget(conversion.clientConfig, url.url, resolve);
        const reply = await postJson(target, review, CONVERSION_TIMEOUT_SECONDS * 1000, signal);
        if (reply.status < 200 || reply.status > 299)
          throw new WebhookCallError(`the server responded with the status code ${reply.status} but did not return more information`);
        body = reply.body;
      } catch (err) {
        if (err instanceof WebhookCallError) throw failed(`Post "${url.text}": ${err.message}`);
        throw err;
      }
      let converted: unknown[];
      try {
        converted = convertedObjects(body, version, uid);
      } catch (err) {
        throw failed((err as Error).message);
      }
      if (converted.length !== pending.length) {
        throw new ConversionFailure(`conversion webhook for ${subject} returned ${converted.length} objects, expected ${pending.length}`);
      }
      let next = 0;
      return objects.map((sent) => {
        if (sent.apiVersion === apiVersion) return sent;
        const index = next++;
        const invalid = (why: string): ConversionFailure =>
          new ConversionFailure(`conversion webhook for ${subject} returned invalid converted object at index ${index}: ${why}`);
        const got = converted[index];
        if (!isPlainObject(got)) throw invalid('invalid type, expected=Unstructured');
        if (got.apiVersion !== apiVersion) throw invalid(`invalid groupVersion (expected ${apiVersion}, received ${String(got.apiVersion ?? '')})`);
        const change = identityChange(sent, got as KubeObject);
        if (change) throw invalid(change);
        try {
          return { ...(got as KubeObject), metadata: restoredMetadata(sent, got) };
        } catch (err) {
          throw new ConversionFailure(`conversion webhook for ${subject} returned invalid metadata in object at index ${index}: ${(err as Error).message}`);
        }
      });
    },
  };
}
