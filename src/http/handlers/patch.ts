import { badRequest, unsupportedMediaType } from '../../api/errors';
import { isPlainObject, type KubeObject } from '../../api/types';
import { parseMediaType } from '../../codec/media-type';
import { applyJsonPatch } from '../../patch/json-patch';
import { applyMergePatch } from '../../patch/merge-patch';
import { applyStrategicMergePatch } from '../../patch/strategic-merge';
import type { Subresource } from '../../registry/subresources';
import { readBody } from '../body';
import { dryRunParam, fieldValidationParam } from '../query';
import { respond } from '../respond';
import type { ResourceRequest } from './context';

const JSON_PATCH = 'application/json-patch+json';
const MERGE_PATCH = 'application/merge-patch+json';
const STRATEGIC_MERGE_PATCH = 'application/strategic-merge-patch+json';

function parsePatchBody(body: Buffer): unknown {
  try {
    return JSON.parse(body.toString('utf8'));
  } catch (err) {
    throw badRequest((err as Error).message);
  }
}

/** The patched document must still be an object of the endpoint's kind. */
function asObject(value: unknown, current: KubeObject): KubeObject {
  if (!isPlainObject(value)) throw badRequest('the patch produced something other than an object');
  if (!isPlainObject(value.metadata)) value.metadata = {};
  if (value.kind !== current.kind || value.apiVersion !== current.apiVersion) {
    throw badRequest(`the API version or kind in the patched object (${String(value.apiVersion)}, ${String(value.kind)}) does not match the expected (${current.apiVersion}, ${current.kind})`);
  }
  return value as KubeObject;
}

export async function handlePatch(r: ResourceRequest): Promise<void> {
  const { info, store, query } = r;
  const patchSchema = r.patchSchemaFor(store.def);
  const supported = [JSON_PATCH, MERGE_PATCH, ...(patchSchema ? [STRATEGIC_MERGE_PATCH] : [])];
  const type = parseMediaType(r.req.headers['content-type'] ?? '').type;
  if (!supported.includes(type)) throw unsupportedMediaType(supported);
  const body = await readBody(r.req);
  const dryRun = dryRunParam(query, 'PatchOptions');
  fieldValidationParam(query, 'PatchOptions');
  const patch = parsePatchBody(body);
  if (type !== JSON_PATCH && !isPlainObject(patch)) {
    throw badRequest(`json: cannot unmarshal ${Array.isArray(patch) ? 'array' : typeof patch} into Go value of type map[string]interface {}`);
  }
  const apply = (current: KubeObject): unknown => {
    switch (type) {
      case JSON_PATCH:
        return applyJsonPatch(current, patch);
      case MERGE_PATCH:
        return applyMergePatch(current, patch);
      default:
        return applyStrategicMergePatch(current, patch, patchSchema);
    }
  };
  const { object } = await store.update(info.namespace, info.name, (current) => asObject(apply(current), current), {
    dryRun,
    subresource: info.subresource as '' | Subresource,
  });
  respond(r, 200, object);
}
