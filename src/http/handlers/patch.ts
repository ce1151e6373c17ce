import { badRequest, invalid, unsupportedMediaType } from '../../api/errors';
import { loopSlices } from '../../api/loop-slices';
import { field } from '../../api/field-errors';
import { apiVersionOf, isPlainObject, type GroupVersionKind, type KubeObject } from '../../api/types';
import { DecodeError } from '../../codec/decode-error';
import { applyJsonPatchInSlices } from '../../patch/json-patch';
import { applyMergePatch } from '../../patch/merge-patch';
import { applyStrategicMergePatchInSlices } from '../../patch/strategic-merge';
import { goFormatValue } from '../../patch/go-value-format';
import { v4PatchedJson, type V4Decoded } from '../../patch/v4-bytes';
import { typedDecodeInSlices } from '../../schema/typed-decode';
import { readBody } from '../body';
import { decodePatchBody, jsonPatchStrictErrors } from '../patch-body';
import { APPLY_PATCH, APPLY_PATCH_CBOR, JSON_PATCH, MERGE_PATCH, patchTypesFor, STRATEGIC_MERGE_PATCH } from '../patch-types';
import { typeMetaUnreadable } from '../decode-object';
import { settlePatchedKind, type PatchedKindRule } from '../patched-kind';
import { enforceFieldValidation, jsonDuplicateFieldErrorsInSlices, strictDecodingError, unknownFieldErrors } from '../field-validation';
import { writeOptions } from '../query';
import { respond } from '../respond';
import { isCustomResource, type ResourceRequest } from './context';

/**
 * What a patch's errors are reported against: the strategic merge patch as Go's %+v prints it, or the
 * JSON json-patch v4 wrote for a JSON or merge patch (`typed`: of a built-in kind, whose Go type
 * fails to decode a value of the wrong type).
 */
type PatchedAgainst = { smp: unknown } | { patchedJson: () => Promise<string>; typed: boolean };

/** The patched document must still be an object, of the endpoint's kind as kube reads it (settlePatchedKind). */
function asObject(value: unknown, current: KubeObject, served: GroupVersionKind, rule: PatchedKindRule, decoded: V4Decoded): KubeObject {
  // An array, left by a JSON patch's `replace` of the root: runtime.DecodeInto's error, against the patched JSON (jsonPatcher.applyPatchToCurrentObject)
  if (!isPlainObject(value)) throw invalid({ group: '', kind: '' }, '', [field.invalid('patch', v4PatchedJson(value, decoded), typeMetaUnreadable(value))]);
  settlePatchedKind(value, current, served, rule, () => v4PatchedJson(value, decoded));
  if (!isPlainObject(value.metadata)) value.metadata = {};
  return value as KubeObject;
}

/**
 * An apply configuration: YAML (or JSON), or CBOR, naming the apiVersion and kind the endpoint
 * serves (a large one parsed off the event loop), and its YAML's duplicate keys when asked for.
 */
async function applyConfig(body: Buffer, r: ResourceRequest, type: string, withDuplicates: boolean): Promise<{ config: KubeObject; duplicates: string[] }> {
  let value: unknown;
  let duplicates: string[];
  try {
    const encoding = type === APPLY_PATCH_CBOR ? 'cbor' : 'yaml';
    ({ value, duplicates } = await r.bodyDecoder.decode({ body, encoding, duplicates: withDuplicates && encoding === 'yaml' }));
  } catch (err) {
    if (err instanceof DecodeError) throw badRequest(err.message);
    throw err;
  }
  if (!isPlainObject(value)) throw badRequest('error decoding YAML: the apply patch is not an object');
  const { kind } = r.served;
  // versionCheckManager, the field manager's outermost step, refuses any other group, version or kind before anything else looks at the configuration.
  const given = gvkOf(value);
  if (given !== gvkOf({ apiVersion: apiVersionOf(kind), kind: kind.kind })) throw badRequest(`invalid object type: ${given}`);
  if (!isPlainObject(value.metadata)) value.metadata = {};
  const meta = value.metadata as KubeObject['metadata'];
  // structuredMergeManager.Apply: an applied configuration that lists managedFields (even none) is refused.
  if (Array.isArray(meta.managedFields)) throw badRequest('metadata.managedFields must be nil');
  meta.name ??= r.info.name;
  if (r.store.def.namespaced) meta.namespace ??= r.info.namespace;
  return { config: value as KubeObject, duplicates };
}

/**
 * schema.GroupVersionKind.String() of Unstructured.GroupVersionKind(): "apps/v1, Kind=Deployment",
 * "/v1, Kind=Pod" for the core group; an apiVersion ParseGroupVersion refuses (two slashes) reads as no GVK at all.
 */
function gvkOf(value: Record<string, unknown>): string {
  const apiVersion = typeof value.apiVersion === 'string' ? value.apiVersion : '';
  const kind = typeof value.kind === 'string' ? value.kind : '';
  const parts = apiVersion === '' ? ['', ''] : apiVersion.split('/');
  if (parts.length > 2) return '/, Kind=';
  const [group, version] = parts.length === 1 ? ['', parts[0]] : parts;
  return `${group}/${version}, Kind=${kind}`;
}

export async function handlePatch(r: ResourceRequest): Promise<void> {
  const { info, store, query } = r;
  const supported = patchTypesFor(r.store.def, r.inputEncodings.includes('cbor'));
  // PatchResource: the header up to its first ';', compared as it is (no case folding, no trimming).
  const header = r.req.headers['content-type'] ?? '';
  const cut = header.indexOf(';');
  const type = cut > 0 ? header.slice(0, cut) : header;
  if (!supported.includes(type)) throw unsupportedMediaType(supported);
  const isApply = type === APPLY_PATCH || type === APPLY_PATCH_CBOR;
  const body = await readBody(r.req);
  const { dryRun, validation, fieldManager, force } = writeOptions(query, r.req.headers['user-agent'], 'PatchOptions', { apply: isApply });
  const { schema } = r.served;
  const fieldErrors: string[] = [];

  const slice = loopSlices();
  /**
   * Type errors are fatal; unknown fields are dropped and reported per fieldValidation. How a type
   * error, or a Strict refusal, is reported depends on the patch: `against` says against what.
   */
  const checked = async (obj: KubeObject, against?: PatchedAgainst): Promise<KubeObject> => {
    if (!schema) return obj;
    const report = await typedDecodeInSlices(obj, schema, slice);
    // smpPatcher's applyPatchToObject: the converter's error, against the patch as Go's %+v prints it
    if (against && 'smp' in against && report.converterError)
      throw invalid({ group: '', kind: '' }, '', [field.invalid('patch', goFormatValue(against.smp), report.converterError)]);
    // jsonPatcher.applyPatchToCurrentObject: runtime.DecodeInto's error, against the patched JSON
    if (against && 'patchedJson' in against && against.typed && report.typeError)
      throw invalid({ group: '', kind: '' }, '', [field.invalid('patch', await against.patchedJson(), report.typeError)]);
    if (report.typeError) throw badRequest(report.typeError);
    fieldErrors.push(...unknownFieldErrors(report.unknown));
    const errors = [...new Set(fieldErrors)];
    // jsonPatcher.applyPatchToCurrentObject: the patch's and the strict decode's errors are a 422 against the patched JSON
    if (against && 'patchedJson' in against && validation === 'Strict' && errors.length > 0)
      throw invalid({ group: '', kind: '' }, '', [field.invalid('patch', await against.patchedJson(), strictDecodingError(errors))]);
    enforceFieldValidation(r.res, validation, errors);
    return obj;
  };

  let result: { object: KubeObject; created: boolean };
  if (isApply) {
    const parsed = await applyConfig(body, r, type, validation !== 'Ignore');
    fieldErrors.push(...parsed.duplicates);
    const config = await checked(parsed.config);
    result = await store.apply(r.ctx, info.name, config, { dryRun, fieldManager, force });
  } else {
    const text = body.toString('utf8');
    const bodyType = type === JSON_PATCH ? 'json' : type === MERGE_PATCH ? 'merge' : 'strategic';
    /**
     * kube's patchers decode the body once they hold the stored object (patcher.applyPatch): a
     * patch of an object that does not exist is a 404 whatever its body.
     */
    const decodeOnce = async (): Promise<unknown> => {
      const patch = await decodePatchBody(text, bodyType, validation, slice);
      if (validation !== 'Ignore') {
        const duplicates = await jsonDuplicateFieldErrorsInSlices(text, slice);
        // jsonPatcher.applyJSPatch: a JSON patch's own strict errors are prefixed "json patch"
        fieldErrors.push(...(type === JSON_PATCH ? jsonPatchStrictErrors(patch, duplicates).map((e) => `json patch ${e}`) : duplicates));
      }
      return patch;
    };
    let decoding: Promise<unknown> | undefined;
    const apply = async (current: KubeObject, decoded: V4Decoded): Promise<unknown> => {
      const patch = await (decoding ??= decodeOnce());
      switch (type) {
        case JSON_PATCH:
          return applyJsonPatchInSlices(current, patch, slice, decoded);
        case MERGE_PATCH:
          return applyMergePatch(current, patch, decoded);
        default:
          return applyStrategicMergePatchInSlices(current, patch, r.patchSchemaFor(r.served.kind), slice);
      }
    };
    // A strategic merge's result is converted from unstructured as kube's patcher does it, whose type errors it reports against the patch.
    const isSmp = type === STRATEGIC_MERGE_PATCH;
    const rule: PatchedKindRule = isSmp ? 'strategic' : isCustomResource(r) ? 'custom' : 'typed';
    const patched = async (current: KubeObject): Promise<KubeObject> => {
      await slice();
      const decoded: V4Decoded = new WeakSet();
      const merged = asObject(await apply(current, decoded), current, r.served.kind, rule, decoded);
      await slice();
      if (isSmp) return checked(merged, { smp: await decoding });
      // The decode changes what it reads (drops unknown fields): the patched JSON of an error is the patch's result again.
      const patchedJson = async (): Promise<string> => {
        const again: V4Decoded = new WeakSet();
        return v4PatchedJson(await apply(current, again), again);
      };
      return checked(merged, { patchedJson, typed: rule === 'typed' });
    };
    result = await store.update(r.ctx, info.name, patched, { dryRun, fieldManager });
  }
  // The store's stages ran since this request last yielded: encoding a large answer is a stage of its own.
  await slice();
  await respond(r, result.created ? 201 : 200, result.object);
}
