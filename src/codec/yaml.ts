import { dump, load } from 'js-yaml';
import { DecodeError } from './decode-error';
import { MAX_NESTING_DEPTH, valueNestingDepth } from './json';

/** YAML to a JSON value; a repeated key keeps its last value (strict field validation reports it). */
export function decodeYaml(body: Buffer): unknown {
  let value: unknown;
  try {
    value = load(body.toString('utf8'), { json: true });
  } catch (err) {
    throw new DecodeError(`error converting YAML to JSON: ${(err as Error).message.split('\n')[0]}`);
  }
  if (valueNestingDepth(value) > MAX_NESTING_DEPTH) throw new DecodeError(`error converting YAML to JSON: exceeded max depth of ${MAX_NESTING_DEPTH}`);
  return value;
}

/** YAML as sigs.k8s.io/yaml writes it: keys sorted, no anchors. */
export function encodeYaml(value: unknown): Buffer {
  return Buffer.from(dump(value, { sortKeys: true, noRefs: true, lineWidth: -1 }));
}
