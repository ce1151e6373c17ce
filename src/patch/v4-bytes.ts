import { goJsonMarshalOf } from '../api/go-json';

/**
 * The objects and arrays of a patched document that gopkg.in/evanphx/json-patch.v4 decoded while
 * applying the patch (lazyNode.intoDoc, intoAry): its output writes those as Go maps and slices,
 * every other value as the json.RawMessage it came as, from the current object's encoding or from
 * the patch's text.
 */
export type V4Decoded = WeakSet<object>;

/** The bytes json-patch v4's MergePatch or Patch.Apply writes for a patched document: json.Marshal of its partialDoc. */
export function v4PatchedJson(document: unknown, decoded: V4Decoded): string {
  return goJsonMarshalOf(document, (obj) => decoded.has(obj));
}
